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


FORWARDED_KEYWORDS = """\
def compute(own_income, age=35, filing_status="SINGLE", agi=None):
    base = own_income if agi is None else agi
    credit = 0.05 * base if age >= 65 else 0
    return base * 0.1 - credit


def change(income_pre, income_post, agi_pre=None, agi_post=None, **kwargs):
    pre = compute(income_pre, agi=agi_pre, **kwargs)
    post = compute(income_post, agi=agi_post, **kwargs)
    return post - pre
"""


def test_keywords_passed_on_hold_what_the_call_does_not_give_itself() -> None:
    """oi-fiscal-calc-tx's `fiscal_impact_change(income_pre, ..., **kwargs)` passes its
    keywords on beside the income (by position) and the AGI (by name): those two are no keys
    of `kwargs`, or every call gives them twice."""
    keys = {leaf.display for leaf in model_of(FORWARDED_KEYWORDS, "change").leaves}
    assert {"kwargs['age']", "kwargs['filing_status']"} <= keys
    assert not keys & {"kwargs['own_income']", "kwargs['agi']"}
    assert verdict(FORWARDED_KEYWORDS, "change").biased_attributes == ["age"]
