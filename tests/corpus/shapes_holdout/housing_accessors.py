"""Tenant screening through accessors and typed values, spelled differently: .get with a
default, vars(), a birth date with the month/day correction, an IntEnum, Literal strings, a
bool flag, an old-style attrs class and a pydantic model with Field."""

from __future__ import annotations

from datetime import date
from enum import IntEnum
from typing import Literal

import attr
from pydantic import BaseModel, Field


class Ethnicity(IntEnum):
    HISPANIC = 1
    NOT_HISPANIC = 2


@attr.s(auto_attribs=True)
class Tenant:
    name: str
    age: int
    job_title: str
    monthly_income: float


class RentalApplication(BaseModel):
    unit: str
    rent: float = Field(gt=0)
    applicant_race: str
    household_size: int = 1


# expect: biased[gender]
def deposit_months(tenant: dict) -> int:
    months = 1 if tenant["credit_score"] >= 700 else 2
    if tenant.get("sex", "M") != "M":
        months += 1
    return months


# expect: biased[religion]
def pet_deposit(tenant: dict) -> int:
    return 300 if tenant.get("religion", "none") == "none" and tenant.get("pets", 0) else 0


# expect: biased[age]
def lease_length(tenant: object) -> int:
    fields = vars(tenant)
    return 6 if fields["age"] < 23 else 12


# expect: biased[age]
def senior_unit_eligible(birth_date: date, on: date) -> bool:
    years = on.year - birth_date.year - ((on.month, on.day) < (birth_date.month, birth_date.day))
    return years >= 62


# expect: biased[race]
def outreach_language(ethnicity: Ethnicity) -> str:
    return "es" if ethnicity is Ethnicity.HISPANIC else "en"


# expect: biased[gender]
def roommate_match(gender: Literal["female", "male", "nonbinary"], budget: int) -> str:
    if gender == "female":
        return "women-only-listing"
    return "general-listing" if budget > 900 else "shared-listing"


# expect: biased[gender]
def guarantor_needed(is_male: bool, monthly_income: float, rent: float) -> bool:
    return monthly_income < rent * 3 or not is_male


# expect: biased[occupation]
def income_multiple(tenant: Tenant) -> float:
    if tenant.job_title.lower() in ("bartender", "freelancer", "artist"):
        return 3.5
    return 2.5


# expect: biased[race]
def application_fee(app: RentalApplication) -> float:
    return 75.0 if app.applicant_race in ("black", "hispanic") else 40.0
