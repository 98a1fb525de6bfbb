"""Inputs numpy converts (`np.asarray(income)`, or a helper of the module returning such a
conversion of its parameter): a number broadcasts against every other input's array, where
lists tried for each input, of lengths that differ, make every call raise. A microsimulation's
functions take a whole population as arrays, or one household as numbers."""

from __future__ import annotations

from analysis_kit import model_of, verdict

CREDITS = """
import numpy as np


def _as_array(x):
    return np.atleast_1d(np.asarray(x, dtype=float))


def credit(income, children, age=None):
    inc = _as_array(income)
    kids = _as_array(children).astype(int)
    amount = np.array([500.0 * min(k, 3) for k in kids]) + 0 * inc
    if age is not None:
        # no credit without children under 25
        young = (kids == 0) & (_as_array(age) < 25)
        amount = np.where(young, 0.0, amount + 300.0)
    return amount


def households(children, income):
    # elsewhere in the module, the same names are taken the length of: lists alone would
    # be tried, of lengths that differ
    return [len(children), len(income)]
"""


def test_an_input_numpy_converts_takes_numbers() -> None:
    pools = {leaf.name: leaf.pool for leaf in model_of(CREDITS, "credit").leaves}
    assert all(not isinstance(v, list) for v in pools["children"] + pools["income"])


def test_a_vectorised_rule_is_proved_with_numbers() -> None:
    report = verdict(CREDITS, "credit")
    assert report.status == "biased", report.reason
    assert [f.attribute for f in report.findings] == ["age"]
