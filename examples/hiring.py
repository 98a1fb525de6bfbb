"""A small screening module of the kind codebias is meant for: some of it is fair, some is not."""

from __future__ import annotations

from dataclasses import dataclass

MIN_EXPERIENCE = 2
PREFERRED_DEGREES = {"Masters", "PHD"}


@dataclass
class Candidate:
    name: str
    age: int
    gender: str
    years_experience: int
    education: str


def shortlist(candidate: Candidate) -> bool:
    """Biased for age: candidates over 50 are quietly dropped."""
    if candidate.years_experience < MIN_EXPERIENCE:
        return False
    return candidate.age <= 50


def interview_score(applicant: dict) -> float:
    """Biased for gender, through a normalised string comparison."""
    score = applicant["skills_test"] * 0.7 + applicant.get("references", 0) * 0.3
    if applicant["gender"].strip().lower() == "female":
        score -= 5
    return round(score, 2)


def meets_requirements(years_experience: int, has_portfolio: bool, education: str) -> bool:
    """Clean: receives education but decides on experience and portfolio only."""
    del education  # kept in the signature for API compatibility
    return years_experience >= MIN_EXPERIENCE and has_portfolio


def salary_band(education: str, years_experience: int) -> str:
    """Biased for education: a degree moves the band regardless of experience."""
    if education in PREFERRED_DEGREES:
        return "senior"
    return "senior" if years_experience > 8 else "junior"


class Screener:
    def __init__(self, threshold: int = 60) -> None:
        self.threshold = threshold

    def passes(self, test_score: int, age: int) -> bool:
        """Clean: the age is validated, never used to decide."""
        if age < 16:
            raise ValueError("applicants must be at least 16")
        return test_score >= self.threshold
