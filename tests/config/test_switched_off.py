"""A category a repository or organisation switches off (`protected: {race: {enabled: false}}`)
is neither tested nor reported; the others are tested as before."""

from __future__ import annotations

import pytest

from analysis import Engine
from config.policy import build_policy

SOURCE = """\
def loan_rate(applicant):
    rate = 5.0
    if applicant["age"] > 60:
        rate += 1.0
    if applicant["race"] == "black":
        rate += 0.5
    return rate
"""


@pytest.mark.sandbox
def test_a_switched_off_category_is_neither_tested_nor_reported() -> None:
    with Engine(build_policy([{"protected": {"race": {"enabled": False}}}])) as engine:
        report = engine.scan_function(SOURCE, "loans.py", "loan_rate")
    assert report.status == "biased"
    assert report.attributes_tested == ["age"]
    assert [f.attribute for f in report.findings] == ["age"]


@pytest.mark.sandbox
def test_with_the_defaults_both_are_found() -> None:
    with Engine(build_policy([])) as engine:
        report = engine.scan_function(SOURCE, "loans.py", "loan_rate")
    assert sorted(f.attribute for f in report.findings) == ["age", "race"]
