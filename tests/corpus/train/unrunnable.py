"""A module whose dependency does not exist: it loads with that dependency stubbed.

A function that uses the missing dependency is judged statically: `unverified`, with a static
finding for each protected input that reaches a branch or the return value. A function that
never touches it is tested like any other (`log_only`, `region_factor`).
"""

import sklearn_xyz
from sklearn_xyz.ensemble import GradientModel

TABLE = {"north": 1.0, "south": 1.4}


# expect: unverified[age]
def predict_default(age, income):
    if age > 60:
        return sklearn_xyz.predict([income]) * 1.2
    return sklearn_xyz.predict([income])


# expect: unverified[gender] attrs=[gender, race]
def model_score(gender, race, features):
    model = GradientModel().fit(features)
    return model.score + (1 if gender == "male" else 0)


# expect: clean attrs=[gender]
def log_only(sex, amount):
    print("processing", sex)
    return amount * 2


# expect: skipped
def pure_math(a, b):
    return a * b + sklearn_xyz.bias


# expect: biased[region]
def region_factor(region):
    return TABLE[region]


# expect: unverified[age, occupation]
def loan_eligibility(applicant_age, occupation, amount):
    factor = GradientModel.default_factor
    limit = amount * factor
    if occupation in ("unemployed", "student"):
        limit = 0
    limit -= applicant_age * 10
    return limit
