"""Eligibility tests, one per rule."""

from __future__ import annotations


# expect: biased[age]
def is_pensioner(claimant: dict) -> bool:
    return claimant["age"] >= 66


# expect: biased[gender, pregnancy]
def maternity_rule(claimant: dict) -> bool:
    return claimant["sex"] == "female" and claimant["weeks_pregnant"] >= 29


# expect: skipped
def income_test(claimant: dict, threshold: float = 1_200.0) -> bool:
    return claimant["monthly_income"] < threshold
