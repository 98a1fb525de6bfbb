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


CALLS = {
    "one of a table of functions": """
def senior(a):
    return 100 if a["age"] > 60 else 50
def junior(a):
    return 10
HANDLERS = {"senior": senior, "junior": junior}
class Engine:
    def evaluate(self, kind, applicant):
        return HANDLERS[kind](applicant)
""",
    "an object made with the record": """
class RiskModel:
    def __init__(self, profile):
        self.profile = profile
    def score(self):
        return 3 if self.profile["age"] > 60 else 1
class Engine:
    def evaluate(self, applicant):
        return "deny" if RiskModel(applicant).score() > 2 else "approve"
""",
}


@pytest.mark.parametrize("shape", sorted(CALLS))
def test_a_record_handed_on_where_no_one_function_is_named_is_read_there(shape: str) -> None:
    report = verdict(CALLS[shape], "Engine.evaluate")
    assert report.status == "biased", report.reason
    assert "age" in {f.attribute for f in report.findings if f.method == "dynamic"}


def test_a_year_is_a_calendar_year() -> None:
    """`year - birth_year` is an age only when the year is this one, not 0 or 100."""
    source = """
from dataclasses import dataclass
@dataclass
class Person:
    name: str
    birth_year: int
    def age(self, year):
        return year - self.birth_year
class Pricer:
    def price(self, p: Person, year: int):
        return 200 if p.age(year) > 60 else 100
"""
    report = verdict(source, "Pricer.price")
    assert report.status == "biased", report.reason


def test_an_object_given_whose_methods_are_called_is_made_by_its_class() -> None:
    """`engine: Engine`, made without arguments: a real Engine, not a number."""
    source = """
class Engine:
    def evaluate(self, a):
        return 5 if a["age"] > 60 else 0

def run(engine: Engine, applicant):
    return "deny" if engine.evaluate(applicant) > 2 else "approve"
"""
    report = verdict(source, "run")
    assert report.status == "biased", report.reason


def test_each_function_of_a_table_looped_over_reads_the_record() -> None:
    source = """
def age_rule(a):
    return 5 if a["age"] > 60 else 0

def income_rule(a):
    return 1 if a["income"] < 10 else 0

RULES = {"age": age_rule, "income": income_rule}

def evaluate(applicant):
    return sum(rule(applicant) for _, rule in RULES.items())
"""
    report = verdict(source, "evaluate")
    assert report.status == "biased", report.reason


def test_arguments_unpacked_by_position_are_named_as_unpacked() -> None:
    source = """
def premium(*args):
    age, income = args
    return income * (2 if age > 60 else 1)
"""
    report = verdict(source, "premium")
    assert report.status == "biased", report.reason
    finding = next(f for f in report.findings if f.method == "dynamic")
    assert finding.attribute == "age"


def test_a_record_is_followed_three_helpers_deep() -> None:
    source = """
class Service:
    def _age_factor(self, a):
        return 2 if a["age"] > 60 else 1
    def _score(self, a):
        return self._age_factor(a) * 10
    def _prepare(self, a):
        return self._score(a) + 1
    def evaluate(self, applicant):
        return "deny" if self._prepare(applicant) > 15 else "approve"
"""
    report = verdict(source, "Service.evaluate")
    assert report.status == "biased", report.reason
