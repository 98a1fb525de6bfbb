"""Reading the function out of a model's answer, or saying clearly why it cannot be used."""

from __future__ import annotations

import ast

import pytest

from analysis.mitigation import AnswerRejected, extract_function
from analysis.mitigation.splice import find_function, function_source
from analysis.source.functions import FunctionInfo

MODULE = '''"""Hiring rules."""
import math

THRESHOLD = 3


def assess(applicant, strict=False, *, region_weight=1.0):
    if applicant["age"] > 60:
        return False
    return applicant["experience"] >= THRESHOLD


class Screener:
    @staticmethod
    def score(candidate):
        return candidate.skill + (5 if candidate.gender == "male" else 0)
'''

GOOD = """def assess(applicant, strict=False, *, region_weight=1.0):
    return applicant["experience"] >= THRESHOLD
"""


def original(qualname: str) -> tuple[FunctionInfo, ast.Module]:
    tree = ast.parse(MODULE)
    info = find_function(tree, qualname)
    assert info is not None
    return info, tree


def extract(answer: str, qualname: str = "assess") -> str:
    info, tree = original(qualname)
    return extract_function(answer, info, tree, function_source(MODULE, info)).function_source


ACCEPTED = [
    ("fenced", f"Here you go:\n\n```python\n{GOOD}```\n\nThis removes the age check.", GOOD),
    ("fence without language", f"```\n{GOOD}```", GOOD),
    ("unfenced with prose around", f"Sure. The fix:\n\n{GOOD}\nThat is all.", GOOD),
    ("bare code", GOOD, GOOD),
    (
        "last block that defines it wins",
        "Reasoning:\n```python\nx = applicant['age']\n```\nFinal:\n```python\n" + GOOD + "```\n"
        "Usage:\n```python\nprint(assess({}))\n```",
        GOOD,
    ),
    (
        "module constants quoted back are tolerated",
        f"```python\nTHRESHOLD = 3\n\n\n{GOOD}```",
        GOOD,
    ),
    (
        "annotations may change",
        GOOD.replace("(applicant,", "(applicant: dict,"),
        GOOD.replace("(applicant,", "(applicant: dict,"),
    ),
]


@pytest.mark.parametrize(
    ("answer", "expected"), [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED]
)
def test_usable_answers_yield_the_function(answer: str, expected: str) -> None:
    assert extract(answer) == expected


def test_new_imports_are_collected_and_existing_ones_dropped() -> None:
    info, tree = original("assess")
    answer = f"```python\nimport math\nfrom statistics import mean\n\n{GOOD}```"
    candidate = extract_function(answer, info, tree)
    assert candidate.imports == ["from statistics import mean"]


def test_method_answered_inside_its_class_keeps_its_decorator() -> None:
    fixed = "    def score(candidate):\n        return candidate.skill\n"
    source = extract(f"```python\nclass Screener:\n{fixed}```", "Screener.score")
    assert source == "@staticmethod\ndef score(candidate):\n    return candidate.skill\n"


def test_method_answered_alone_is_accepted() -> None:
    answer = "```python\n@staticmethod\ndef score(candidate):\n    return candidate.skill\n```"
    assert extract(answer, "Screener.score").startswith("@staticmethod\ndef score(candidate):")


REJECTED = [
    ("prose only", "I would simply remove the age condition; the rest can stay.", "only prose"),
    ("empty", "", "only prose"),
    (
        "does not parse",
        "```python\ndef assess(applicant, strict=False, *, region_weight=1.0):\n    return (\n```",
        "does not parse (line 2",
    ),
    (
        "parameter dropped",
        "```python\ndef assess(applicant):\n    return True\n```",
        "signature changed from `def assess(applicant, strict=False, *, region_weight=1.0)` "
        "to `def assess(applicant)`",
    ),
    (
        "default changed",
        "```python\ndef assess(applicant, strict=True, *, region_weight=1.0):\n"
        "    return True\n```",
        "signature changed",
    ),
    (
        "became async",
        "```python\nasync def assess(applicant, strict=False, *, region_weight=1.0):\n"
        "    return True\n```",
        "`async def assess(",
    ),
    (
        "renamed",
        "```python\ndef assess_fairly(applicant, strict=False, *, region_weight=1.0):\n"
        "    return True\n```",
        "defines `assess_fairly` but not `assess`",
    ),
    (
        "adds a helper",
        f"```python\ndef helper(a):\n    return a\n\n\n{GOOD}```",
        "adds `helper` outside `assess`",
    ),
    (
        "changes a module constant",
        f"```python\nTHRESHOLD = 2\n\n\n{GOOD}```",
        "adds `THRESHOLD = 2` outside",
    ),
    (
        "silences the finding",
        "```python\ndef assess(applicant, strict=False, *, region_weight=1.0):  "
        "# codebias: ignore[age] fine\n    return applicant['age'] < 60\n```",
        "codebias: ignore",
    ),
]


@pytest.mark.parametrize(
    ("answer", "reason"), [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED]
)
def test_unusable_answers_are_rejected_with_a_reason(answer: str, reason: str) -> None:
    with pytest.raises(AnswerRejected) as caught:
        extract(answer)
    assert reason in caught.value.reason


def test_changed_decorator_is_rejected() -> None:
    answer = "```python\n@classmethod\ndef score(candidate):\n    return candidate.skill\n```"
    with pytest.raises(AnswerRejected, match="decorators changed"):
        extract(answer, "Screener.score")
