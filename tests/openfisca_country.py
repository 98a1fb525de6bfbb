"""A small OpenFisca country package, written by the tests that record its YAML test
(tests/test_cli_openfisca.py, tests/analysis/test_recorder_openfisca.py): two entities, an
input variable `birth_year`, the `age` computed from it, a formula reading
`person("age", period)` against a threshold from its parameters folder, and one YAML case
whose people are given by their birth years."""

from __future__ import annotations

import textwrap
from pathlib import Path

COUNTRY = {
    "country/__init__.py": """\
        import os

        from openfisca_core.taxbenefitsystems import TaxBenefitSystem

        from country import entities

        HERE = os.path.dirname(os.path.abspath(__file__))


        class CountryTaxBenefitSystem(TaxBenefitSystem):
            def __init__(self):
                super().__init__(entities.entities)
                self.add_variables_from_directory(os.path.join(HERE, "variables"))
                self.load_parameters(os.path.join(HERE, "parameters"))
    """,
    "country/entities.py": """\
        from openfisca_core.entities import build_entity

        Household = build_entity(
            key="household", plural="households", label="A household",
            roles=[{"key": "member", "plural": "members", "label": "Members"}],
        )
        Person = build_entity(key="person", plural="persons", label="A person", is_person=True)
        entities = [Household, Person]
    """,
    "country/variables/pension.py": """\
        from openfisca_core.periods import MONTH
        from openfisca_core.variables import Variable
        from numpy import where

        from country.entities import Person


        class birth_year(Variable):
            value_type = int
            entity = Person
            definition_period = MONTH
            label = "The year the person was born"


        class age(Variable):
            value_type = int
            entity = Person
            definition_period = MONTH
            label = "The person's age"

            def formula(person, period, parameters):
                return period.start.year - person("birth_year", period)


        class state_pension(Variable):
            value_type = float
            entity = Person
            definition_period = MONTH
            label = "State pension"

            def formula(person, period, parameters):
                pension = parameters(period).pension
                return where(person("age", period) >= pension.age, pension.amount, 0)
    """,
    "country/parameters/pension/age.yaml": "values:\n  2020-01-01:\n    value: 65\n",
    "country/parameters/pension/amount.yaml": "values:\n  2020-01-01:\n    value: 500\n",
    "country/tests/pension.yaml": """\
        - name: a retired couple
          period: 2024-01
          input:
            persons:
              Ann: {birth_year: 1954}
              Bob: {birth_year: 1956}
            households:
              home: {members: [Ann, Bob]}
          output:
            state_pension: [500, 500]
    """,
}


def write_country(root: Path) -> Path:
    for name, text in COUNTRY.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root
