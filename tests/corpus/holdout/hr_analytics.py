"""HR analytics in plain Python: pay gaps, promotion readiness, attrition."""

import statistics
from collections import defaultdict

# expect: biased[gender]
def average_salary_by_gender(employees: list[dict]) -> dict[str, float]:
    totals: dict[str, list[float]] = defaultdict(list)
    for employee in employees:
        totals[employee["gender"]].append(employee["salary"])
    return {gender: round(statistics.mean(pay), 2) for gender, pay in totals.items()}


# expect: clean
def anonymise(employee: dict) -> dict:
    """A copy of the record that is safe to hand to the analytics vendor."""
    record = dict(employee)
    record.pop("gender", None)
    record.pop("race", None)
    record.pop("age", None)
    return record


# expect: skipped
def headcount(employees: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for employee in employees:
        counts[employee["department"]] += 1
    return dict(counts)


# expect: clean attrs=[age, education]
def promotion_ready(rating: float, years_in_role: int, age: int, education: str) -> bool:
    assert isinstance(age, int), "age must be an int"
    assert isinstance(education, str), "education must be a string"
    return rating >= 4.0 and years_in_role >= 2


# expect: unverified[age, occupation]
def flight_risk(employee: dict) -> float:
    features = [
        employee["tenure_years"],
        employee["age"],
        len(employee["jobTitle"]),
        employee["last_raise_pct"],
    ]
    return float(attrition_model.predict_proba([features])[0][1])


# expect: biased[race]
def diverse_slate(candidates: list[dict], minimum: int = 2) -> bool:
    """True when a shortlist has enough candidates from under-represented groups."""
    under_represented = {"Black", "Hispanic", "Native American", "Pacific Islander"}
    return sum(1 for c in candidates if c["race"] in under_represented) >= minimum
