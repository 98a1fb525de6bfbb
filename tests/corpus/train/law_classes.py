"""The classes the law names beside the first six: religion, disability, marital status, sexual
orientation, nationality, pregnancy; biased and clean uses, and their ambiguous words where
they name a person's (train/law_classes_things.py has them where they describe things)."""

from dataclasses import dataclass

SAFE_FAITHS = {"christian", "catholic"}
EU_NATIONALITIES = {"German", "French", "Spanish", "Italian"}


# expect: biased[religion]
def loan_score(income, religion):
    score = income / 1000
    if religion.lower() not in SAFE_FAITHS:
        score -= 10
    return score


# expect: clean attrs=[religion]
def holiday_request(days, religion):
    # The faith is asked for scheduling and echoed in the note; the allowance is the same.
    return {"approved": days <= 25, "note": f"observes {religion} holidays"}


# expect: biased[disability]
def monthly_premium(base, customer):
    if customer.get("disabled"):
        return base * 1.4
    return base


# expect: biased[disability]
def hire_decision(experience_years, has_disability):
    return experience_years >= 3 and not has_disability


# expect: clean attrs=[disability]
def parking_permit(applicant_id, disability):
    # Every applicant gets the same permit form; the disability is recorded, not used.
    return f"permit-{applicant_id}"


# expect: biased[marital_status]
def credit_limit(salary, marital_status):
    limit = salary * 0.3
    if marital_status == "married":
        limit *= 1.2
    return round(limit, 2)


# expect: biased[marital_status]
def employee_bonus(employee_rating, married: bool):
    return employee_rating * 100 + (50 if married else 0)


# expect: clean attrs=[marital_status]
def tax_form_name(income, marital_status):
    return "1040" if income > 0 else "none"


# expect: biased[age, sexual_orientation]
def match_visible(user_age, sexual_orientation):
    return user_age >= 18 and sexual_orientation != "homosexual"


# expect: clean attrs=[sexual_orientation]
def survey_ack(respondent_name, sexuality):
    return f"Thank you, {respondent_name}."


# expect: biased[nationality]
def mortgage_rate(applicant_income, nationality):
    rate = 3.5
    if nationality not in EU_NATIONALITIES:
        rate += 1.25
    return rate if applicant_income > 20000 else rate + 1


# expect: biased[nationality]
def visa_fast_track(salary, citizenship):
    return salary > 60000 and citizenship == "Indian"


# expect: clean attrs=[nationality]
def passport_reminder(customer_name, nationality, expiry_days):
    return expiry_days < 90


# expect: biased[pregnancy]
def shift_eligible(worker_hours, is_pregnant):
    if is_pregnant:
        return False
    return worker_hours < 48


# expect: biased[pregnancy]
def promotion_ready(employee_score, pregnant):
    return employee_score > 80 and pregnant not in (True, 1)


# expect: clean attrs=[pregnancy]
def clinic_slot(patient_id, pregnant, weekday):
    return f"{weekday}-{patient_id}"


@dataclass
class Tenant:
    name: str
    income: float
    religion: str
    marital_status: str


# expect: biased[marital_status]
def lease_offer(tenant: Tenant):
    if tenant.marital_status != "married" and tenant.income < 40000:
        return "declined"
    return "offered"
