"""Immigration forms: fees, points-based scoring, document checklists and queues."""

import re
from datetime import date

VISA_FEES = {"tourist": 160, "student": 185, "work": 460, "family": 535}
SHORTAGE_OCCUPATIONS = frozenset({"nurse", "engineer", "teacher", "doctor"})
DOCUMENTS = {
    "tourist": ["passport", "itinerary"],
    "student": ["passport", "admission letter", "proof of funds"],
    "work": ["passport", "job offer", "qualifications"],
}


# expect: biased[nationality]
def visa_fee(nationality: str, visa_type: str) -> int:
    fee = VISA_FEES.get(visa_type, 200)
    if nationality in ("Canadian", "Mexican"):
        fee -= 25
    return fee


# expect: biased[age, education]
def points_score(form: dict) -> int:
    """Points test for skilled migration, as in the 2019 programme rules."""
    applicant = form["applicant"]
    points = 0
    age = applicant["age"]
    if 25 <= age < 33:
        points += 30
    elif 18 <= age < 25 or 33 <= age < 40:
        points += 25
    elif 40 <= age < 45:
        points += 15
    degree = applicant["highest_degree"].lower()
    points += {"phd": 20, "master": 15, "bachelor": 15}.get(degree, 0)
    points += min(form["years_experience"], 8) * 2
    return points


# expect: biased[occupation]
def processing_priority(**application) -> int:
    priority = 3
    if application.get("sponsored"):
        priority -= 1
    if application.get("occupation", "").lower() in SHORTAGE_OCCUPATIONS:
        priority -= 1
    return max(priority, 1)


# expect: clean
def checklist(form: dict) -> dict:
    return {
        "applicant": form["full_name"],
        "country": form["country"],
        "documents": DOCUMENTS.get(form["visa_type"], ["passport"]),
    }


# expect: unverified[occupation, region]
def processing_days(region: str, jobTitle: str) -> int:
    from gov_case_queue import current_backlog  # internal client, not installed here

    backlog = current_backlog(region)
    days = 30 + backlog // 100
    if jobTitle in SHORTAGE_OCCUPATIONS:
        days //= 2
    return days


# expect: clean attrs=[age]
def validate_passport_number(passport_number: str, age: int) -> bool:
    if not isinstance(age, int):
        raise TypeError("age must be an integer")
    return re.fullmatch(r"[A-Z0-9]{6,9}", passport_number) is not None


# expect: biased[age] attrs=[age]
def biometrics_required(birth_year: int, visa_type: str) -> bool:
    age = date.today().year - birth_year
    if visa_type == "tourist":
        return 14 <= age <= 79
    return age >= 14
