"""A record handed to a method of an object the function keeps or makes (its component) is
read there: `self.scorer.score(applicant)` reads `applicant["age"]` in `Scorer.score`."""

from __future__ import annotations

import pytest
from analysis_kit import verdict

SCORER = """
class Scorer:
    def score(self, applicant):
        return 10 if applicant["age"] > 60 else 0
"""

SHAPES = {
    "made in the constructor": """
class Service:
    def __init__(self):
        self.scorer = Scorer()
    def evaluate(self, applicant):
        return "deny" if self.scorer.score(applicant) > 5 else "approve"
""",
    "given to the constructor, annotated": """
class Service:
    def __init__(self, scorer: Scorer):
        self.scorer = scorer
    def evaluate(self, applicant):
        return "deny" if self.scorer.score(applicant) > 5 else "approve"
""",
    "a dataclass field": """
from dataclasses import dataclass, field
@dataclass
class Service:
    scorer: Scorer = field(default_factory=Scorer)
    def evaluate(self, applicant):
        return "deny" if self.scorer.score(applicant) > 5 else "approve"
""",
    "a component of a component": """
class Engine:
    def __init__(self):
        self.scorer = Scorer()
    def run(self, applicant):
        return self.scorer.score(applicant) * 2
class Service:
    def __init__(self):
        self.engine = Engine()
    def evaluate(self, applicant):
        return "deny" if self.engine.run(applicant) > 5 else "approve"
""",
    "a local instance": """
class Service:
    def evaluate(self, applicant):
        scorer = Scorer()
        return "deny" if scorer.score(applicant) > 5 else "approve"
""",
    "a module's instance": """
SHARED = Scorer()
class Service:
    def evaluate(self, applicant):
        return "deny" if SHARED.score(applicant) > 5 else "approve"
""",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_record_handed_to_a_component_is_read_there(shape: str) -> None:
    report = verdict(SCORER + SHAPES[shape], "Service.evaluate")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"age"}
    assert any(f.method == "dynamic" for f in report.findings)


def test_a_name_bound_to_two_classes_is_no_component() -> None:
    """`helper` is a Scorer in one function and a Pricer in another: neither is assumed."""
    source = SCORER + """
class Pricer:
    def score(self, applicant):
        return applicant["income"] / 1000

def a(applicant):
    helper = Scorer()
    return helper.score(applicant)

def b(applicant):
    helper = Pricer()
    return "deny" if helper.score(applicant) > 5 else "approve"
"""
    report = verdict(source, "b")
    assert report.status != "biased", report.findings
