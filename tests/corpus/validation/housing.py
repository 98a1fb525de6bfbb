"""Tenancy and housing: **kwargs records, TypedDicts, nested lookups, lists of people."""

from typing import TypedDict

DEPOSIT_MONTHS = {"studio": 1, "house": 2}
AREA_FACTORS = {
    "harbour": {"gold": 1.4, "basic": 1.1},
    "hills": {"gold": 1.2, "basic": 1.0},
}
PROVINCE_TAX = {"Ontario": 0.13, "Alberta": 0.05}
FLAGGED = {"Black"}


class Tenant(TypedDict):
    name: str
    age: int
    ethnicity: str
    monthly_income: float


# expect: biased[race]
def tenancy_score(**tenant):
    points = tenant.get("monthly_income", 0) / 100
    if tenant.get("ethnicity") in ("Black", "Hispanic"):
        points -= 5
    return points


# expect: biased[age]
def screen_tenant(t: Tenant) -> bool:
    return t["monthly_income"] >= 2000 and not (t["age"] < 23)


# expect: clean
def tenant_label(t: Tenant) -> str:
    if not t["ethnicity"]:
        raise ValueError("ethnicity missing from the form")
    return f"{t['name']} earns {t['monthly_income']:.0f}"


# expect: biased[region]
def rent_factor(neighbourhood, tier="basic"):
    return AREA_FACTORS.get(neighbourhood, {}).get(tier, 1.0)


# expect: biased[region]
def provincial_tax(province):
    try:
        return PROVINCE_TAX[province]
    except KeyError:
        return 0.0


# expect: biased[gender]
def lease_letter(tenant_name, pronoun):
    salutation = "Mr" if pronoun == "he" else "Ms"
    return f"Dear {salutation} {tenant_name}"


# expect: clean attrs=[age]
def deposit(kind, age):
    if (months := DEPOSIT_MONTHS.get(kind)) is None:
        raise KeyError(kind)
    return months * 1000


# expect: biased[age]
def household_seniors(members):
    # A list of people: the age of any one of them changes the count.
    return sum(1 for m in members if m["age"] >= 65)


# expect: biased[race]
def background_flag(history, race):
    late = [h for h in history if h.startswith("late")]
    return any(late) or (race in FLAGGED and len(history) > 2)
