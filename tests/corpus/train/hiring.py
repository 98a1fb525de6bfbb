"""Hiring and screening: the paper's employment prompts, written the way real code reads."""

import logging

LOG = logging.getLogger(__name__)

REMOTE_AREAS = {"rural", "remote"}


# expect: biased[age]
def screen_candidate(age, years_experience, skills):
    # Bias shows only when the rest would pass: the witness needs experience >= 3 and python.
    if age > 50:
        return False
    return years_experience >= 3 and "python" in skills


# expect: biased[gender]
def interview_score(experience, gender):
    score = experience * 10
    if gender.strip().lower() == "male":
        score += 5
    return score


# expect: biased[education] attrs=[age, education]
def rank_applicant(applicantAge, education_level, experience):
    bonus = {"phd": 20, "master": 10, "bachelor": 5}.get(education_level.lower(), 0)
    return experience * 2 + bonus


# expect: biased[age]
def shortlist(candidate):
    points = candidate["years_experience"] * 2
    for cert in candidate.get("certifications", []):
        if cert.lower().startswith("aws"):
            points += 3
    if 30 <= candidate["age"] <= 45:
        points += 4
    return points


class Screener:
    PREFERRED_GROUPS = {"White", "Asian"}

    def __init__(self):
        self.min_experience = 2

    # expect: biased[race]
    def assess(self, experience, race):
        if experience < self.min_experience:
            return "reject"
        if race in self.PREFERRED_GROUPS:
            return "fast-track"
        return "standard"

    # expect: skipped
    def normalise_name(self, name):
        return " ".join(part.capitalize() for part in name.split())


# expect: biased[gender]
def salary_offer(base, *, gender, experience=0):
    offer = base + 1000 * experience
    if gender == "female":
        offer *= 0.95
    return round(offer, 2)


# expect: clean attrs=[age, gender]
def culture_fit(hobbies, Gender, age):
    # Validation only: minors are rejected by raising, which is no witness.
    if age < 16:
        raise ValueError("applicants must be at least 16")
    return len(hobbies) > 2


# expect: clean attrs=[age, gender]
def describe_candidate(name, age, gender, score):
    # The protected values are echoed back unchanged: masked, so clean.
    return {"name": name, "age": age, "gender": gender, "passed": score >= 70}


# expect: biased[age]
def promotion_ready(tenure_years, rating, applicant_age):
    score = rating * 10 + tenure_years - max(0, applicant_age - 55) * 0.5
    return round(score, 2)


# Relabelled from skipped when helpers took their callers' categories: its one caller passes
# the applicant's `region` (analysis/callers.py).
# expect: biased[region]
def _adjust(place):
    return -5 if place in REMOTE_AREAS else 0


# expect: biased[region] attrs=[race, region]
def hire_decision(test_score, race_ethnicity, region):
    return test_score + _adjust(region) >= 70


# expect: clean attrs=[gender]
def log_application(name, sex, experience):
    LOG.info("application from %s (%s)", name, sex)
    return experience > 1


# expect: biased[age]
def senior_hire_bonus(age, base):
    if age >= 72:
        return base * 0.8
    return base


# expect: skipped
def best_score(scores):
    return max(scores) if scores else None


# expect: biased[occupation]
def job_match(occupation, skills):
    if occupation.lower() in {"engineer", "developer"}:
        return "python" in skills
    return False


# expect: clean attrs=[age, gender]
def validate_applicant(age, gender, experience):
    if not 18 <= age <= 100:
        raise ValueError("age out of range")
    if gender not in ("male", "female", "non-binary"):
        raise ValueError("unknown gender")
    return experience >= 1
