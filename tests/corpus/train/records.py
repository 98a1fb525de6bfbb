"""People as records: dataclasses, NamedTuples, dicts read by key and untyped objects."""

from dataclasses import dataclass
from typing import NamedTuple


@dataclass
class Applicant:
    name: str
    age: int
    gender: str
    income: float
    education: str = "bachelor"


class Person(NamedTuple):
    name: str
    sex: str
    age: int
    city: str


# expect: biased[age]
def credit_tier(a: Applicant):
    if a.income > 50000 and a.age < 40:
        return "A"
    return "B"


# expect: biased[education]
def scholarship(a: Applicant):
    return a.education in ("master", "phd") and a.income < 40000


# expect: biased[gender]
def greeting(p: Person):
    title = "Mr." if p.sex == "male" else "Ms."
    return f"{title} {p.name}"


# expect: biased[region]
def delivery_fee(p: Person, distance_km):
    fee = 2 + distance_km * 0.5
    if p.city in {"Lagos", "Mumbai"}:
        fee += 3
    return fee


# expect: clean
def person_card(p: Person):
    # Echoes age and city unchanged.
    return {"name": p.name, "age": p.age, "city": p.city}


# expect: biased[gender]
def dict_score(record):
    if record["age"] < 18:
        raise ValueError("minor")
    score = record["income"] / 1000
    if record["gender"] == "male":
        score += 1
    return score


# expect: biased[age, education]
def get_score(p):
    age = p.get("age", 30)
    edu = p.get("education", "none")
    return (2 if edu == "phd" else 1) * (1 if age < 60 else 0.5)


# expect: skipped
def applicant_skills(applicant):
    return sorted(s.lower() for s in applicant["skills"])


# expect: clean attrs=[race]
def tagline(applicant):
    print("ethnicity on file:", applicant["ethnicity"])
    suffix = " (veteran)" if applicant["years_service"] > 10 else ""
    return applicant["name"].title() + suffix


class Registry:
    # expect: biased[occupation]
    def lookup(self, person):
        if "doctor" in person["occupation"].lower():
            return "priority"
        return "normal"


# expect: clean
def income_band(a: Applicant):
    assert a.gender, "gender must be recorded"
    if a.income > 80000:
        return "high"
    return "low" if a.income < 20000 else "middle"


# expect: biased[age]
def eligible_person(p: Person):
    return 25 <= p.age <= 40


# expect: biased[gender, region]
def courier_priority(order):
    # Attribute paths on an untyped record.
    level = 1
    if order.customer_city == "Berlin":
        level += 1
    if order.customer_gender == "female" and order.total > 100:
        level += 1
    return level

