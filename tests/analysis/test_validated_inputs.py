"""Inputs that code validates or converts before it decides anything: text parsed as a date
(`date.fromisoformat`, `datetime.strptime(s, "%d/%m/%Y")`) gets days written that way; a raw
value turned into an enum's member (`Sex(sex)`) gets the enum's values; a comparison with
one member (`self.sex is Sex.MALE`) tries every member; a birth date is tried as a baby's
too; a parameter annotated with a plain class of the project (`child: Child`), or whose
methods only one class of the module has (`holder.loading()`), is built through its
constructor, as a method's instance is, when the person sits in it. Two dates subtracted
(`(seen - born).days`) are dates; what a function passes to a class of its module takes what
the class's constructor knows of its parameters. Each made-up call used to raise (or compare
nothing), and the function ended `unverified` or clean."""

from __future__ import annotations

import datetime
import textwrap
from pathlib import Path

import pytest
from analysis_kit import leaf, model_of, pools, scan_in_package, verdict, write_package

from analysis.shapes import ObjectShape
from analysis.values import DateValue, EnumMember

CHILD = textwrap.dedent("""\
    from datetime import date, datetime
    from enum import Enum


    class Sex(Enum):
        MALE = "male"
        FEMALE = "female"


    class Child:
        def __init__(self, sex, birth_date, measurement_date):
            self.sex = Sex(sex)
            self.birth = datetime.strptime(birth_date, "%Y-%m-%d").date()
            self.measured = date.fromisoformat(measurement_date)
            if self.measured < self.birth:
                raise ValueError("measured before birth")

        def bmi_cutoff(self):
            return 18.0 if self.sex is Sex.MALE else 17.2

        def age_days(self):
            return (self.measured - self.birth).days


    def target_bmi(child: Child, weight_kg: float):
        return round(weight_kg / 70 * child.bmi_cutoff(), 2)


    def born_on(day_of_birth):
        return datetime.strptime(day_of_birth, "%d/%m/%Y").year
""")


def test_text_parsed_as_a_date_is_tried_as_a_date_in_the_form_parsed() -> None:
    before = datetime.date.today()
    measured = pools(model_of(CHILD, "Child.__init__"))["measurement_date"]
    born_on = leaf(model_of(CHILD, "born_on"), "day_of_birth").pool
    days = {before, datetime.date.today()}  # the day the pools were made, past midnight too
    assert measured in [[day.isoformat()] for day in days]  # not 1, 5, "yes": each would raise
    assert any(day.strftime("%d/%m/%Y") in born_on for day in days)


def test_the_day_tried_is_the_day_of_the_scan_not_of_the_worker_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker runs for days: a date pool made at import would go stale after midnight."""

    class NewYear(datetime.date):
        @classmethod
        def today(cls) -> datetime.date:
            return datetime.date(2031, 1, 1)

    monkeypatch.setattr(datetime, "date", NewYear)
    measured = pools(model_of(CHILD, "Child.__init__"))["measurement_date"]
    assert measured == ["2031-01-01"]


def test_a_value_made_an_enum_member_gets_the_enum_values_and_a_member_all_its_siblings() -> None:
    assert {"male", "female"} <= set(pools(model_of(CHILD, "Child.__init__"))["sex"])
    held = pools(model_of(CHILD, "Child.bmi_cutoff"))["self.sex"]
    assert {EnumMember("Sex", "MALE"), EnumMember("Sex", "FEMALE")} <= set(held)


def test_a_validating_class_is_proved_through_its_methods_and_where_it_is_passed(
    tmp_path: Path,
) -> None:
    root = write_package(tmp_path, {"growth/__init__.py": "", "growth/child.py": CHILD})
    cutoff = scan_in_package(root, "growth/child.py", "Child.bmi_cutoff")
    assert cutoff.status == "biased" and {f.attribute for f in cutoff.findings} == {"gender"}
    status = scan_in_package(root, "growth/child.py", "target_bmi")
    assert status.status == "biased", (status.status, status.reason)
    # The days between two dates it keeps: its age in another form, not a decision.
    days = scan_in_package(root, "growth/child.py", "Child.age_days")
    assert days.status == "clean", (days.status, days.reason, days.findings)


def test_a_birth_date_is_tried_as_a_babys_too() -> None:
    """Whole years of age miss `(measured - born).days < 365`: a birth 100 days ago."""
    born = (datetime.date.today() - datetime.timedelta(days=100)).isoformat()
    assert born in pools(model_of(CHILD, "Child.__init__"))["birth_date"]


HOLDER = textwrap.dedent("""\
    class Policyholder:
        def __init__(self, age, smoker):
            self.age = int(age)
            self.smoker = bool(smoker)

        def loading(self):
            return 1.5 if self.age >= 65 else 1.0


    class Table:
        def __init__(self, rows):
            self.rows = rows

        def lookup(self, key):
            return self.rows.get(key)


    def monthly_premium(holder, base):
        return round(base * holder.loading(), 2)


    def yearly_premium(holder: "Policyholder", base: float):
        return round(base * 12 * holder.loading(), 2)


    def rate(table, key):
        return table.lookup(key)
""")


def test_a_parameter_whose_methods_only_one_class_has_is_an_instance_of_it() -> None:
    model = model_of(HOLDER, "monthly_premium")
    holder = next(p for p in model.params if p.name == "holder")
    assert isinstance(holder.shape, ObjectShape) and holder.shape.cls == "Policyholder"
    annotated = next(p for p in model_of(HOLDER, "yearly_premium").params if p.name == "holder")
    assert isinstance(annotated.shape, ObjectShape) and annotated.shape.cls == "Policyholder"
    # A table holds no person: left to what the project's own runs pass (borrowed inputs).
    table = next(p for p in model_of(HOLDER, "rate").params if p.name == "table")
    assert not isinstance(table.shape, ObjectShape)


def test_an_instance_made_through_its_constructor_is_proved_biased() -> None:
    for name in ("monthly_premium", "yearly_premium"):
        report = verdict(HOLDER, name)
        assert report.status == "biased", (name, report.status, report.reason)
        assert {f.attribute for f in report.findings} == {"age"}


VISIT = textwrap.dedent("""\
    class Visit:
        def __init__(self, sex, birth_date, observation_date):
            if sex not in ("male", "female"):
                raise ValueError("unknown sex")
            if observation_date < birth_date:
                raise ValueError("observed before birth")
            self.sex = sex
            self.age_in_days = (observation_date - birth_date).days


    def follow_up_weeks(gender, born, seen):
        visit = Visit(gender, born, seen)
        return 6 if visit.sex == "female" else 8


    def days_between(first, last):
        return (last - first).days
""")


def test_dates_subtracted_are_dates_and_a_constructor_s_parameters_reach_its_callers() -> None:
    assert all(isinstance(d, DateValue) for d in pools(model_of(VISIT, "days_between"))["last"])
    model = model_of(VISIT, "follow_up_weeks")
    assert all(isinstance(d, DateValue) for d in leaf(model, "seen").pool)
    assert {"male", "female"} <= set(leaf(model, "gender").pool)
    # Every made-up call used to raise (`'<' not supported between 'int' and 'str'`).
    assert [f.attribute for f in verdict(VISIT, "follow_up_weeks").findings] == ["gender"]


ATHLETE = textwrap.dedent("""\
    import datetime
    from dataclasses import dataclass


    @dataclass
    class Athlete:
        dob: str

        def get_age(self):
            dob = datetime.datetime.strptime(self.dob, "%Y-%m-%d").date()
            return int((datetime.date.today() - dob).days / 365.2425)

        def hr_max(self):
            return 205.8 - 0.685 * self.get_age()
""")


def test_a_local_made_a_date_leaves_the_input_of_its_name_text() -> None:
    # `dob = strptime(self.dob, ...)` then `(today - dob).days`: the local is a date, the
    # field `dob` stays text (made a date, every call raised and the bias went unseen).
    assert all(
        isinstance(d, str) for d in leaf(model_of(ATHLETE, "Athlete.hr_max"), "self.dob").pool
    )
    assert [f.attribute for f in verdict(ATHLETE, "Athlete.hr_max").findings] == ["age"]


MEASURED = textwrap.dedent("""\
    BOYS = {m: 3.3 + 0.6 * m for m in range(0, 61)}
    GIRLS = {m: 3.2 + 0.55 * m for m in range(0, 61)}


    class Child:
        def __init__(self, sex, age_months, weight=None, height=None):
            if weight is None and height is None:
                raise ValueError("a weight or a height is needed")
            self.sex = sex
            self.age_months = age_months
            self.weight = weight
            self.height = height

        def weight_for_age(self):
            reference = BOYS if self.sex == "M" else GIRLS
            return round((self.weight - reference[self.age_months]) / 1.5, 3)
""")


def test_a_constructor_s_optional_parameters_it_checks_before_raising_are_inputs() -> None:
    # Left to their defaults (None and None), the constructor refused every made-up child.
    model = model_of(MEASURED, "Child.weight_for_age")
    assert {"self.weight", "self.height"} <= {leaf.display for leaf in model.leaves}
    assert {f.attribute for f in verdict(MEASURED, "Child.weight_for_age").findings} == {
        "age", "gender",
    }  # fmt: skip
