"""The mechanical rules as text: each form of bias rewritten into the code the reference group
gets, everything else of the function kept as written (comments, layout, echoes).

Only the rewrites are read here (no code runs); tests/mitigation/test_mechanical_fix.py runs
them in the sandbox.
"""

from __future__ import annotations

import ast

import pytest

from analysis import Engine
from analysis.mitigation.mechanical.fixer import Rewrite, frames_of, rewrites
from config.policy import default_policy


def first_rewrite(source: str, qualname: str, attributes: set[str]) -> Rewrite | None:
    """The rewrite tried first, of the reads of `attributes` (as the fixer chooses them)."""
    found = Engine(default_policy()).function_inputs(source, "m.py", qualname)
    assert found is not None
    module, _, model = found
    leaves = [leaf for leaf in model.protected if leaf.category in attributes]
    made = rewrites(source, qualname, leaves, module.facts.constants, frames_of(model))
    return made[0] if made else None


CASES = [
    (
        "an if on the attribute keeps the reference group's branch",
        '''\
def salary_offer(candidate):
    base = 50000
    # seniority first
    if candidate["experience"] > 5:
        base += 10000
    if candidate["gender"] == "male":
        base += 5000
    return base
''',
        '''\
def salary_offer(candidate):
    base = 50000
    # seniority first
    if candidate["experience"] > 5:
        base += 10000
    base += 5000
    return base
''',
        {"gender"},
        ("collapse-branch",),
    ),
    (
        "a branch that the reference group skips goes, and so does code left unreachable",
        """\
def approve(age, income):
    if age > 60:
        return False
    return income > 30000
""",
        """\
def approve(age, income):
    return income > 30000
""",
        {"age"},
        ("collapse-branch",),
    ),
    (
        "a conditional expression becomes its branch",
        """\
def quote(age, base):
    return base * (1.5 if age >= 70 else 1.0)
""",
        """\
def quote(age, base):
    return base * 1.0
""",
        {"age"},
        ("collapse-branch",),
    ),
    (
        "an elif chain keeps what follows the attribute's arm",
        """\
def band(score, sex):
    if sex == "female":
        return "B"
    elif score > 80:
        return "A"
    else:
        return "C"
""",
        """\
def band(score, sex):
    if score > 80:
        return "A"
    else:
        return "C"
""",
        {"gender"},
        ("collapse-branch",),
    ),
    (
        "a condition on the attribute beside other inputs keeps its other part",
        """\
def rate(children, sex, years, base):
    if children >= 3 and sex == "female":
        base *= 1.15
    if years > 10 or sex == "female":
        base -= 1
    return base
""",
        """\
def rate(children, sex, years, base):
    if years > 10:
        base -= 1
    return base
""",
        {"gender"},
        ("collapse-branch",),
    ),
    (
        "a match keeps the reference group's case",
        """\
def risk(occupation):
    match occupation:
        case "pilot" | "miner":
            return "high"
        case _:
            return "low"
""",
        """\
def risk(occupation):
    return "low"
""",
        {"occupation"},
        ("collapse-branch",),
    ),
    (
        "a table with a default gives its neutral entry",
        """\
RATES = {"rural": 1.3, "urban": 1.1}


def premium(region, coverage):
    return RATES.get(region.lower(), 1.0) * coverage
""",
        """\
RATES = {"rural": 1.3, "urban": 1.1}


def premium(region, coverage):
    return 1.0 * coverage
""",
        {"region"},
        ("neutral-entry",),
    ),
    (
        "a filter on the attribute alone leaves the collection",
        """\
def shortlist(candidates):
    return [c["name"] for c in candidates if c["gender"] == "male" and c["score"] > 50]
""",
        """\
def shortlist(candidates):
    return [c["name"] for c in candidates if c["score"] > 50]
""",
        {"gender"},
        ("drop-filter",),
    ),
    (
        "a formula takes the reference group's value; a shown value stays the person's",
        """\
def costs(age, bmi):
    cost = 2000 + bmi * 100
    cost += age * 250
    return {"age": age, "cost": cost}
""",
        """\
def costs(age, bmi):
    cost = 2000 + bmi * 100
    cost += 30 * 250
    return {"age": age, "cost": cost}
""",
        {"age"},
        ("pin-reference",),
    ),
    (
        "a decided operand of a returned condition goes",  # a resident: a person's neighbourhood
        """\
def watch_resident(neighborhood, reports):
    return reports > 3 or neighborhood == "Eastside"
""",
        """\
def watch_resident(neighborhood, reports):
    return reports > 3
""",
        {"region"},
        ("pin-reference",),
    ),
    (
        "a decided part of a parenthesised condition goes with its parentheses",
        """\
def flag(history, race):
    return len(history) > 5 or (race in ("Black",) and len(history) > 2)
""",
        """\
def flag(history, race):
    return len(history) > 5
""",
        {"race"},
        ("pin-reference",),
    ),
    (
        "rows of a data frame chosen by the attribute alone are all kept",
        """\
import pandas as pd


def households(df: pd.DataFrame) -> list:
    seniors = df[df["AGEP"] >= 65]
    poor = df.loc[(df["SEX"] == 2) & (df["PINCP"] < 20000), "SERIALNO"]
    return list(seniors["SERIALNO"]) + list(poor)
""",
        """\
import pandas as pd


def households(df: pd.DataFrame) -> list:
    seniors = df
    poor = df.loc[(df["PINCP"] < 20000), "SERIALNO"]
    return list(seniors["SERIALNO"]) + list(poor)
""",
        {"age", "gender"},
        ("drop-filter",),
    ),
    (
        "np.where on the attribute keeps the reference group's side",
        """\
import numpy as np
import pandas as pd


def weighted(df: pd.DataFrame) -> list:
    return (np.where(df["SEX"] == 2, 0.8, 1.0) * df["PINCP"]).tolist()
""",
        """\
import numpy as np
import pandas as pd


def weighted(df: pd.DataFrame) -> list:
    return (1.0 * df["PINCP"]).tolist()
""",
        {"gender"},
        ("collapse-branch",),
    ),
    (
        "a method keeps its indentation, decorators and the locals the reference decides",
        """\
class Scorer:
    @staticmethod
    def score(p):
        age = p.get("age", 30)  # years
        return 2 * (1 if age < 60 else 0.5)
""",
        """\
class Scorer:
    @staticmethod
    def score(p):
        return 2 * 1
""",
        {"age"},
        ("collapse-branch",),
    ),
]


@pytest.mark.parametrize(
    ("source", "expected", "attributes", "rules"),
    [c[1:] for c in CASES],
    ids=[c[0].replace(" ", "_") for c in CASES],
)
def test_each_form_is_rewritten_to_the_reference_groups_code(
    source: str, expected: str, attributes: set[str], rules: tuple[str, ...]
) -> None:
    qualname = next(
        f"{c.name}.{f.name}" if isinstance(c, ast.ClassDef) else c.name
        for c in ast.parse(source).body
        if isinstance(c, (ast.FunctionDef, ast.ClassDef))
        for f in (c.body if isinstance(c, ast.ClassDef) else [c])
        if isinstance(f, ast.FunctionDef)
    )
    rewrite = first_rewrite(source, qualname, attributes)
    assert rewrite is not None
    assert rewrite.text == expected
    assert rewrite.rules == rules


def test_a_function_whose_reads_no_rule_knows_gets_no_rewrite() -> None:
    # The attribute is read through a key held in a variable: nothing to rewrite safely.
    source = """\
def pick(person, field="sex"):
    return 1 if person[field] == "male" else 0
"""
    assert first_rewrite(source, "pick", {"gender"}) is None


def test_the_values_worked_out_never_run_the_code() -> None:
    # A huge repetition in the condition is not evaluated here: the branch is left alone.
    source = """\
def f(sex, n):
    if sex == "male" * 10**12:
        return n
    return 0
"""
    rewrite = first_rewrite(source, "f", {"gender"})
    assert rewrite is None or "10**12" in rewrite.text
