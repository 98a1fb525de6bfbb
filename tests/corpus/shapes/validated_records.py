"""Records that validate or convert what they are given before deciding anything: a growth
chart's child whose dates arrive as text and whose sex becomes an enum member, a tax
calculator's class of taxpayers named by the words it compares, an insurer's `kind`. And
their lookalikes: a plug's kind, a file's mode, the days between two dates kept."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum


class Sex(Enum):
    MALE = "male"
    FEMALE = "female"


class Child:
    def __init__(self, sex: str, birth_date: str, measured_on: str) -> None:
        self.sex = Sex(sex)
        self.birth = datetime.strptime(birth_date, "%Y-%m-%d").date()
        self.measured = date.fromisoformat(measured_on)
        if self.measured < self.birth:
            raise ValueError("measured before birth")

    # expect: biased[gender]
    def overweight_cutoff(self) -> float:
        return 18.0 if self.sex is Sex.MALE else 17.2

    # expect: clean
    def age_in_days(self) -> int:
        return (self.measured - self.birth).days

    # expect: biased[age]
    def needs_vaccine(self) -> bool:
        return (self.measured - self.birth).days < 365


# expect: biased[gender]
def dose_per_kg(child: Child, weight_kg: float) -> float:
    return round(weight_kg * child.overweight_cutoff() / 70, 2)


# expect: biased[age]
def exemption_limit(income: float, taxpayer_category: str = "individual") -> float:
    if taxpayer_category == "senior_citizen":
        return 300000.0
    if taxpayer_category == "super_senior_citizen":
        return 500000.0
    return 250000.0


# expect: biased[gender]
def quote(base: float, kind: str) -> float:
    return base * (0.9 if kind == "female" else 1.0)


# expect: skipped
def file_name(path: str, mode: str) -> str:
    return path + (".csv" if mode == "table" else ".txt")


@dataclass
class Visit:
    sex: str
    visited_on: str

    def __post_init__(self) -> None:
        if self.sex not in ("male", "female"):
            raise ValueError(f"unknown sex {self.sex!r}")
        date.fromisoformat(self.visited_on)


# expect: biased[gender]
def follow_up_weeks(visit: Visit) -> int:
    return 6 if visit.sex == "female" else 8
