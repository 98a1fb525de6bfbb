"""Refusal is a finding (issue 10, item 4): a call that raises for a realistic protected value
while another value, every other input the same, returns is reported as kind `refuses`.
Validation of values no real person has (a negative age, None, a misspelt label) is not."""

from __future__ import annotations

import pytest

from analysis import Engine, FunctionReport
from config.policy import default_policy

pytestmark = pytest.mark.sandbox

ENGINE = Engine(default_policy())

MODULE = """
FACTORS = {"male": 1.0, "female": 1.0}


def enrol(gender, score):
    if gender not in ("male", "female"):
        raise ValueError("unsupported gender")
    return score >= 50


def cover(age, amount):
    if age > 60:
        raise PermissionError("too old to insure")
    return amount * 2


def rate(gender):
    return FACTORS[gender] * 100


def validate(age, gender, experience):
    if age is None or age < 0:
        raise ValueError("age must be a positive number")
    if gender not in ("male", "female", "non-binary"):
        raise ValueError("unknown gender")
    return experience >= 1


def adults_only(name, age):
    if age < 16:
        raise ValueError("applicants must be at least 16")
    return name.strip() != ""


def always_fails(gender):
    raise RuntimeError("not implemented for " + str(gender))
"""


def judge(qualname: str) -> FunctionReport:
    return ENGINE.scan_function(MODULE, "people.py", qualname)


def test_raising_for_non_binary_is_a_refusal_with_its_exception_type() -> None:
    report = judge("enrol")
    assert report.status == "biased"
    [finding] = report.findings
    assert (finding.attribute, finding.kind) == ("gender", "refuses")
    assert finding.example is not None
    refused = [o for o in finding.example.outputs if o.startswith("raises ValueError")]
    assert len(refused) == 1, finding.example.outputs
    side = finding.example.outputs.index(refused[0])
    assert finding.example.values[side] not in ("male", "female")


def test_raising_above_an_age_is_a_refusal() -> None:
    report = judge("cover")
    assert report.status == "biased"
    [finding] = report.findings
    assert finding.kind == "refuses"
    assert finding.example is not None
    refused = finding.example.values[
        [i for i, o in enumerate(finding.example.outputs) if o.startswith("raises")][0]
    ]
    assert refused > 60


def test_a_table_without_a_realistic_value_refuses_it_with_key_error() -> None:
    report = judge("rate")
    assert report.status == "biased"
    [finding] = report.findings
    assert finding.kind == "refuses"
    assert finding.example is not None
    assert any(o.startswith("raises KeyError") for o in finding.example.outputs)


def test_validation_of_unrealistic_values_is_no_refusal() -> None:
    report = judge("validate")
    assert report.status == "clean", report.findings
    assert report.findings == []


def test_refusing_a_minor_is_validation_not_a_refusal() -> None:
    # Ages below the policy's realistic range (adults) are not people a function must serve.
    assert judge("adults_only").status == "clean"


def test_a_function_that_always_raises_refuses_nobody() -> None:
    report = judge("always_fails")
    assert not report.is_biased
    assert all(f.kind != "refuses" for f in report.findings)


def test_a_refusal_survives_the_json_report() -> None:
    report = judge("enrol")
    again = FunctionReport.from_dict(report.to_dict())
    assert again.findings[0].kind == "refuses"
    assert report.to_dict()["findings"][0]["kind"] == "refuses"
