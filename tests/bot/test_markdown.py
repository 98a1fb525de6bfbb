"""Markdown rendering: whole reports, counterexample tables, review comments."""

from __future__ import annotations

import pytest

from analysis.report import Example, Finding, FunctionReport, ScanReport
from bot.outcome import FunctionResult, ReviewOutcome
from bot.render.markdown import check_summary, code, example_table, function_comment, render_report


def finding() -> Finding:
    return Finding(
        "age",
        "applicant['age']",
        Example({"applicant": {"age": 29, "experience": 3}}, [29, 30], ["False", "True"]),
        17,
    )


def test_example_table_shows_both_cases_and_outputs() -> None:
    table = example_table(finding()).splitlines()
    assert table[0] == "| input | case A | case B |"
    assert "| **`applicant['age']`** | **`29`** | **`30`** |" in table
    assert "| `applicant['experience']` | `3` | `3` |" in table
    assert table[-1] == "| **output** | `False` | `True` |"


def test_example_table_for_a_static_finding_says_it_was_not_run() -> None:
    assert "judged from the code" in example_table(Finding("age", "age", None, 3, "static"))


@pytest.mark.parametrize(
    "value,cell",
    [
        ("a|b", "`a\\|b`"),
        ("x`y", "`` x`y ``"),
        ("line\nbreak", "`line break`"),
        ("z" * 100, "`" + "z" * 59 + "…`"),
    ],
)
def test_cells_cannot_break_the_table(value: str, cell: str) -> None:
    assert code(value) == cell


def test_render_report_lists_functions_findings_and_accepted() -> None:
    biased = FunctionReport(
        "pkg/hiring.py", "assess", 12, 30, "biased", attributes_tested=["age"], findings=[finding()]
    )
    clean = FunctionReport("pkg/hiring.py", "rank", 40, 44, "clean", attributes_tested=["age"])
    accepted = FunctionReport(
        "pkg/pricing.py",
        "senior_discount",
        1,
        5,
        "clean",
        attributes_tested=["age"],
        accepted=[(finding(), "statutory")],
    )
    broken = FunctionReport(
        "pkg/x.py", "<module>", 1, 1, "error", "static", reason="no parsable Python"
    )
    text = render_report(
        ScanReport([biased, clean, accepted, broken], 1.5, [("pkg/x.py", "no parsable Python")])
    )
    assert text.startswith("# codebias report")
    assert "**1** of **4** functions biased" in text
    assert "| age | 3 | 1 | 0.33 |" in text
    assert "## `pkg/hiring.py::assess` (line 12)" in text and "| **output** |" in text
    assert "`pkg/pricing.py::senior_discount` age: statutory" in text
    assert "`pkg/x.py`: no parsable Python" in text


def test_review_comment_carries_the_fingerprint_and_says_new() -> None:
    report = FunctionReport(
        "pkg/hiring.py", "assess", 12, 30, "biased", attributes_tested=["age"], findings=[finding()]
    )
    body = function_comment(
        FunctionResult(report, {"age"}), "<!-- codebias:fp=0123456789abcdef -->", "f" * 40
    )
    assert body.endswith("<!-- codebias:fp=0123456789abcdef -->")
    assert "new in this pull request" in body and "commit fffffff" in body
    assert "# codebias: ignore[age]" in body


def test_check_summary_counts_new_and_pre_existing_and_lists_unverified() -> None:
    new = FunctionReport(
        "a.py",
        "f",
        1,
        3,
        "biased",
        attributes_tested=["age", "gender"],
        findings=[finding(), Finding("gender", "g", None, 2, "static")],
    )
    odd = FunctionReport("a.py", "g", 5, 9, "unverified", reason="imports a missing module")
    outcome = ReviewOutcome(
        "o", "r", 1, "h" * 40, "b" * 40, "new", [FunctionResult(new, {"age"}), FunctionResult(odd)]
    )
    text = check_summary(outcome)
    assert "**1** new in this pull request, **1** pre-existing" in text
    assert "age (new), gender (pre-existing)" in text
    assert "`a.py::g` unverified: imports a missing module" in text
    assert outcome.conclusion == "failure"
