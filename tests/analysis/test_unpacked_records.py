"""A mapping unpacked into a call of the project (`Applicant(**data)`, `premium(**data)`)
holds, as keys, the fields the class declares or the parameters the function takes
(analysis/inputs/builder.py `unpacked_record`)."""

from __future__ import annotations

from analysis_kit import model_of, verdict

SOURCE = """\
from dataclasses import dataclass


@dataclass
class Applicant:
    income: float
    region: str
    years_employed: int = 0


def assess(data):
    applicant = Applicant(**data)
    if applicant.region == "rural":
        return applicant.income * 0.8
    return applicant.income


def premium(base, smoker, age):
    return base * (1.5 if smoker else 1.0) * (1.2 if age >= 60 else 1.0)


def quote(request):
    return round(premium(**request), 2)
"""


def test_a_mapping_unpacked_into_a_record_class_holds_its_fields() -> None:
    model = model_of(SOURCE, "assess")
    assert {leaf.display for leaf in model.leaves} >= {"data['income']", "data['region']"}
    report = verdict(SOURCE, "assess")
    assert report.status == "biased" and report.biased_attributes == ["region"]


def test_a_mapping_unpacked_into_a_function_holds_its_parameters() -> None:
    model = model_of(SOURCE, "quote")
    assert {leaf.display for leaf in model.leaves} == {
        "request['base']", "request['smoker']", "request['age']"
    }  # fmt: skip
    report = verdict(SOURCE, "quote")
    assert report.status == "biased" and report.biased_attributes == ["age"]
