"""University admissions over cohorts: NamedTuples, heapq, itertools.groupby, operator
accessors, any()/all() rules over the whole group, generator expressions."""

from __future__ import annotations

import heapq
import itertools
from operator import attrgetter, itemgetter
from typing import NamedTuple


class Applicant(NamedTuple):
    ref: str
    gpa: float
    sex: str
    school_type: str
    home_state: str
    prior_degree: str


# expect: biased[gender]
def last_offer(cohort: tuple[Applicant, ...]) -> str:
    waitlisted = [a for a in cohort if a.gpa >= 3.0]
    if waitlisted and waitlisted[-1].sex == "F":
        return "offer-engineering-bridge"
    return "offer-standard"


# expect: biased[region]
def top_offers(applicants: list[dict], seats: int = 2) -> list[str]:
    def merit(a: dict) -> float:
        bonus = 0.3 if a["home_state"] == "VT" else 0.0
        return a["gpa"] + bonus

    return [a["ref"] for a in heapq.nlargest(seats, applicants, key=merit)]


# expect: clean
def seats_by_school(cohort: list[Applicant]) -> dict[str, int]:
    ordered = sorted(cohort, key=attrgetter("school_type"))
    return {k: len(list(g)) for k, g in itertools.groupby(ordered, key=attrgetter("school_type"))}


# expect: biased[education]
def transfer_credits(cohort: list[Applicant]) -> dict[str, int]:
    return {a.ref: 30 if a.prior_degree == "associate" else 0 for a in cohort}


# expect: biased[race]
def interview_order(applicants: list[dict]) -> list[str]:
    ordered = sorted(applicants, key=itemgetter("race", "ref"))
    return [a["ref"] for a in ordered]


# expect: biased[gender]
def scholarship_panel_ok(reviewers: list[dict]) -> bool:
    return any(r["sex"] == "F" for r in reviewers) and len(reviewers) >= 3
