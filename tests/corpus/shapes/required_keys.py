"""Records read by keys the function does not spell where it reads them (written before the
engine supported the shape): keys listed in a module constant and looped over,
taken from it by position, built with an f-string, or passed in by name. Only calls tell what
such a record must hold; `KeyError: 'Sex category'` says it."""

REQUIRED = ("Age in years", "Sex category", "Hypertension")
WEIGHTS = {"Hypertension": 1, "Diabetes": 1}
SETTINGS = ("timeout", "retries")


# expect: clean
def validate(params):
    for key in REQUIRED:
        if params[key] is None:
            raise ValueError(f"{key} is required")


# expect: biased[age, gender]
def stroke_risk(params: dict) -> int:
    validate(params)
    points = sum(weight * int(bool(params[key])) for key, weight in WEIGHTS.items())
    if params[REQUIRED[0]] >= 75:
        points += 2
    if params[REQUIRED[1]] == "female":
        points += 1
    return points


# expect: biased[age]
def screening_due(record, unit="years"):
    age = record[f"age_{unit}"]
    return age >= 50


# expect: skipped
def hypertension_flag(params):
    return bool(params[REQUIRED[2]])


# expect: skipped
def connect(config):
    return {key: config[key] for key in SETTINGS}
