"""An input whose annotation says what it holds gets values of that type, never made-up ones
that make every call raise: records too deep to build (past the builder's depth limit) are
an empty list of them, the one list of its type that needs none (made-up items, `[1, 10]`,
fail where the code reads `component.taxable`: india-tax-guru's salary components, in a
salary in a list of the profile); a `frozenset[str]` or `AbstractSet[str]` field is a
collection (`section in rules.allowed_deductions` raises on a made-up number)."""

from __future__ import annotations

from pathlib import Path

from analysis_kit import model_in_package, pools, scan_in_package, write_package

# The components of a salary in a list of the profile.
PAYROLL = {
    "pay/__init__.py": "",
    "pay/models.py": """\
        from dataclasses import dataclass, field


        @dataclass
        class SalaryComponent:
            name: str
            annual_amount: int
            taxable: bool = True


        @dataclass
        class SalaryIncome:
            employer_name: str
            components: list[SalaryComponent] = field(default_factory=list)


        @dataclass
        class Employment:
            employer_name: str
            salaries: list[SalaryIncome] = field(default_factory=list)


        @dataclass
        class Profile:
            other_income: int
            age: int = 40
            employments: list[Employment] = field(default_factory=list)
        """,
    "pay/tax.py": """\
        from .models import Profile


        def taxable_salary(profile: Profile) -> int:
            gross = profile.other_income + sum(
                c.annual_amount
                for e in profile.employments
                for s in e.salaries
                for c in s.components
                if c.taxable
            )
            deduction = 75000 if profile.age >= 60 else 50000
            return max(0, gross - deduction) + 1000
        """,
}


def test_a_list_of_records_too_deep_to_build_is_empty(tmp_path: Path) -> None:
    model = model_in_package(tmp_path, PAYROLL, "pay/tax.py", "taxable_salary")
    assert pools(model)["profile.employments[0].salaries[0].components"] == [[]]
    function = scan_in_package(tmp_path, "pay/tax.py", "taxable_salary")
    assert function.status == "biased", (function.status, function.reason)


# Where a person rents, two lists down: india-tax-guru's salaries, each with its periods of
# rent in a metro city or not (an HRA exemption of 50% of the basic pay or 40%).
RENT = {
    "hra/__init__.py": "",
    "hra/models.py": """\
        from dataclasses import dataclass, field


        @dataclass
        class RentPeriod:
            months: int
            monthly_rent: int
            is_metro: bool


        @dataclass
        class SalaryIncome:
            basic_annual: int
            rent_periods: list[RentPeriod] = field(default_factory=list)
        """,
    "hra/compute.py": """\
        from .models import SalaryIncome


        def employee_hra_exempt(salaries: list[SalaryIncome]) -> int:
            total = 0
            for salary in salaries:
                for period in salary.rent_periods:
                    share = 0.5 if period.is_metro else 0.4
                    total += int(min(salary.basic_annual * share * period.months / 12,
                                     period.monthly_rent * period.months))
            return total
        """,
}


def test_a_person_in_a_record_in_a_list_in_a_list_is_found(tmp_path: Path) -> None:
    write_package(tmp_path, RENT)
    function = scan_in_package(tmp_path, "hra/compute.py", "employee_hra_exempt")
    assert [f.attribute for f in function.findings] == ["region"], function.reason


# A regime's rules as india-tax-guru keeps them: the deductions it allows, as a frozenset.
RULES = {
    "levy/__init__.py": "",
    "levy/rules.py": """\
        from dataclasses import dataclass
        from typing import AbstractSet, FrozenSet


        @dataclass(frozen=True)
        class RegimeRules:
            allowed_deductions: frozenset[str]
            exempt_codes: AbstractSet[str]
            capped_sections: "frozenset[str]"
            senior_sections: FrozenSet[str]
        """,
    "levy/compute.py": """\
        from .rules import RegimeRules


        def relief(claimed: int, age: int, rules: RegimeRules) -> int:
            claims = {"section_80c": claimed, "section_80d": claimed // 2}
            kept = 0
            for section, amount in claims.items():
                allowed = section in rules.allowed_deductions
                exempt = section in rules.exempt_codes
                capped = section in rules.capped_sections
                senior = section in rules.senior_sections and age >= 60
                if allowed and not exempt:
                    kept += min(amount, 150000) if capped else amount
                    kept += 50000 if senior else 0
            return kept + (50000 if age >= 60 else 10000)
        """,
}


def test_sets_by_their_annotation_are_collections(tmp_path: Path) -> None:
    model = model_in_package(tmp_path, RULES, "levy/compute.py", "relief")
    found = pools(model)
    sets = ("allowed_deductions", "exempt_codes", "capped_sections", "senior_sections")
    for field in sets:
        assert all(isinstance(v, list) for v in found[f"rules.{field}"]), found[f"rules.{field}"]
    function = scan_in_package(tmp_path, "levy/compute.py", "relief")
    assert function.status == "biased", (function.status, function.reason)


# Records that take their fields, or their kind, from a class of the project they derive
# from: opie-engine's `IllustrationRequest(StrictBaseModel)`, where `StrictBaseModel(BaseModel)`
# only sets the model config, handed on whole to rules that read its `issue_age`; a person's
# fields declared once on a base dataclass.
INHERITED = {
    "cover/__init__.py": "",
    "cover/base.py": """\
        from dataclasses import dataclass

        from pydantic import BaseModel, ConfigDict


        class StrictModel(BaseModel):
            model_config = ConfigDict(extra="forbid")


        @dataclass
        class Person:
            age: int
            sex: str
        """,
    "cover/models.py": """\
        from dataclasses import dataclass

        from .base import Person, StrictModel


        class QuoteRequest(StrictModel):
            issue_age: int
            cover: int


        @dataclass
        class Applicant(Person):
            income: int
        """,
    "cover/rules.py": """\
        from .models import Applicant, QuoteRequest

        LOADINGS = {"term": lambda request: 2 if request.issue_age >= 60 else 1}
        CHECKS = [lambda a: a.income > 1000, lambda a: a.age < 70]


        def premium(request: QuoteRequest, product: str = "term") -> int:
            return request.cover * LOADINGS[product](request)


        def eligible(applicant: Applicant) -> bool:
            return all(check(applicant) for check in CHECKS)
        """,
}


def test_a_record_class_deriving_from_a_project_class_has_its_kind_and_fields(
    tmp_path: Path,
) -> None:
    request = model_in_package(tmp_path, INHERITED, "cover/rules.py", "premium")
    assert "request.issue_age" in pools(request)
    applicant = model_in_package(tmp_path, INHERITED, "cover/rules.py", "eligible")
    assert {"applicant.age", "applicant.sex", "applicant.income"} <= set(pools(applicant))
    proved = {
        name: [f.attribute for f in scan_in_package(tmp_path, "cover/rules.py", name).findings]
        for name in ("premium", "eligible")
    }
    assert proved == {"premium": ["age"], "eligible": ["age"]}
