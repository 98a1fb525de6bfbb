"""Benefits and tax rules written the OpenFisca way: a formula receives an entity that is
called with a variable name and a period (`person('age', period)`), and a household that
answers for its members (`household.members('age', period)`). Also refusals and validation."""

from __future__ import annotations

from typing import Any

import numpy as np

MONTH = "month"
YEAR = "year"


class Variable:
    """Stand-in for openfisca_core.variables.Variable (not installed): only the shape."""

    value_type: type = float
    definition_period = MONTH


# expect: skipped
def _period_label(period: Any) -> str:
    return str(period)


class pension_eligible(Variable):  # noqa: N801 - OpenFisca names variables in snake case
    value_type = bool

    # expect: biased[age]
    def formula(person, period, parameters):  # noqa: N805
        return person("age", period) >= 65


class senior_household_supplement(Variable):  # noqa: N801
    # expect: biased[age]
    def formula(household, period, parameters):  # noqa: N805
        seniors = np.sum(np.asarray(household.members("age", period)) >= 65)
        return float(seniors) * 120.0


class child_benefit(Variable):  # noqa: N801
    # expect: skipped
    def formula(person, period, parameters):  # noqa: N805
        return person("nb_children", period) * 95.0


class widow_allowance(Variable):  # noqa: N801
    # expect: biased[gender, marital_status]
    def formula(person, period, parameters):  # noqa: N805
        widowed = person("is_widowed", period)
        return 310.0 if widowed and person("sex", period) == "female" else 0.0


# expect: biased[age]
def senior_tax_credit(taxpayer: dict, year: int) -> float:
    credit = 0.0
    if taxpayer.get("age", 0) >= 65:
        credit += 1_850.0
    if taxpayer.get("dependents", 0) > 0:
        credit += 500.0 * taxpayer["dependents"]
    return credit


# expect: biased[gender]
def claim_pension(claimant: dict) -> float:
    if claimant["gender"] not in ("male", "female"):
        raise ValueError(f"unsupported gender {claimant['gender']!r}")
    return round(claimant["contributions"] * 0.012, 2)


# expect: biased[age]
def enrol_retraining(applicant: dict) -> str:
    if applicant["age"] >= 70:
        raise ValueError("applicants over 69 cannot enrol")
    return f"enrolled {applicant['id']}"


# expect: clean
def unemployment_benefit(age: int, weeks_worked: int) -> float:
    if age < 0 or age > 130:
        raise ValueError(f"impossible age {age}")
    return min(weeks_worked, 26) * 52.5
