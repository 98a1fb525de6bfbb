"""A constructor is judged by the object it sets up: the instance it is given starts empty, its
own parameters are the inputs, and what it ends as is the output."""

from __future__ import annotations

from analysis_kit import model_of, verdict

SOURCE = (
    "from decimal import Decimal\n"
    "class Visit:\n"
    "    def __init__(self, age_in_months, sex, note=''):\n"
    "        self.age = Decimal(age_in_months)\n"
    "        self.sex = sex.upper()\n"
    "        self.note = note\n"
    "class Premium:\n"
    "    def __init__(self, age, base):\n"
    "        self.age = age\n"
    "        self.amount = base * (2 if age > 60 else 1)\n"
)


def test_a_constructor_s_inputs_are_its_own_parameters_only() -> None:
    model = model_of(SOURCE, "Visit.__init__")
    assert sorted(leaf.display for leaf in model.leaves) == ["age_in_months", "note", "sex"]


def test_a_constructor_that_only_keeps_its_inputs_is_clean() -> None:
    report = verdict(SOURCE, "Visit.__init__")
    assert report.status == "clean", (report.findings, report.reason)


def test_a_constructor_that_sets_a_price_by_age_is_biased() -> None:
    report = verdict(SOURCE, "Premium.__init__")
    assert report.status == "biased", report.reason
    assert [f.attribute for f in report.findings] == ["age"]
