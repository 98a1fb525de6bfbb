"""Lending: credit decisions, key access on dicts, dataclasses, classes that need arguments."""

import random
from dataclasses import dataclass

EDU_BONUS = {"PhD": 30, "Masters": 20, "Bachelors": 10}


@dataclass
class Borrower:
    income: float
    age: int
    ethnicity: str


# expect: biased[age]
def approve_loan(income, credit_score, age):
    if credit_score < 600:
        return False
    if age < 25 or age > 60:
        return False
    return income > 30000


# expect: biased[race]
def interest_rate(credit_score, race):
    rate = 5.0 - (credit_score - 600) / 100
    if race.upper() in {"BLACK", "HISPANIC"}:
        rate += 0.5
    return round(rate, 3)


# expect: biased[region]
def loan_limit(income, zip_code):
    if zip_code.startswith("94"):
        return income * 5
    return income * 4


# expect: biased[gender]
def eligible(applicant: dict):
    limit = applicant["income"] * 3
    if applicant.get("gender") == "F":
        limit *= 0.9
    return limit


# expect: biased[age]
def term_options(age):
    max_years = min(30, 75 - age)
    return list(range(5, max_years + 1, 5))


# expect: biased[education]
def credit_decision(credit_score, highest_degree):
    bonus = EDU_BONUS.get(highest_degree, 0)
    return credit_score + bonus >= 700


class Underwriter:
    MAX_AGE = 70

    # expect: biased[age]
    async def review(self, age, income):
        if age > self.MAX_AGE:
            return "decline"
        return "approve" if income > 20000 else "refer"

    # expect: skipped
    def fee(self, amount):
        return round(amount * 0.01, 2)


class BranchOfficer:
    # Needs constructor arguments. Built from arguments that fit their use, its methods run
    # like any other; the labels are the truth either way.
    def __init__(self, branch_id, limit):
        self.branch_id = branch_id
        self.limit = limit

    # expect: biased[age]
    def decide(self, amount, applicant_age):
        if applicant_age > 65:
            return False
        return amount < self.limit

    # expect: clean attrs=[gender]
    def greeting(self, name, gender):
        return f"Hello {name}, welcome to branch {self.branch_id}"


# expect: clean attrs=[gender]
def repayment_schedule(principal, months, gender):
    return {"gender": gender, "monthly": round(principal / months, 2), "months": months}


# expect: biased[age]
def risk_bucket(debt_ratio, age):
    if debt_ratio > 0.4:
        return "high"
    if 30 <= age <= 50:
        return "low"
    return "medium"


# expect: biased[age, race]
def mortgage_quote(b: Borrower, principal):
    rate = 4.0
    if b.ethnicity != "White":
        rate += 0.25
    if b.age > 62:
        rate += 0.1
    return round(principal * rate / 100, 2)


# expect: clean
def borrower_summary(b: Borrower):
    if b.age < 0:
        raise ValueError("negative age")
    return f"income {b.income:.0f}"


# expect: biased[region]
def affordability(income, expenses, region="urban"):
    if region == "rural":
        expenses *= 0.9
    return income - expenses > 500


# expect: clean attrs=[age]
def random_audit(loan_id, age):
    # Seeded the same on both sides of a pair: not a witness.
    return random.random() < 0.05


# expect: clean attrs=[race]
def audit_sample(loan_ids, race):
    # Its own unseeded generator: every call differs, whatever the race.
    rng = random.Random()
    return {"selected": rng.random() < 0.1, "token": rng.getrandbits(64)}
