"""Tax-benefit formulas importing the real OpenFisca base class (not installed here: a stub
stands in for it; the formulas themselves never call it)."""

from __future__ import annotations

from openfisca_core.periods import MONTH
from openfisca_core.variables import Variable

from openfisca_country_template.entities import Household, Person  # noqa: F401


class basic_income(Variable):  # noqa: N801
    definition_period = MONTH

    # expect: biased[age]
    def formula_2016_12(person, period, parameters):  # noqa: N805
        return 600.0 if person("age", period.first_month) >= 18 else 0.0


class housing_allowance(Variable):  # noqa: N801
    definition_period = MONTH

    # expect: skipped
    def formula(household, period, parameters):  # noqa: N805
        return household("rent", period) * 0.25


class carer_supplement(Variable):  # noqa: N801
    definition_period = MONTH

    # expect: biased[gender]
    def formula(person, period, parameters):  # noqa: N805
        caring = person("hours_caring", period) >= 35
        return 120.0 if caring and person("gender", period) != "male" else 0.0
