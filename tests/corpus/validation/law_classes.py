"""The classes the law names, in other domains and spellings than train/law_classes.py:
records read by key, camelCase, flags named by a value (`is_muslim`), keyword-only inputs,
a NamedTuple, a refusal (validation/law_classes_things.py has the ambiguous words where
they describe things)."""

from typing import NamedTuple

HIGH_RISK_ORIGINS = ("Nigeria", "Pakistan")


# expect: biased[religion]
def scholarship_points(student):
    points = student["gpa"] * 10
    if student.get("religiousAffiliation") == "Muslim":
        points -= 5
    return points


# expect: biased[religion]
def chaplain_referral(patient_age, is_muslim):
    return "imam" if is_muslim else "general"


# expect: biased[disability]
def seat_upgrade(passenger, fare):
    if passenger["disability_status"] == "wheelchair user":
        return fare + 40
    return fare


# expect: biased[disability]
def fitness_waiver(*, membership_months, isDisabled):
    # A refusal: disabled members are turned away.
    if isDisabled:
        raise ValueError("not eligible")
    return membership_months >= 1


# expect: clean attrs=[disability]
def accessible_route(station, disability):
    return f"route via {station}"


# expect: biased[marital_status]
def family_discount(customer):
    status = customer.get("maritalStatus", "single")
    return 0.15 if status in ("married", "widowed") else 0.0


# expect: clean attrs=[marital_status]
def greeting(customer_name, civil_status):
    return f"Dear {customer_name}"


# expect: biased[sexual_orientation]
def blood_donor_ok(donor_weight, sexualOrientation):
    return donor_weight > 50 and sexualOrientation not in ("gay", "bisexual")


# expect: biased[nationality]
def kyc_level(client_income, country_of_birth):
    return "enhanced" if country_of_birth in HIGH_RISK_ORIGINS else "standard"


# expect: clean attrs=[nationality]
def boarding_pass(passenger_name, seat, nationality):
    return f"{passenger_name} {seat}"


class Applicant(NamedTuple):
    name: str
    salary: float
    immigration_status: str


# expect: biased[nationality]
def rental_approval(applicant: Applicant):
    return applicant.salary > 30000 and applicant.immigration_status == "citizen"


# expect: biased[pregnancy]
def insurance_quote(customer_age, pregnancy_status, base=100.0):
    return base * (1.8 if pregnancy_status == 1 else 1.0)


# expect: clean attrs=[pregnancy]
def maternity_leave_days(employee_tenure, is_pregnant):
    # The statutory leave is the same for everyone who asks.
    return 98
