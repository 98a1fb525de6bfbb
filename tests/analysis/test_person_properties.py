"""A person's class works out some of what it says: `age` as a property of the birth date,
`is_senior` cached from the age, a pydantic field given by its alias. A function reading
`person.age` reads the birth date through the property (analysis/inputs/builder.py
`of_class`); a cached property is run by the method it keeps; a pydantic model whose field
has an alias is built by the alias (analysis/execution/harness/runner.py `by_alias`)."""

from __future__ import annotations

from analysis_kit import verdict

PERSON = """\
from dataclasses import dataclass
from datetime import date
from functools import cached_property


@dataclass
class Person:
    name: str
    birth_date: date
    gender: str

    @property
    def age(self) -> int:
        return (date(2025, 1, 1) - self.birth_date).days // 365

    @property
    def is_female(self) -> bool:
        return self.gender.lower() == "female"

    @cached_property
    def is_senior(self) -> bool:
        return self.age >= 65


def premium(p: Person) -> float:
    return 200.0 if p.age > 60 else 100.0


def discount(p: Person) -> float:
    return 0.1 if p.is_female else 0.0


def greeting(p: Person) -> str:
    return "Hello " + p.name
"""


def test_a_property_worked_out_from_the_birth_date_is_the_age_of_its_function() -> None:
    report = verdict(PERSON, "premium")
    assert report.status == "biased", report.reason
    assert report.biased_attributes == ["age"]


def test_a_flag_property_of_the_sex_is_the_sex() -> None:
    report = verdict(PERSON, "discount")
    assert report.status == "biased", report.reason
    assert report.biased_attributes == ["gender"]


def test_a_function_reading_no_property_of_a_person_stays_clean() -> None:
    report = verdict(PERSON, "greeting")
    assert report.status in ("clean", "skipped"), report.reason
    assert not report.findings


def test_a_cached_property_is_run_by_the_method_it_keeps() -> None:
    report = verdict(PERSON, "Person.is_senior")
    assert report.status == "biased", report.reason
    assert report.biased_attributes == ["age"]


ALIASED = """\
from pydantic import BaseModel, Field


class Request(BaseModel):
    gross: float
    employee_age: int = Field(alias="employeeAge")


def relief(r: Request) -> float:
    return r.gross * (0.1 if r.employee_age > 60 else 0.2)
"""


def test_a_pydantic_model_whose_field_has_an_alias_is_built_by_the_alias() -> None:
    report = verdict(ALIASED, "relief")
    assert report.status == "biased", report.reason
    assert report.biased_attributes == ["age"]
