"""A proof whose two values name another category proves it too (search/verdict.py
told_by_values): a worker type whose members say a sex."""

from __future__ import annotations

from analysis_kit import verdict

WORKER_TYPES = """\
from enum import Enum


class WorkerType(Enum):
    MALE = "male"
    FEMALE_CADRE = "female_cadre"
    FEMALE_WORKER = "female_worker"


class ContractType(Enum):
    PERMANENT = "permanent"
    CONTRACTOR = "contractor"


def retirement_age(worker_type: WorkerType) -> int:
    ages = {WorkerType.MALE: 60, WorkerType.FEMALE_CADRE: 55, WorkerType.FEMALE_WORKER: 50}
    return ages[worker_type]


def notice_weeks(employee_type: ContractType) -> int:
    return 4 if employee_type == ContractType.PERMANENT else 1
"""


def test_a_worker_type_whose_members_say_a_sex_is_biased_for_both() -> None:
    report = verdict(WORKER_TYPES, "retirement_age")
    assert sorted(report.biased_attributes) == ["gender", "occupation"], report.reason
    assert all(f.method == "dynamic" and f.example for f in report.findings)


def test_members_that_name_no_other_category_prove_only_their_own() -> None:
    report = verdict(WORKER_TYPES, "notice_weeks")
    assert report.biased_attributes == ["occupation"], report.reason
