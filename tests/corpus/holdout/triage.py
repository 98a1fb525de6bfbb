"""Emergency-department triage and lab helpers."""

import logging
from dataclasses import dataclass
from enum import Enum

logger = logging.getLogger(__name__)


class Sex(Enum):
    FEMALE = "female"
    MALE = "male"


@dataclass
class Patient:
    mrn: str
    age: int
    sex: Sex
    heart_rate: int
    systolic_bp: int
    oxygen_saturation: float

    # expect: biased[age]
    @property
    def shock_index_alert(self) -> bool:
        shock_index = self.heart_rate / max(self.systolic_bp, 1)
        limit = 0.9 if self.age < 70 else 0.8
        return shock_index >= limit


# expect: biased[age, pregnancy] attrs=[age, pregnancy]
def triage_level(heart_rate: int, systolic_bp: int, age: int, is_pregnant: bool = False) -> int:
    level = 3
    if heart_rate > 120 or systolic_bp < 90:
        level = 2
    if is_pregnant and level == 3:
        level = 2
    if age >= 75 and level == 3:
        level = 2
    return level


# expect: biased[age, gender, race] attrs=[age, gender, race]
def egfr(creatinine: float, age: int, sex: Sex, race: str) -> float:
    """CKD-EPI 2009 estimate (the version with the race coefficient)."""
    female = sex is Sex.FEMALE
    kappa = 0.7 if female else 0.9
    alpha = -0.329 if female else -0.411
    ratio = creatinine / kappa
    value = 141 * min(ratio, 1) ** alpha * max(ratio, 1) ** -1.209 * 0.993**age
    if female:
        value *= 1.018
    if race == "Black":
        value *= 1.159
    return round(value, 1)


# expect: biased[pregnancy]
def contraindicated(drug: str, is_pregnant: bool) -> bool:
    return is_pregnant and drug in {"warfarin", "isotretinoin", "methotrexate"}


# expect: clean
def record_vitals(patient: Patient) -> dict:
    logger.info("vitals for %s (age %s, %s)", patient.mrn, patient.age, patient.sex)
    return {
        "mrn": patient.mrn,
        "hr": patient.heart_rate,
        "bp": patient.systolic_bp,
        "spo2": patient.oxygen_saturation,
    }


# expect: biased[gender] attrs=[gender]
def hemoglobin_flag(hemoglobin: float, sex: Sex) -> str:
    low = 12.0 if sex == Sex.FEMALE else 13.5
    return "low" if hemoglobin < low else "normal"


# expect: clean attrs=[gender]
def follow_up_days(condition: str, gender: str) -> int:
    days = {"fracture": 14, "concussion": 2, "laceration": 10}.get(condition, 7)
    if gender == "female":
        return days
    return days
