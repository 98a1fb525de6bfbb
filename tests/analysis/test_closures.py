"""The closure a factory returns is the function its callers call: growthcleanpy's
`read_anthro()` loads the reference tables and returns `inner_function(param, agedays, sex,
measurement)`, which picks the table by age and sex. Listed as `read_anthro.<locals>.
inner_function`, it is judged as any function is, the harness calling the factory (with its
defaults) once to get it. A factory that needs arguments, or a nested helper it does not
return, is part of its factory's behaviour, as before."""

from __future__ import annotations

import ast

from analysis_kit import verdict

from analysis.source.functions import list_functions

FACTORY = """
def reference(scale=1.0):
    tables = {"M": 50.0 * scale, "F": 48.0 * scale}

    def z_score(sex, age_in_days, length):
        median = tables["M" if sex == "M" else "F"] + age_in_days / 100
        return round(length - median, 2)

    def unused(x):
        return x

    return z_score


def scaled(factor):
    def apply(age):
        return age * factor

    return apply
"""


def test_the_closure_a_factory_returns_is_listed_by_python_s_qualified_name() -> None:
    names = [info.qualname for info in list_functions(ast.parse(FACTORY))]
    assert names == ["reference", "reference.<locals>.z_score", "scaled"]


def test_the_closure_is_judged_through_its_factory() -> None:
    report = verdict(FACTORY, "reference.<locals>.z_score")
    assert report.status == "biased"
    assert {f.attribute for f in report.findings} == {"age", "gender"}
