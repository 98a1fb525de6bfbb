"""A function that reads what the module's set-up function fills (`setup_tables()` loads the
growth charts, then `z_score(box)` reads them) raises for every input when called alone; its
callers in the module call the set-up first, and so does the harness, once per load."""

from __future__ import annotations

import ast

from analysis_kit import verdict

from analysis.facts.module import ModuleFacts
from analysis.facts.preparations import prepared_by_callers

CHARTS = """
CHARTS = {}


def setup_tables(scale=1.0):
    CHARTS["boys"] = {30: 12.0 * scale, 70: 14.0 * scale}
    CHARTS["girls"] = {30: 11.0 * scale, 70: 13.0 * scale}


def z_score(sex, age_in_days, weight):
    table = CHARTS["boys" if sex == "M" else "girls"]
    return round(weight - table[min(table, key=lambda d: abs(d - age_in_days))], 2)


def z_scores(sexes, ages, weights):
    setup_tables()
    return [z_score(s, a, w) for s, a, w in zip(sexes, ages, weights)]


def helper(x, y):
    return x + y


def uses_helper(x):
    setup_tables()
    return x


def later(x):
    out = helper(x, 1)
    setup_tables()
    return out
"""


def test_the_set_up_its_callers_run_first_is_found() -> None:
    tree = ast.parse(CHARTS)
    facts = ModuleFacts(tree)
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    assert prepared_by_callers(functions["z_score"], facts) == ("setup_tables",)
    assert prepared_by_callers(functions["helper"], facts) == ()  # set up after, not before
    assert prepared_by_callers(functions["z_scores"], facts) == ()


def test_a_function_reading_what_the_set_up_fills_is_judged() -> None:
    report = verdict(CHARTS, "z_score")
    assert report.status == "biased"
    assert {f.attribute for f in report.findings} >= {"gender"}
