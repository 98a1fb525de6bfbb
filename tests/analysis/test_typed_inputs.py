"""An input whose annotation says what it holds gets values of that type, never made-up ones
that make every call raise: records too deep to build (past the builder's depth limit) are
an empty list of them, the one list of its type that needs none (made-up items, `[1, 10]`,
fail where the code reads `component.taxable`: india-tax-guru's salary components, in a
salary in a list of the profile)."""

from __future__ import annotations

from pathlib import Path

from analysis_kit import model_in_package, pools, scan_in_package

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
        class Profile:
            other_income: int
            age: int = 40
            salaries: list[SalaryIncome] = field(default_factory=list)
        """,
    "pay/tax.py": """\
        from .models import Profile


        def taxable_salary(profile: Profile) -> int:
            gross = profile.other_income + sum(
                c.annual_amount for s in profile.salaries for c in s.components if c.taxable
            )
            deduction = 75000 if profile.age >= 60 else 50000
            return max(0, gross - deduction) + 1000
        """,
}


def test_a_list_of_records_too_deep_to_build_is_empty(tmp_path: Path) -> None:
    model = model_in_package(tmp_path, PAYROLL, "pay/tax.py", "taxable_salary")
    assert pools(model)["profile.salaries[0].components"] == [[]]
    function = scan_in_package(tmp_path, "pay/tax.py", "taxable_salary")
    assert function.status == "biased", (function.status, function.reason)

