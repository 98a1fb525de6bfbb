"""Repository code pasted alone: a relative import that cannot resolve."""

from .db import fetch_history


# expect: unverified[age]
def churn_risk(customer_id, age):
    history = fetch_history(customer_id)
    return len(history) < 3 and age < 30


# expect: clean attrs=[region]
def churn_note(customer_id, region):
    return f"customer {customer_id}"


# expect: unverified[education, gender]
def upsell(gender, degree, spend):
    if degree in ("phd",) or gender == "female":
        return spend * 1.1
    return spend
