"""Hiring: applicants arrive as collections (lists of dicts, tuples of dataclasses, sets,
dicts keyed by id), and the rules iterate, index, filter, sort, aggregate and group them."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass


@dataclass
class Candidate:
    name: str
    age: int
    gender: str
    occupation: str
    score: float


@dataclass(frozen=True)
class Employee:
    employee_id: str
    age: int
    department: str


# expect: biased[age]
def shortlist(applicants: list[dict], size: int = 3) -> list[str]:
    """Top applicants by test score; 'energy' adjustment for older applicants."""

    def adjusted(applicant: dict) -> float:
        score = applicant["test_score"]
        if applicant["age"] > 50:
            score -= 10
        return score

    ranked = sorted(applicants, key=adjusted, reverse=True)
    return [a["name"] for a in ranked[:size]]


# expect: biased[age]
def first_in_queue_ok(applicants: list[dict]) -> bool:
    head = applicants[0]
    return head["years_experience"] >= 3 and head["age"] < 45


# expect: biased[gender]
def interview_pool(applicants: list[dict]) -> list[str]:
    return [a["name"] for a in applicants if a["gender"] != "female" and a["test_score"] >= 60]


# expect: biased[gender]
def rank_for_callback(candidates: list[dict]) -> list[str]:
    ordered = sorted(candidates, key=lambda a: a["gender"] == "male", reverse=True)
    return [c["name"] for c in ordered]


# expect: clean
def experienced(applicants: list[dict]) -> list[str]:
    keep = filter(lambda a: a["years_experience"] > 5, applicants)
    return [a["name"] for a in keep]


# expect: biased[race]
def best_candidate(candidates: list[dict]) -> str:
    best = max(candidates, key=lambda c: c["score"] + (5 if c["race"] == "white" else 0))
    return best["name"]


# expect: biased[gender]
def panel_needs_review(panel: list[dict]) -> bool:
    """A hiring panel must not be all one gender."""
    return len({member["gender"] for member in panel}) < 2


# expect: biased[age]
def eligible_stream(applicants: list[dict]) -> Iterator[str]:
    for applicant in applicants:
        if applicant["age"] <= 40 and applicant["test_score"] >= 50:
            yield applicant["id"]


# expect: biased[education]
async def screen_graduates(applicants: list[dict]) -> AsyncIterator[dict]:
    for applicant in applicants:
        passed = applicant["highest_degree"] in ("MSc", "PhD")
        yield {"id": applicant["id"], "passed": passed}


# expect: biased[occupation]
def team_lead(candidates: tuple[Candidate, ...]) -> str | None:
    for candidate in candidates:
        if candidate.occupation in ("engineer", "manager") and candidate.score > 70:
            return candidate.name
    return None


# expect: biased[age]
def count_near_retirement(staff: set[Employee]) -> int:
    return sum(1 for e in staff if e.age >= 60)


# expect: biased[gender]
def signing_bonus(offers: dict[str, dict]) -> dict[str, int]:
    return {
        employee_id: 5000 if offer["gender"] == "male" else 3500
        for employee_id, offer in offers.items()
    }


# expect: biased[age]
def promotion_picks(employees: list[dict]) -> dict[str, str]:
    """One promotion per department: the most senior by age wins ties on rating."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for employee in employees:
        groups[employee["department"]].append(employee)
    return {
        dept: max(members, key=lambda e: (e["rating"], e["age"]))["id"]
        for dept, members in groups.items()
    }


# expect: clean
def mean_score(candidates: list[Candidate]) -> float:
    return round(statistics.mean(c.score for c in candidates), 2)


# expect: clean
def interview_rota(candidates: list[Candidate], interviewers: list[str]) -> dict[str, str]:
    return {c.name: interviewers[i % len(interviewers)] for i, c in enumerate(candidates)}
