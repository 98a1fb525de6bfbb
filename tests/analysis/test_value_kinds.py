"""Kinds of values (issue 24, items 5 and 8c): a protected value is only ever swapped for one
of the same kind (a number for a number, a word for a word), and the kinds an input is tried
with come from how the code compares and computes with it: a sex the code compares with 0/1
or multiplies is tried as numbers, one it only tests for truth as a 0/1 flag."""

from __future__ import annotations

import pytest
from analysis_kit import leaf, model_of, verdict

from analysis.values import is_number, value_kind

# Two functions of one module read the same field: one compares it with a number, the other
# with words. Each function's witness swaps a value for one of its own kind.
MIXED = """
def zone_fee(customer):
    return 12 if customer["region"] == 3 else 10


def rural_discount(customer):
    return 0.1 if customer["region"] in ("rural", "remote") else 0.0
"""


@pytest.mark.parametrize("qualname", ["zone_fee", "rural_discount"])
def test_a_witness_swaps_a_value_for_one_of_the_same_kind(qualname: str) -> None:
    report = verdict(MIXED, qualname)
    assert report.status == "biased", (report.status, report.reason)
    (finding,) = report.findings
    assert finding.example is not None
    kinds = {value_kind(v) for v in finding.example.values}
    assert len(kinds) == 1, finding.example.values


NUMERIC_USES = {
    "compared with 0/1": (
        "def premium(sexo, base):\n    return base * (1.2 if sexo == 1 else 1.0)\n",
        "premium",
        "sexo",
    ),
    "computed with": (
        "def score(sex, base):\n    return base + sex * 5\n",
        "score",
        "sex",
    ),
    "a record's field compared with 0": (
        "def points(patient):\n    return 3 if patient.get('sexo') == 0 else 0\n",
        "points",
        "patient['sexo']",
    ),
}


@pytest.mark.parametrize(
    ("source", "qualname", "display"), NUMERIC_USES.values(), ids=list(NUMERIC_USES)
)
def test_a_protected_input_used_as_a_number_is_tried_as_codes(
    source: str, qualname: str, display: str
) -> None:
    pool = leaf(model_of(source, qualname), display).pool
    assert pool and all(is_number(v) and v >= 0 for v in pool), pool
    report = verdict(source, qualname)
    assert report.status == "biased", (report.status, report.reason)
    (finding,) = report.findings
    assert finding.example is not None
    assert all(is_number(v) for v in finding.example.values), finding.example.values


def test_an_attribute_only_tested_for_truth_is_a_flag_of_0_and_1() -> None:
    # `if gender:` where the data holds 0/1: every word is true, so words alone find nothing.
    source = (
        "def bonus(gender, age, base):\n"
        "    if gender:\n"
        "        return base * 1.1\n"
        "    return base\n"
    )
    report = verdict(source, "bonus")
    assert report.status == "biased", (report.status, report.reason)
    (finding,) = report.findings
    assert finding.example is not None
    assert sorted(finding.example.values) == [0, 1]


def test_a_flag_named_by_its_value_keeps_true_and_false() -> None:
    source = "def egfr(scr, female):\n    return 141 * scr * (1.018 if female else 1.0)\n"
    assert leaf(model_of(source, "egfr"), "female").pool == [True, False]
