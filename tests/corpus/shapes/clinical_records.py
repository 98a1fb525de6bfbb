"""Clinical calculators as real packages write them (issues 9 and 10, written before the
engine supported these shapes): measurements held as (amount, unit) tuples in a patient dict,
unpacked in helpers; decorators without functools.wraps that rename the parameter; TypedDicts
with phrase keys; numpy vectors of patients defaulting to NaN. Traps: the first letter of a
word (`sex[0]`), a tuple that only echoes the age."""

import functools
import math
from typing import TypedDict


# expect: clean
def convert_age(age):
    value, unit = age
    if unit == "months":
        return value / 12
    if unit == "years":
        return value
    raise ValueError(f"unknown unit {unit}")


# expect: skipped
def kilograms(weight):
    amount, unit = weight
    return amount * 0.4536 if unit == "lbs" else amount


# expect: biased[age, gender]
def creatinine_clearance(patient):
    age = convert_age(patient["age"])
    weight = kilograms(patient["weight"])
    creatinine = patient["creatinine"][0]
    factor = 0.85 if patient["sex"] == "Female" else 1.0
    return round((140 - age) * weight * factor / (72 * creatinine), 1)


# expect: biased[age]
def paediatric_dose(patient):
    if convert_age(patient["age"]) < 12:
        return kilograms(patient["weight"]) * 10
    return 500


# expect: biased[race]
def egfr_with_race(inputs):
    creatinine = inputs["creatinine"][0]
    base = 175 * creatinine ** -1.154
    if inputs["race"] == "Black":
        base *= 1.212
    return round(base, 2)


# expect: skipped
def bmi(patient):
    height, height_unit = patient["height"]
    metres = height / 100 if height_unit == "cm" else height
    return round(kilograms(patient["weight"]) / metres**2, 1)


# expect: clean attrs=[age]
def age_in_years(patient):
    return {"age": convert_age(patient["age"])}


# expect: skipped
def batch_process(func):
    def inner(data):
        if isinstance(data, list):
            return [func(row) for row in data]
        return func(data)

    return inner


# expect: skipped
def checked(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        for value in [*args, *kwargs.values()]:
            if value is None:
                raise ValueError("missing value")
        return func(*args, **kwargs)

    return wrapper


class StrokeParameters(TypedDict):
    Congestive_heart_failure: bool
    Hypertension: bool
    Diabetes: bool


# expect: biased[age, gender]
@batch_process
def stroke_points(parameters: dict) -> int:
    points = 0
    if parameters["Age in years"] >= 75:
        points += 2
    elif parameters["Age in years"] >= 65:
        points += 1
    if parameters["Sex category"] == "female":
        points += 1
    if parameters["Congestive heart failure"]:
        points += 1
    return points


# expect: skipped
@batch_process
def bleeding_points(parameters: dict) -> int:
    return int(parameters["Uncontrolled hypertension"]) + int(parameters["Abnormal liver function"])


# expect: biased[age, gender]
@checked
def frailty_index(age: float, male: bool, grip_strength: float) -> float:
    cut = 27.0 if male else 16.0
    return 0.02 * age + (1.0 if grip_strength < cut else 0.0)


# expect: biased[age]
def renal_dysfunction(creatinine=math.nan, age=math.nan):
    import numpy as np

    creatinine = np.asarray(creatinine, dtype=float)
    age = np.asarray(age, dtype=float)
    high = ((age < 12) & (creatinine >= 0.8)) | ((age >= 12) & (creatinine >= 1.2))
    return high.astype(int)


# expect: biased[gender]
def screening_interval(patient):
    sex = patient["sex"]
    return 2 if sex[0].upper() == "F" else 3


# expect: clean attrs=[gender]
def sex_code(sex):
    return 1 if sex[0].upper() == "F" else 0
