"""A class of static helpers, as insurers' and calculators' code is often written: the
premium hands `form["occupation"]` to `Rates._occupation_factor(occ)`, called through the
class, and `form["dob"]` to `Rates._age(dob_str)`, which parses it. What the helper does with
its parameter says what the caller's key holds (analysis/source/functions.py
`called_function`), and what the caller hands the helper says what the helper's parameter
is; a date the helper made of the text is not the input (analysis/facts/harvest.py)."""

from __future__ import annotations

from analysis_kit import leaf, model_of, verdict

RATES = """\
from datetime import date, datetime


class Rates:
    @staticmethod
    def _age(dob_str):
        try:
            dob = datetime.strptime(dob_str, "%Y-%m-%d").date()
        except ValueError:
            return 30
        return 2025 - dob.year

    @staticmethod
    def _occupation_factor(occ):
        return {"Teacher": 1.0, "Driver": 1.3, "Pilot": 1.8}.get(occ, 1.0)

    @classmethod
    def premium(cls, form):
        age = cls._age(form["dob"])
        return 100 * (1.5 if age > 50 else 1.0) * Rates._occupation_factor(form["occupation"])
"""


def test_a_key_handed_to_a_static_helper_takes_the_values_it_looks_up() -> None:
    pool = leaf(model_of(RATES, "Rates.premium"), "form['occupation']").pool
    assert {"Teacher", "Driver", "Pilot"} <= set(pool)


def test_a_date_the_helper_parsed_from_the_text_leaves_the_input_text() -> None:
    pool = leaf(model_of(RATES, "Rates.premium"), "form['dob']").pool
    assert pool and all(isinstance(v, str) for v in pool), pool


def test_the_premium_is_proved_biased_through_its_helpers() -> None:
    report = verdict(RATES, "Rates.premium")
    assert report.status == "biased", report.reason
    assert set(report.biased_attributes) == {"age", "occupation"}


def test_the_helper_s_parameter_is_the_occupation_its_caller_hands_it() -> None:
    report = verdict(RATES, "Rates._occupation_factor")
    assert report.status == "biased", report.reason
    assert report.biased_attributes == ["occupation"]


ONE_VALUE = """\
def driver_factor(kind):
    return {"driver": 1.3, "printer": 1.0}.get(kind, 1.0)
"""


def test_one_value_of_a_category_alone_names_nothing() -> None:
    # a device driver: one occupation's word among things is no occupation
    assert verdict(ONE_VALUE, "driver_factor").status == "skipped"
