"""A module whose top level calls something that does not exist."""

SETTINGS = load_settings("scoring.yml")  # noqa: F821 - defined nowhere


# expect: unverified[race]
def risk_weight(race, amount):
    weights = SETTINGS["race_weights"]
    return amount * weights.get(race, 1.0)


# expect: unverified[age, gender]
def eligible_for_trial(age, sex, score):
    if sex == "female" and age > SETTINGS["min_age"]:
        return True
    return score > 10


# expect: skipped
def rounding(value):
    return round(value, SETTINGS["digits"])
