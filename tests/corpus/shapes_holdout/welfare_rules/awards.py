"""Awards: callers that never read a protected field themselves."""

from __future__ import annotations

from collections.abc import Callable

import welfare_rules.eligibility as eligibility
from welfare_rules.eligibility import income_test


# expect: biased[age]
def winter_fuel_payment(claimant: dict) -> float:
    return 300.0 if eligibility.is_pensioner(claimant) else 0.0


# expect: biased[gender, pregnancy]
def weekly_award(claimant: dict) -> float:
    award = 95.0 if income_test(claimant) else 0.0
    if eligibility.maternity_rule(claimant):
        award += 180.0
    return award


class Caseworker:
    def __init__(self, office: str = "central") -> None:
        self.office = office

    # expect: biased[age]
    def priority(self, claimant: dict) -> int:
        return 1 if self._vulnerable(claimant) else 3

    # expect: biased[age]
    def _vulnerable(self, claimant: dict) -> bool:
        return eligibility.is_pensioner(claimant) or claimant["dependents"] > 3


# expect: biased[age]
def apply_rules(
    claimants: list[dict], rule: Callable[[dict], bool] = eligibility.is_pensioner
) -> list[str]:
    return [c["id"] for c in claimants if rule(c)]
