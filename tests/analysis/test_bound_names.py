"""A value read under a key that says nothing (a survey's code, a column `c3`) is named by
where the function puts it (analysis/facts/bound_names.py): `sex = raw["RIAGENDR"]`,
`d["age"] = raw["RIDAGEYR"]`, `Person(age=row["c3"])`."""

from __future__ import annotations

import pytest
from analysis_kit import model_of, verdict

SURVEY = """\
def egfr(raw):
    age = int(raw["RIDAGEYR"])
    sex = raw.get("RIAGENDR")
    kappa = 0.7 if sex == 2 else 0.9
    return round(142 * (1.2 / kappa) ** -0.3 * 0.9938 ** age, 2)
"""

FRAME = """\
import pandas as pd

def derive(raw: pd.DataFrame) -> pd.DataFrame:
    d = pd.DataFrame({"id": raw["SEQN"]})
    d["age"] = raw["RIDAGEYR"].astype(float)
    d["risk"] = (d["age"] > 60).astype(float) * 2 + raw["LBXTC"] / 100
    return d[["id", "risk"]]
"""

KEYWORDS = """\
def premium(row):
    return quote(age=row["c3"], smoker=row["c4"])

def quote(age, smoker):
    return 100 + (50 if age > 50 else 0) + (30 if smoker else 0)
"""

POSITIONAL = """\
class Scorer:
    def score(self, rec):
        return round(self._rate(rec.f2) * rec.f3, 2)

    def _rate(self, gender):
        return 1.2 if gender == "F" else 1.0
"""

# Parts of the input held by locals: a member of a list in a loop, a record's part.
ALIASES = """\
def household_score(data):
    total = 0
    for member in data["members"]:
        age = member["m2"]
        total += 2 if age > 65 else 1
    head = data["head"]
    sex = head["h1"]
    return total * (1.1 if sex == "F" else 1.0)
"""

# A survey's codes renamed, by a mapping of the module: the frame is read by the new names.
RENAMED = """\
import pandas as pd

NAMES = {"RIDAGEYR": "age", "RIAGENDR": "sex"}

def egfr(raw: pd.DataFrame) -> pd.Series:
    df = raw.rename(columns=NAMES)
    sex_factor = df["sex"].map({1: 1.0, 2: 1.012})
    return (142 * 0.9938 ** df["age"] * sex_factor + raw["LBXSCR"]).round(2)
"""


@pytest.mark.parametrize(
    ("source", "qualname", "attributes"),
    [
        (SURVEY, "egfr", {"age", "gender"}),
        (FRAME, "derive", {"age"}),
        (KEYWORDS, "premium", {"age"}),
        (POSITIONAL, "Scorer.score", {"gender"}),
        (ALIASES, "household_score", {"age", "gender"}),
        (RENAMED, "egfr", {"age", "gender"}),
    ],
    ids=["survey", "a frame's column", "keywords", "positional", "aliases", "renamed columns"],
)
def test_a_value_is_named_by_where_the_function_puts_it(
    source: str, qualname: str, attributes: set[str]
) -> None:
    found = {f.attribute for f in verdict(source, qualname).findings}
    assert found == attributes


@pytest.mark.parametrize(
    "source",
    [
        # A bound, not an age; a weak word (a cloud's region); two categories disagreeing.
        'def f(cfg):\n    max_age = cfg["LIMIT"]\n    return max_age * 2\n',
        'def f(cfg):\n    region = cfg["zone"]\n    return region.upper()\n',
        'def f(raw):\n    age = raw["X"]\n    sex = raw["X"]\n    return age\n',
    ],
    ids=["a bound", "a weak word", "two categories"],
)
def test_names_that_are_no_persons_attribute_leave_the_value_unnamed(source: str) -> None:
    assert not model_of(source).protected


# A parameter of no name, handed on whole to a helper (or a local, a key) that names it.
HANDED = {
    "a method's parameter": (
        "Pricer.quote",
        """\
class Pricer:
    def __init__(self, base):
        self.base = base

    def _age_factor(self, age):
        return 1.5 if age > 65 else 1.0

    def quote(self, value):
        return self.base * self._age_factor(value)
""",
    ),
    "a keyword": (
        "quote",
        """\
def _factor(age=30, smoker=False):
    return (1.5 if age > 65 else 1.0) * (1.2 if smoker else 1.0)

def quote(years, smoker, base=100):
    return base * _factor(age=years, smoker=smoker)
""",
    ),
    "through a helper of no name": (
        "Screener.screen",
        """\
class Screener:
    def _check(self, gender):
        return gender == "female"

    def _route(self, g, score):
        return score > 3 if self._check(g) else score > 6

    def screen(self, who, score):
        return self._route(who, score)
""",
    ),
    "a constructor's parameter": (
        "price",
        """\
class Applicant:
    def __init__(self, age, years):
        self.age, self.years = age, years

def price(v, years):
    a = Applicant(v, years)
    return a.years * (0.5 if a.age > 60 else 1.0)
""",
    ),
    "a dataclass's field": (
        "price",
        """\
from dataclasses import dataclass

@dataclass
class Applicant:
    sex: str
    years: int

def price(s, years):
    a = Applicant(s, years)
    return a.years * (0.9 if a.sex == "F" else 1.0)
""",
    ),
    "a record's key": (
        "price",
        """\
def rate(person):
    return 2.0 if person["age"] > 60 else 1.0

def price(v, base=10):
    return base * rate({"age": v})
""",
    ),
}


@pytest.mark.parametrize(("qualname", "source"), HANDED.values(), ids=HANDED.keys())
def test_a_parameter_is_what_the_helpers_it_is_handed_to_call_it(
    qualname: str, source: str
) -> None:
    assert verdict(source, qualname).status == "biased"


@pytest.mark.parametrize(
    "source",
    [
        # A bound handed on; two helpers naming it two categories; a helper's own input.
        "def cap(max_age):\n    return max_age * 2\n\ndef f(n):\n    return cap(n)\n",
        "def a(age):\n    return age\n\ndef b(sex):\n    return sex\n\n"
        "def f(v):\n    return (a(v), b(v))\n",
        "def g(age, n):\n    return (age > 60) * n\n\ndef f(rate):\n    return g(30, rate)\n",
    ],
    ids=["a bound", "two categories", "not the named argument"],
)
def test_a_parameter_handed_to_no_one_name_stays_open(source: str) -> None:
    assert not model_of(source, "f").protected


def test_a_helpers_parameter_of_no_name_counts_by_what_the_helper_compares_it_with() -> None:
    source = """\
class Screener:
    def _check(self, code):
        return code == "female"

    def screen(self, who, score):
        return score > 3 if self._check(who) else score > 6
"""
    assert verdict(source, "Screener.screen").status == "biased"
