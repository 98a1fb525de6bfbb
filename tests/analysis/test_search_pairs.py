"""Bias that shows only when two other inputs hold at once, one of them itself protected: a
reference that differs by sex for one kind of measurement past an age. The search tries
pairs that include another protected input, not only pairs of the unprotected ones."""

from __future__ import annotations

import time

from analysis_kit import model_of, verdict

from analysis.execution import Limits, ProcessExecutor, Target
from analysis.search import Search

SOURCE = (
    "GIRTH = 'girth'\n"
    "OTHERS = ('arm', 'leg', 'chest', 'waist')\n"
    "def missing_reference(age, method, sex, unit='cm', scale=1):\n"
    "    if unit not in ('cm', 'mm', 'in') or scale not in (1, 10, 100):\n"
    "        raise ValueError('unknown unit')\n"
    "    if age > 21 or age < 2:\n"
    "        return True, 'none outside 2 to 21'\n"
    "    if method in OTHERS or age in (5, 10, 15) or unit != 'cm' or scale != 1:\n"
    "        return False, 'a usual one'\n"
    "    if method == GIRTH and 18 <= age <= 19 and sex == 'female':\n"
    "        return True, 'none for girls this old'\n"
    "    return False, ''\n"
)


def test_a_sex_that_matters_for_one_method_past_an_age_is_found() -> None:
    report = verdict(SOURCE, "missing_reference")
    assert report.status == "biased", report.reason
    assert "gender" in {f.attribute for f in report.findings}
    (gender,) = [f for f in report.findings if f.attribute == "gender"]
    assert gender.example is not None
    assert gender.example.inputs["method"] == "girth"
    assert 18 <= gender.example.inputs["age"] <= 19


def _search(source: str, qualname: str) -> Search:
    model = model_of(source, qualname)
    target = Target(source=source, filename="case.py", qualname=qualname)
    with ProcessExecutor().open(target, Limits()) as session:
        found = Search(model, session, model.protected, 5000, time.monotonic() + 20)
        found.run()
    return found


def test_pairs_with_another_protected_input_come_only_after_a_proof() -> None:
    clean = "def f(age, sex, plan):\n    return plan == 'gold' and age == age and sex == sex\n"
    assert _search(clean, "f").paired is False  # a clean function does not pay for them
    assert _search(SOURCE, "missing_reference").paired is True
