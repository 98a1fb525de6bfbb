"""An input whose type allows only some values carries the category those values are words
of (analysis/inputs/leaves.py `category_of_choices`): a payroll's `identity` that is a
national or a migrant worker, a withholding `type` that is a resident or not, an enum
`Ethnicity`. A name given to a `Literal[...]` in another module is followed to its values
(analysis/values.py `Choices`, analysis/facts/exports.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_kit import model_of, verdict

from analysis import Engine
from config.policy import default_policy

TYPES = """\
from dataclasses import dataclass
from typing import Literal

Identity = Literal["national", "migrantGeneral", "migrantDomestic"]


@dataclass
class PayInput:
    monthly_salary: float
    identity: Identity = "national"
"""

ENGINE_MODULE = """\
from .types import PayInput

PENSION = {"national": True, "migrantGeneral": False, "migrantDomestic": False}


def pension(inp: PayInput) -> float:
    return inp.monthly_salary * 0.06 if PENSION[inp.identity] else 0.0


def net(inp: PayInput) -> float:
    return inp.monthly_salary * 0.9
"""


def scanned(tmp_path: Path, qualname: str) -> tuple[str, list[str]]:
    package = tmp_path / "payroll"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "types.py").write_text(TYPES)
    (package / "engine.py").write_text(ENGINE_MODULE)
    scan = Engine(default_policy()).scan_paths([str(package)])
    report = next(f for f in scan.functions if f.qualname == qualname)
    return report.status, report.biased_attributes


@pytest.mark.sandbox
def test_a_field_typed_by_a_literal_named_in_another_module_carries_its_values_category(
    tmp_path: Path,
) -> None:
    assert scanned(tmp_path, "pension") == ("biased", ["nationality"])


@pytest.mark.sandbox
def test_a_function_that_never_reads_it_stays_clean(tmp_path: Path) -> None:
    status, biased = scanned(tmp_path, "net")
    assert not biased, status


CHOICES = """\
from enum import Enum
from typing import Literal


class Ethnicity(Enum):
    GROUP_A = 1
    GROUP_B = 2


def withholding(salary: float, kind: Literal["resident", "nonResident"]) -> float:
    return salary * (0.18 if kind == "nonResident" else 0.05)


def loading(score: float, group: Ethnicity) -> float:
    return score * (1.2 if group is Ethnicity.GROUP_B else 1.0)


def theme(colour: Literal["black", "white"]) -> str:
    return "#000" if colour == "black" else "#fff"
"""


@pytest.mark.parametrize(("qualname", "category"), [("withholding", "region"), ("loading", "race")])
def test_the_values_an_input_is_declared_to_take_name_its_category(
    qualname: str, category: str
) -> None:
    report = verdict(CHOICES, qualname)
    assert report.status == "biased", report.reason
    assert report.biased_attributes == [category]


def test_a_weak_word_among_them_names_no_one_in_code_about_things() -> None:
    # "black" is a race's word as often as a colour's: nothing here is about a person.
    report = verdict(CHOICES, "theme")
    assert not report.findings, report.reason


NOT_PEOPLES = """\
from enum import Enum
from typing import Literal


class BusinessIndustry(Enum):
    TECHNOLOGY = "technology"
    RETAIL = "retail"
    EDUCATION = "education"
    FINANCE = "finance"


class Indicator(Enum):
    WEIGHT_FOR_AGE = "wfa"
    LENGTH_FOR_AGE = "lfa"
    BMI_FOR_AGE = "bfa"


def industry_risk(revenue: float, industry: BusinessIndustry) -> float:
    return revenue * (1.2 if industry is BusinessIndustry.TECHNOLOGY else 1.0)


def table_for(indicator: Indicator) -> str:
    return {"wfa": "weight.csv", "lfa": "length.csv", "bfa": "bmi.csv"}[indicator.value]


def axis_label(x_type: Literal["age", "gestational_age"]) -> str:
    return "Age (years)" if x_type == "age" else "Gestational age (weeks)"
"""


@pytest.mark.parametrize("qualname", ["industry_risk", "table_for", "axis_label"])
def test_choices_that_are_not_a_persons_values_carry_no_category(qualname: str) -> None:
    # one industry among four that is a field of study, a measure for age, the name of an
    # axis: no choice here is a person's education or age
    assert not model_of(NOT_PEOPLES, qualname).protected
