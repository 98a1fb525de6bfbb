"""Tenant screening for a property manager: affordability, risk and history."""

import os
import sqlite3
from typing import TypedDict


class TenantApplication(TypedDict):
    name: str
    monthly_income: float
    rent: float
    evictions: int
    age: int
    race: str
    zip_code: str


MIN_INCOME_MULTIPLE = 3.0


# expect: skipped
def rent_to_income(rent: float, monthly_income: float) -> float:
    if monthly_income <= 0:
        return float("inf")
    return round(rent / monthly_income, 3)


# expect: biased[age]
def _household_risk(applicant: TenantApplication) -> int:
    risk = applicant["evictions"] * 3
    if applicant["age"] < 25 or applicant["age"] > 75:
        risk += 2
    return risk


# expect: biased[age]
def screen(applicant: TenantApplication) -> str:
    if applicant["monthly_income"] < MIN_INCOME_MULTIPLE * applicant["rent"]:
        return "declined: income"
    if _household_risk(applicant) >= 4:
        return "declined: risk"
    return "approved"


# expect: clean
def tenant_summary(applicant: TenantApplication) -> str:
    return f"{applicant['name']} (zip {applicant['zip_code']}), rent {applicant['rent']:.0f}"


# expect: clean attrs=[race]
def deposit_months(evictions: int, race: str) -> int:
    # race is recorded for fair-housing reporting; both branches are deliberately identical
    if race == "White":
        months = 2 if evictions else 1
    else:
        months = 2 if evictions else 1
    return months


class TenantHistory:
    """Payment history from the landlord network's shared database."""

    def __init__(self) -> None:
        self.conn = sqlite3.connect(os.environ["TENANT_HISTORY_DB"])

    # expect: unverified[region]
    def eligible(self, applicant_id: int, zip_code: str) -> bool:
        row = self.conn.execute(
            "SELECT late_payments FROM history WHERE applicant_id = ?", (applicant_id,)
        ).fetchone()
        late = row[0] if row else 0
        if zip_code.startswith("10"):
            return late == 0
        return late <= 2

    # expect: skipped
    def late_payments(self, applicant_id: int) -> int:
        row = self.conn.execute(
            "SELECT late_payments FROM history WHERE applicant_id = ?", (applicant_id,)
        ).fetchone()
        return row[0] if row else 0
