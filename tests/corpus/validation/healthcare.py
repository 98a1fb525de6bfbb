"""Clinical rules: enums, a cached function, a generator, a class that needs arguments."""

import enum
from functools import lru_cache

ADJUST = {"Asian": -1, "Black": -2}


class Sex(enum.Enum):
    MALE = "m"
    FEMALE = "f"


# expect: biased[gender]
def kidney_function_estimate(creatinine, sex: Sex):
    factor = 0.742 if sex is Sex.FEMALE else 1.0
    return round(141 * creatinine ** -0.3 * factor, 2)


# expect: biased[age]
@lru_cache(maxsize=128)
def screening_interval(age):
    if age >= 76:
        return None
    if age >= 50:
        return 2
    return 3


# expect: biased[age]
def reminders(patient_age, visits):
    for visit in visits:
        yield f"visit {visit}" if patient_age < 70 else f"phone about {visit}"


# expect: clean attrs=[age]
def admission_note(age, ward):
    return f"Patient aged {age} admitted to ward {ward}"


# expect: biased[race]
def pain_score_adjustment(reported, ethnic_group):
    return reported + sum(w for group, w in ADJUST.items() if group == ethnic_group)


# expect: biased[age, gender]
def cardiac_risk(age, gender, cholesterol):
    points = 1 if cholesterol > 240 else 0
    if (gender == "male" and age > 45) or (gender == "female" and age > 55):
        points += 2
    return points


# expect: clean attrs=[gender, race]
def dosage(weight_kg, sex, race):
    if weight_kg <= 0:
        raise ValueError("weight must be positive")
    return round(weight_kg * 0.5, 1)


# expect: biased[age]
def bed_assignment(ward_load, *, years_old):
    return "geriatric" if years_old >= 80 else "general" if ward_load < 0.9 else "overflow"


class Hospital:
    def __init__(self, beds):
        self.beds = beds

    # expect: biased[age]
    @staticmethod
    def paediatric(age):
        # A static method runs without an instance, even though the class needs arguments.
        return age < 18

    # expect: biased[gender]
    def maternity_eligible(self, gender, weeks):
        return gender == "female" and weeks > 20 and self.beds > 0
