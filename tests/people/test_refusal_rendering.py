"""A refusal reads as one in every format: the value refused and its exception type."""

from __future__ import annotations

import json

from analysis.mitigation.prompts import render_case
from analysis.report import Example, Finding, FunctionReport, ScanReport
from bot.outcome import FunctionResult, ReviewOutcome
from bot.publish import build_annotations
from bot.render.markdown import render_report
from bot.render.sarif import render_sarif
from bot.render.text import render_text

FINDING = Finding(
    "gender",
    "gender",
    Example(
        {"gender": "male", "score": 60},
        ["male", "non-binary"],
        ["True", "raises ValueError: unsupported gender"],
    ),  # fmt: skip
    line=3,
    kind="refuses",
)
REPORT = FunctionReport("people.py", "enrol", 2, 5, "biased", attributes_tested=["gender"],
                        findings=[FINDING], executions=30)  # fmt: skip


def test_the_finding_names_the_refused_value_and_exception() -> None:
    assert FINDING.refused == ("non-binary", "ValueError")
    assert FINDING.refusal_text == "refuses gender='non-binary': ValueError"
    output = Finding("gender", "gender", FINDING.example, 3)  # the default kind
    assert output.refused is None and output.refusal_text is None


def test_text_shows_the_refusal() -> None:
    text = render_text(ScanReport([REPORT]), width=200)
    assert "refuses gender='non-binary': ValueError" in text
    assert "raises ValueError: unsupported gender" in text


def test_markdown_shows_the_refusal() -> None:
    text = render_report(ScanReport([REPORT]))
    assert "is refused (raises `ValueError`)" in text
    assert "`'non-binary'`" in text


def test_sarif_says_refuses_with_the_exception() -> None:
    sarif = json.loads(render_sarif(ScanReport([REPORT])))
    [result] = sarif["runs"][0]["results"]
    text = result["message"]["text"]
    assert "refuses people by gender" in text
    assert "'non-binary' raises ValueError: unsupported gender" in text
    assert "while 'male' returns True" in text


def test_check_annotations_title_the_refusal() -> None:
    outcome = ReviewOutcome("o", "r", 1, "h", "b", "any",
                            results=[FunctionResult(REPORT, {"gender"})])  # fmt: skip
    [annotation] = build_annotations(outcome)
    assert "refuses gender='non-binary': ValueError" in annotation["title"]


def test_the_fix_prompt_says_which_value_raises() -> None:
    case = render_case(FINDING)
    assert 'gender = "non-binary" raises ValueError: unsupported gender' in case
    assert 'gender = "male" gives True' in case
