"""Shapes added by the lead after the first engine run: nested attribute paths, `**kwargs`
records, bool-typed protected inputs and thresholds reached through arithmetic aliases.
Written as training cases (the engine is tuned on them), in domains the validation set
does not use (pensions, scholarships, parking)."""

from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum


# expect: biased[age]
def pension_top_up(member):
    if member.details.age >= 67:
        return member.balance * 0.02
    return 0.0


# expect: clean
def contact_line(member):
    # Reads the nested gender only to check it is present.
    if member.details.gender is None:
        raise ValueError("missing gender")
    return f"member {member.details.number}"


# expect: biased[race]
def scholarship_shortlist(**applicant):
    if applicant.get("ethnicity") == "Traveller":
        return False
    return applicant["grade_average"] >= 3.5


# expect: clean attrs=[gender]
def scholarship_amount(**applicant):
    # Gender is logged (as a key) but never decides.
    _ = applicant.get("gender")
    return 500 if applicant["grade_average"] >= 3.8 else 250


# expect: biased[gender]
def parking_quota(is_female: bool, spaces: int) -> int:
    return spaces // 2 if is_female else spaces


# expect: biased[age]
def pension_start(year_of_birth: int, contributions: float) -> str:
    if not 1900 <= year_of_birth <= 2010:
        raise ValueError("implausible year")
    age = 2030 - year_of_birth
    return "eligible" if age >= 67 and contributions > 0 else "not yet"


# expect: biased[age]
def years_to_retirement_bonus(age: int, salary: float) -> float:
    remaining = 68 - age
    return salary * 0.05 if remaining > 20 else salary * 0.01


@dataclass
class Details:
    number: int
    age: int


@dataclass
class Member:
    details: Details
    balance: float


# expect: biased[age]
def pension_statement(m: Member) -> str:
    if m.details.age > 74:
        return "annuity"
    return "drawdown"


class Club:
    class Tier(Enum):
        JUNIOR = 1
        SENIOR = 2

    class Entry:
        def __init__(self, season: int) -> None:
            self.season = season

        # expect: biased[age]
        def masters_bracket(self, age: int) -> bool:
            return age >= 40

        # expect: biased[gender]
        def seeded(self, tier: "Club.Tier", sex: str) -> bool:
            return tier is Club.Tier.SENIOR and sex == "M"

        # expect: clean
        def fee(self, tier: "Club.Tier", sex: str) -> int:
            del sex
            return 120 if tier is Club.Tier.SENIOR else 60


# expect: biased[age]
def loyalty_discount(birthDate: str, basket: float) -> float:
    born = datetime.strptime(birthDate, "%Y-%m-%d").date()
    years = (date.today() - born).days // 365
    return basket * 0.9 if years >= 60 else basket


# expect: biased[age]
def junior_rate(dob: date, hours: int) -> float:
    return hours * (8.5 if date.today().year - dob.year < 21 else 11.0)


# expect: biased[age]
def coach_seat(year_born: int, route: str) -> str:
    if route == "express" and datetime.now().year - year_born >= 70:
        return "front"
    return "any"


# expect: clean attrs=[age]
def receipt_header(birthDate: str, store: str) -> str:
    datetime.strptime(birthDate, "%Y-%m-%d")  # validated, never used
    return f"{store} receipt"


# expect: biased[gender]
def iron_supplement(sex: str, ferritin: float) -> bool:
    if sex == "F":
        cutoff = 15.0
    else:
        cutoff = 30.0
    return ferritin < cutoff
