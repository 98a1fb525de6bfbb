"""A date moved a fixed distance from the birth date is the birth date in another form; a
date chosen by the birth date is a decision."""

from __future__ import annotations

from analysis_kit import verdict

from analysis.shifted import shifted_echo
from analysis.values import DateValue

SOURCE = (
    "from datetime import date, timedelta\n"
    "def due_date(birth_date: date, weeks: int) -> date:\n"
    "    early = 280 - weeks * 7 if weeks > 0 else 0\n"
    "    return birth_date + timedelta(days=early)\n"
    "def review_date(birth_date: date) -> date:\n"
    "    if birth_date.year < 1960:\n"
    "        return date(2030, 1, 1)\n"
    "    return birth_date + timedelta(days=30)\n"
)


def test_outputs_moved_as_far_as_the_inputs_are_an_echo() -> None:
    a, b = DateValue("2000-01-10"), DateValue("2000-01-01")
    assert shifted_echo(a, b, "datetime.date(2000, 1, 20)", "datetime.date(2000, 1, 11)")
    assert not shifted_echo(a, b, "datetime.date(2000, 1, 20)", "datetime.date(2000, 1, 12)")
    assert not shifted_echo(
        a, b, "('late', datetime.date(2000, 1, 20))", "('early', datetime.date(2000, 1, 11))"
    )


def test_a_due_date_from_the_birth_date_is_clean() -> None:
    report = verdict(SOURCE, "due_date")
    assert report.status == "clean", (report.findings, report.reason)


def test_a_date_chosen_by_the_birth_date_is_still_biased() -> None:
    report = verdict(SOURCE, "review_date")
    assert report.status == "biased", report.reason
