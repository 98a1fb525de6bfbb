"""Clean verdicts for biased code (issue 11, item 5).

Reproducers: `(age < 60, time.time())` was `clean` (the clock made every output unstable, so
the age rule was given up as nondeterministic), and `if age > 60: raise` was `clean` (a call
that raised was no witness). Both are now biased, each with a counterexample that re-runs."""

from __future__ import annotations

import pytest

from analysis import Engine
from config.policy import default_policy

pytestmark = pytest.mark.sandbox

SOURCE = """
import time


def stamped(age):
    return (age < 60, time.time())


def refuse_older(age, amount):
    if age > 60:
        raise ValueError("no cover above 60")
    return amount
"""


def test_a_clock_beside_an_age_rule_does_not_hide_it() -> None:
    report = Engine(default_policy()).scan_function(SOURCE, "clock.py", "stamped")
    assert report.status == "biased"
    assert report.findings[0].kind == "output"


def test_raising_for_older_people_is_biased() -> None:
    report = Engine(default_policy()).scan_function(SOURCE, "refuse.py", "refuse_older")
    assert report.status == "biased"
    assert report.findings[0].kind == "refuses"
