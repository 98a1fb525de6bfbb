"""Lending: the applicant reached through accessors and typed values: .get with defaults,
getattr, mappings, bool flags, birth dates, Enum/IntEnum members, Literal, pydantic, attrs."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from enum import Enum, IntEnum
from typing import Any, Literal

import attrs
from pydantic import BaseModel


class Gender(Enum):
    MALE = "male"
    FEMALE = "female"
    NON_BINARY = "non-binary"


class CensusRace(IntEnum):
    WHITE = 1
    BLACK = 2
    AMERICAN_INDIAN = 3
    ASIAN = 6


class LoanApplicant(BaseModel):
    applicant_id: str
    age: int
    income: float
    zip_code: str
    loan_amount: float


@attrs.define
class Borrower:
    name: str
    occupation: str
    income: float
    collateral_value: float


# expect: biased[marital_status]
def base_rate(customer: dict) -> float:
    status = customer.get("marital_status", "single")
    rate = 6.5
    if status == "married":
        rate -= 0.25
    return rate


# expect: biased[gender]
def card_limit(customer: dict) -> int:
    limit = 5000 if customer["income"] > 40000 else 2000
    if customer.get("gender", "unknown") == "female":
        limit = int(limit * 0.8)
    return limit


# expect: biased[age]
def max_term_months(applicant: Any) -> int:
    age = getattr(applicant, "age", None)
    if age is not None and age > 62:
        return 120
    return 360


# expect: biased[race]
def manual_review(row: Mapping[str, Any]) -> bool:
    return row["ethnicity"] != "white" and row["loan_amount"] > 100_000


# expect: biased[gender]
def rate_adjustment(is_female: bool, credit_score: int) -> float:
    adjustment = -0.5 if credit_score > 740 else 0.0
    if is_female:
        adjustment += 0.25
    return adjustment


# expect: biased[race]
def needs_cosigner(isBlack: bool, income: float) -> bool:
    return income < 30000 or isBlack


# expect: biased[age]
def mortgage_term_cap(dob: date, requested_years: int) -> int:
    age = (date.today() - dob).days // 365
    return min(requested_years, max(0, 75 - age))


# expect: biased[age]
def youth_account(date_of_birth: datetime) -> str:
    if datetime.now().year - date_of_birth.year < 25:
        return "student-checking"
    return "standard-checking"


# expect: biased[gender]
def insurance_bundle_price(gender: Gender, loan_amount: float) -> float:
    rate = 0.004 if gender is Gender.FEMALE else 0.006
    return round(loan_amount * rate, 2)


# expect: biased[race]
def outreach_segment(race: CensusRace, balance: float) -> str:
    if race == CensusRace.WHITE and balance > 10000:
        return "premier"
    return "standard"


# expect: biased[gender]
def starter_limit(sex: Literal["M", "F"], income: float) -> float:
    factor = 0.25 if sex == "M" else 0.2
    return round(income * factor, 2)


# expect: biased[region]
def approve(app: LoanApplicant) -> bool:
    if app.zip_code.startswith(("606", "482")):
        return False
    return app.loan_amount < app.income * 4


# expect: biased[occupation]
def collateral_required(borrower: Borrower) -> float:
    ratio = 0.5 if borrower.occupation in ("driver", "cashier", "labourer") else 0.2
    return round(borrower.collateral_value * ratio, 2)


# expect: biased[marital_status]
def marital_note(customer: dict) -> str:
    return "joint account" if customer.get("marital_status") == "married" else "single account"


# expect: clean
def statement_header(app: LoanApplicant) -> dict:
    return {"id": app.applicant_id, "zip": app.zip_code, "amount": app.loan_amount}
