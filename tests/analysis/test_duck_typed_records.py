"""A record class that lacks what the function reads: callers hand a duck-typed object.

cvd-risk's CHA2DS2-VASc takes `patient: PatientData` yet reads `patient.prior_stroke_tia`,
which PatientData never declares: no instance can carry it, so every call on an instance
raises AttributeError. The engine then builds an object with the class's fields and the ones
read, as the package's callers do. A class whose methods or properties the function uses is
still built as an instance.
"""

from __future__ import annotations

from analysis_kit import model_of, verdict

from analysis.shapes import LeafShape, ObjectShape, RecordShape

UNDECLARED = (
    "from dataclasses import dataclass\n"
    "@dataclass\n"
    "class Patient:\n"
    "    age: int\n"
    "    sex: str\n"
    "    weight: float = 70.0\n"
    "def chads(patient: Patient) -> int:\n"
    "    score = 1 if patient.congestive_heart_failure else 0\n"
    "    score += 2 if patient.prior_stroke_tia else 0\n"
    "    if patient.age >= 75:\n"
    "        score += 2\n"
    "    if patient.sex == 'female':\n"
    "        score += 1\n"
    "    return score\n"
)


def test_fields_the_class_lacks_are_carried_by_a_stand_in() -> None:
    report = verdict(UNDECLARED, "chads")
    assert report.status == "biased", report.reason
    found = {f.attribute: f for f in report.findings if f.method == "dynamic"}
    assert set(found) == {"age", "gender"}
    assert found["age"].parameter == "patient.age"  # read as an attribute, shown as one
    assert found["age"].example is not None
    assert "prior_stroke_tia" in found["age"].example.inputs["patient"]


PROPERTY = (
    "from dataclasses import dataclass\n"
    "@dataclass\n"
    "class Person:\n"
    "    age: int\n"
    "    weight: float\n"
    "    @property\n"
    "    def heavy(self) -> bool:\n"
    "        return self.weight > 100\n"
    "def fee(p: Person) -> int:\n"
    "    return (10 if p.age >= 65 else 20) + (5 if p.heavy else 0)\n"
)

METHOD = (
    "from dataclasses import dataclass\n"
    "@dataclass\n"
    "class Person:\n"
    "    age: int\n"
    "    def band(self) -> str:\n"
    "        return 'senior' if self.age >= 65 else 'adult'\n"
    "def fee(p: Person) -> int:\n"
    "    return 10 if p.band() == 'senior' or p.discount else 20\n"
)


def test_a_class_whose_property_is_read_is_still_an_instance() -> None:
    report = verdict(PROPERTY, "fee")
    assert report.status == "biased", report.reason
    (age,) = [f for f in report.findings if f.attribute == "age"]
    assert age.example is not None
    assert set(age.example.inputs["p"]) == {"age", "weight"}  # no made-up `heavy`


def test_a_function_calling_the_records_methods_keeps_the_instance() -> None:
    # `p.discount` is undeclared, but a stand-in would lack `band()`: the instance stays.
    (param,) = model_of(METHOD, "fee").params
    assert isinstance(param.shape, ObjectShape)
    (stand_in,) = model_of(UNDECLARED, "chads").params
    assert isinstance(stand_in.shape, RecordShape)


TOLERANT = (
    "from dataclasses import dataclass\n"
    "@dataclass\n"
    "class Patient:\n"
    "    age: int\n"
    "def risk(patient: Patient) -> float:\n"
    "    high = getattr(patient, 'education_high', False)\n"
    "    return patient.age * 0.1 - 0.15 * float(high)\n"
)


def test_a_persons_attribute_looked_for_with_a_default_is_tried() -> None:
    """cvd-risk's Heinz Nixdorf model: `getattr(patient, 'education_high', False)`. Patient
    lacks it, so an instance always takes the default; the callers' objects carry it, and the
    stand-in tries it as the flag it is named (a word would break `float()`)."""
    (param,) = model_of(TOLERANT, "risk").params
    assert isinstance(param.shape, RecordShape)
    flag = param.shape.fields["education_high"]
    assert isinstance(flag, LeafShape) and set(flag.leaf.pool) == {True, False}
    report = verdict(TOLERANT, "risk")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings if f.method == "dynamic"} == {"age", "education"}


# cvd-risk's SMART-REACH and DIAL2: the model's own check asks the patient for attributes
# PatientData never declares, by name or over a list, and raises without them; a helper reads
# one through getattr without a default. The function itself reads only declared fields.
ASKED_FOR = '''
from dataclasses import dataclass

@dataclass
class Patient:
    age: int
    sex: str

class Model:
    def validate_input(self, patient: Patient) -> None:
        if patient.age >= 90:
            raise ValueError("no baseline past 89")
        for attr in ["creatinine", "disease_locations_count"]:
            if not hasattr(patient, attr):
                raise ValueError(f"requires {attr}")

    def _predictor(self, patient: Patient) -> float:
        onset = getattr(patient, "age_diabetes_diagnosis")
        return 0.02 * patient.age + 0.01 * onset + getattr(patient, "loc", 1)

    def calculate(self, patient: Patient) -> float:
        self.validate_input(patient)
        male = 0.3 if patient.sex == "male" else 0.0
        return round(self._predictor(patient) + male, 4)
'''


def test_attributes_a_helper_asks_for_are_carried_by_a_stand_in() -> None:
    (param,) = model_of(ASKED_FOR, "Model.calculate").params[-1:]
    assert isinstance(param.shape, RecordShape)
    held = set(param.shape.fields)
    assert {"creatinine", "disease_locations_count", "age_diabetes_diagnosis"} <= held
    assert "loc" not in held  # read with a default: the callers' objects may lack it
    report = verdict(ASKED_FOR, "Model.calculate")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings if f.method == "dynamic"} == {"age", "gender"}

