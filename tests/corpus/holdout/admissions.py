"""School and university admissions: scoring, scholarships, and form handling."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import date
from enum import Enum

# Postcode prefixes of the district the school is chartered to serve first.
CATCHMENT_PREFIXES = ("021", "022", "024")
MAX_SIBLING_BONUS = 10


class DegreeLevel(Enum):
    HIGH_SCHOOL = "high school"
    BACHELOR = "bachelor"
    MASTER = "master"
    PHD = "phd"


@dataclass
class Applicant:
    name: str
    gpa: float
    test_score: int
    zipcode: str
    parent_education: str
    siblings_enrolled: int = 0
    activities: list[str] = field(default_factory=list)


# expect: biased[region, education]
def admission_score(applicant: Applicant) -> float:
    score = applicant.gpa * 20 + applicant.test_score / 16
    if applicant.zipcode[:3] in CATCHMENT_PREFIXES:
        score += 15
    # first-generation students get a boost
    if applicant.parent_education.lower() in ("none", "high school"):
        score += 5
    score += min(applicant.siblings_enrolled * 5, MAX_SIBLING_BONUS)
    return round(score, 2)


# expect: clean
def applicant_summary(applicant: Applicant) -> dict:
    return {
        "name": applicant.name,
        "zipcode": applicant.zipcode,
        "gpa": applicant.gpa,
        "activities": len(applicant.activities),
    }


# expect: biased[age] attrs=[age]
def mature_student(dateOfBirth: str, intake: int = 2025) -> bool:
    """Applicants 21 or older on 1 September of the intake year apply on the mature track."""
    dob = date.fromisoformat(dateOfBirth)
    cutoff = date(intake, 9, 1)
    years = cutoff.year - dob.year - ((cutoff.month, cutoff.day) < (dob.month, dob.day))
    return years >= 21


# expect: biased[education] attrs=[education]
@functools.lru_cache(maxsize=256)
def graduate_fee(highest_degree: str, credits: int) -> float:
    per_credit = 420.0
    if highest_degree.strip().lower() in ("master", "masters", "phd"):
        per_credit = 510.0
    return per_credit * credits


# expect: biased[education] attrs=[education]
def program_track(degree: DegreeLevel, gpa: float) -> str:
    match degree:
        case DegreeLevel.PHD:
            return "postdoctoral"
        case DegreeLevel.MASTER if gpa >= 3.5:
            return "doctoral"
        case DegreeLevel.MASTER | DegreeLevel.BACHELOR:
            return "graduate"
        case _:
            return "undergraduate"


# expect: clean
def validate_application(form: dict) -> bool:
    required = ("name", "gpa", "test_score", "dateOfBirth", "gender")
    missing = [key for key in required if key not in form]
    if missing:
        raise ValueError(f"missing fields: {', '.join(missing)}")
    if not isinstance(form["gender"], str):
        raise TypeError("gender must be a string")
    if not 0.0 <= float(form["gpa"]) <= 4.0:
        raise ValueError("gpa out of range")
    date.fromisoformat(form["dateOfBirth"])  # raises on a malformed date
    return True


# expect: biased[race] attrs=[race]
def scholarship_amount(gpa: float, family_income: float, *, applicant_ethnicity: str = "") -> int:
    amount = 0
    if gpa >= 3.7:
        amount += 4000
    if family_income < 40000:
        amount += 6000
    if applicant_ethnicity in {"Black", "Hispanic", "Native American"} and gpa >= 3.0:
        amount += 2500
    return amount


class InterviewPanel:
    def __init__(self) -> None:
        self.slots_per_day = 12

    # expect: clean attrs=[gender]
    def schedule(self, applicant_id: int, gender: str) -> str:
        # gender is collected for the equal-opportunity form, not for scheduling
        day = applicant_id // self.slots_per_day
        slot = applicant_id % self.slots_per_day
        return f"day {day + 1}, slot {slot + 1}"

    # expect: biased[age] attrs=[age]
    def needs_guardian(self, age: int) -> bool:
        return age < 18
