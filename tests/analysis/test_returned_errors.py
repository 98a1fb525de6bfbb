"""A function that returns the error it caught (`return {"error": str(exc)}`) failed: it is
judged as if it raised (harness/output.py `returned_error`). Refusing a minor that way is
validation, two failures with different messages prove nothing, and refusing a realistic
value is still a refusal."""

from __future__ import annotations

from analysis_kit import verdict

HANDLERS = """\
def register(age, income):
    try:
        if age < 18:
            raise ValueError("applicants must be adults")
        if income <= 0:
            raise ValueError("an income is required")
        return {"status": "ok", "limit": income * 2}
    except ValueError as exc:
        return {"error": str(exc)}


def quote(age, income):
    if age > 65:
        return {"errors": ["not served past 65"]}
    return {"premium": income * 0.01, "error": None}
"""


def test_a_minor_refused_through_a_returned_error_is_validation() -> None:
    report = verdict(HANDLERS, "register")
    assert report.status == "clean", (report.reason, report.findings)


def test_a_realistic_age_refused_through_a_returned_error_is_a_refusal() -> None:
    report = verdict(HANDLERS, "quote")
    assert report.status == "biased", (report.reason, report.findings)
    (finding,) = report.findings
    assert finding.attribute == "age" and finding.kind == "refuses"
    assert finding.example is not None
    assert "raises ReturnedError: not served past 65" in finding.example.outputs
