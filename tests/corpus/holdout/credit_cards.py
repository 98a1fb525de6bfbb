"""Credit card decisions: limits, pricing and application checks."""

from __future__ import annotations

from pydantic import BaseModel

RED_PREFIXES = {"606", "482", "191"}
BASE_APR = 19.9


class CardApplication(BaseModel):
    applicant_id: int
    income: float
    credit_score: int
    occupation: str
    age: int
    zipcode: str
    existing_debt: float = 0.0


# expect: biased[age]
def credit_limit(app: CardApplication) -> int:
    limit = app.income * 0.3 - app.existing_debt * 0.5
    # the "retirement runway" rule from the 2009 model
    limit -= max(0, app.age - 60) * 150
    return max(500, int(limit // 100 * 100))


# expect: biased[region] attrs=[region]
def apr_offer(credit_score: int, zipcode: str) -> float:
    apr = BASE_APR - (credit_score - 650) / 50
    if zipcode[:3] in RED_PREFIXES:
        apr += 3.0
    return round(min(max(apr, 9.9), 29.9), 1)


# expect: biased[occupation] attrs=[occupation]
def instant_decision(income: float, occupation: str) -> str:
    if income < 20000 and occupation == "student":
        return "decline"
    if income < 15000:
        return "refer"
    return "approve"


# expect: skipped
def minimum_payment(balance: float, rate: float = 0.02) -> float:
    return round(max(25.0, balance * rate), 2) if balance > 0 else 0.0


# expect: clean attrs=[occupation]
def monthly_interest(balance: float, apr: float, occupation: str | None = None) -> float:
    return round(balance * apr / 100 / 12, 2)


# expect: clean
def check_application(app: CardApplication) -> list[str]:
    problems = []
    if app.income < 0:
        problems.append("income must not be negative")
    if not 300 <= app.credit_score <= 850:
        problems.append("credit score out of range")
    if app.age < 0 or app.age > 130:
        raise ValueError("implausible age")
    return problems


class RewardsEngine:
    TIERS = {"teacher": "classic", "nurse": "classic", "doctor": "platinum", "lawyer": "platinum"}

    # expect: biased[occupation] attrs=[occupation]
    @classmethod
    def tier_for(cls, occupation: str, annual_spend: float) -> str:
        if annual_spend > 50000:
            return "platinum"
        return cls.TIERS.get(occupation, "classic")

    # expect: skipped
    @staticmethod
    def points(amount: float, category: str) -> int:
        multiplier = 3 if category in ("travel", "dining") else 1
        return int(amount) * multiplier

    # expect: clean attrs=[age, race]
    @staticmethod
    def welcome_message(first_name: str, age: int, race: str) -> str:
        print(f"new cardholder: age={age} race={race}")
        return f"Welcome aboard, {first_name}!"
