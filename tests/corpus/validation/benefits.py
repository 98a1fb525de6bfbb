"""Public benefits with pydantic models, and a category the default policy leaves off."""

from pydantic import BaseModel

NORTHERN = {"Cumbria", "Northumberland"}


class Claimant(BaseModel):
    name: str
    age: int
    county: str
    occupation: str
    dependants: int = 0


# expect: biased[age]
def pension_credit(c: Claimant) -> float:
    if c.age >= 66:
        return 200.0 + 10 * c.dependants
    return 0.0


# expect: biased[occupation]
def jobseeker_allowance(c: Claimant) -> float:
    if c.occupation != "unemployed":
        return 0.0
    return 85.0 + c.dependants * 5


# expect: clean
def claimant_reference(c: Claimant) -> str:
    if c.age < 0:
        raise ValueError("age cannot be negative")
    return f"{c.name.upper()}-{c.dependants}"


# expect: biased[region]
def winter_fuel(c: Claimant, temperature: float) -> int:
    cold = temperature < 0 or c.county in NORTHERN
    return 50 if cold else 0


# expect: biased[marital_status]
def child_benefit(children, married):
    return children * (20 if married else 25)


# expect: clean attrs=[age]
def housing_support(rent, income, applicant_age):
    gap = max(0.0, rent - income * 0.3)
    return round(gap, 2)
