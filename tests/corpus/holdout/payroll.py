"""Payroll: net pay, overtime, leave and payslips for a mid-sized employer."""

import functools
import logging
from typing import NamedTuple

log = logging.getLogger("payroll")

STATE_PENSION_AGE = 67
AUDIT_TRAIL: list[str] = []
OVERTIME_MULTIPLIER = {"nurse": 1.5, "driver": 1.5, "cleaner": 1.25}


# expect: skipped
def audited(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        AUDIT_TRAIL.append(fn.__name__)
        return fn(*args, **kwargs)

    return wrapper


class Employee(NamedTuple):
    employee_id: int
    name: str
    age: int
    Sex: str
    jobTitle: str
    salary: float
    tenure_years: int


# expect: skipped
def gross_to_net(gross: float, tax_rate: float, pension_rate: float = 0.05) -> float:
    return round(gross * (1 - tax_rate - pension_rate), 2)


# expect: biased[age] attrs=[age]
@audited
def pension_contribution(gross: float, age: int) -> float:
    # no contributions are taken once the employee has reached state pension age
    if age >= STATE_PENSION_AGE:
        return 0.0
    return round(gross * 0.05, 2)


# expect: biased[occupation] attrs=[occupation]
def overtime_pay(hours: float, hourly_rate: float, jobTitle: str) -> float:
    extra = max(0.0, hours - 40)
    multiplier = OVERTIME_MULTIPLIER.get(jobTitle.lower(), 1.0)
    return round(extra * hourly_rate * multiplier, 2)


# expect: clean attrs=[age]
def holiday_pay(days: int, daily_rate: float, age: int) -> float:
    log.info("holiday pay requested for an employee aged %s", age)
    return days * daily_rate


# expect: biased[gender] attrs=[gender]
def parental_leave_weeks(is_female: bool, children_under_one: int, tenure_years: int) -> int:
    if children_under_one == 0:
        return 0
    if is_female:
        return 26 if tenure_years >= 1 else 18
    return 2


# expect: clean
def payslip(employee: Employee, period: str) -> dict:
    return {
        "period": period,
        "employee": employee.name,
        "job": employee.jobTitle,
        "gross": round(employee.salary / 12, 2),
    }


# expect: biased[gender, age]
def bonus(employee: Employee, rating: int) -> float:
    base = employee.salary * 0.02 * rating
    # "loyalty" bonus, as the old spreadsheet computed it
    if employee.Sex.upper().startswith("M") and employee.tenure_years > 5:
        base *= 1.1
    return round(base - max(0, employee.age - 55) * 40, 2)


# expect: clean attrs=[age, gender]
def tax_code(annual_allowance: int, *, age: int, sex: str = "unspecified") -> str:
    if not isinstance(age, int) or age < 0:
        raise ValueError("age must be a non-negative integer")
    if not isinstance(sex, str) or not sex.strip():
        raise ValueError("sex must be a non-empty string")
    return f"{annual_allowance // 10}L"
