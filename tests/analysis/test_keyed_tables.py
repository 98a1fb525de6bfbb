"""Tables read by a key the person's input gives (`rates[state]`, a `dict[str, Params]` of
provinces): the same item under every key, so the key alone changes only what the code itself
does with it. With them, the inputs a payroll takes: Decimals where declared, and a walk past
a division by every zero of a record of rates at once."""

from __future__ import annotations

from analysis_kit import leaf, model_of, verdict

from analysis.search.working_base import zeros_moved
from analysis.shapes import KeyedShape, Leaf

PAYROLL = """
from dataclasses import dataclass, field


@dataclass
class Params:
    rate: float = 0.1
    credit: float = 100.0


@dataclass
class Tables:
    provinces: dict[str, Params] = field(default_factory=dict)


def tax(income: float, state: str, rates: dict) -> float:
    return income * rates[state]


def payroll(income: float, province: str, tables: Tables) -> float:
    params = tables.provinces[province]
    owed = income * params.rate - params.credit
    if province == "ON":
        owed += 50
    return owed


def allowance(sex, allowances):
    row = allowances[sex.lower()]
    return row["base"] + (10 if sex == "female" else 0)
"""


def test_a_table_read_by_the_person_s_key_holds_one_item_under_every_key() -> None:
    model = model_of(PAYROLL, "tax")
    rates = next(p for p in model.params if p.name == "rates")
    assert isinstance(rates.shape, KeyedShape)
    # What the caller's table holds for each state is data: the same everywhere, no bias.
    assert verdict(PAYROLL, "tax").status == "clean"


def test_the_code_s_own_treatment_of_the_key_shows() -> None:
    report = verdict(PAYROLL, "payroll")
    assert report.status == "biased", report.reason
    assert [f.attribute for f in report.findings] == ["region"]


def test_the_item_is_a_record_of_what_is_read_from_it() -> None:
    model = model_of(PAYROLL, "allowance")
    table = next(p for p in model.params if p.name == "allowances")
    assert isinstance(table.shape, KeyedShape)
    assert [lf.display for lf in table.shape.leaves()] == ["allowances['*']['base']"]
    report = verdict(PAYROLL, "allowance")
    assert report.status == "biased" and [f.attribute for f in report.findings] == ["gender"]


def test_a_column_s_name_is_no_person_s_key() -> None:
    source = "def pick(row, sex_col):\n    return row[sex_col] == 'F'\n"
    row = next(p for p in model_of(source, "pick").params if p.name == "row")
    assert not isinstance(row.shape, KeyedShape)


DECIMALS = """
from dataclasses import dataclass
from decimal import Decimal


@dataclass
class Rates:
    base: Decimal
    cap: Decimal


def premium(age: int, rates: Rates) -> Decimal:
    amount = rates.base * (Decimal("1.5") if age > 65 else Decimal(1))
    return min(amount, rates.cap)
"""


def test_a_number_declared_a_decimal_is_handed_over_as_one() -> None:
    assert leaf(model_of(DECIMALS, "premium"), "rates.base").decimal
    report = verdict(DECIMALS, "premium")
    assert report.status == "biased", report.reason


def test_a_division_by_zero_moves_every_amount_at_zero_at_once() -> None:
    # A record of rates built at zero divides by several of them: moving one at a time only
    # meets the next division (the same error, no step forward).
    def amount(name: str, protected: bool = False) -> Leaf:
        category = "age" if protected else None
        return Leaf((("param", name),), name, name, [0.0, 0.5, 1000.0], category)

    ceiling, periods, paid, age = (
        amount("ceiling"),
        amount("periods"),
        amount("paid"),
        amount("age", protected=True),
    )
    current = {ceiling.path: 0.0, periods.path: 0.0, paid.path: 1000.0, age.path: 0.0}
    leaves = [ceiling, periods, paid, age]
    error = "ZeroDivisionError: float division by zero"
    assert zeros_moved(leaves, current, error) == [((ceiling, 0.5), (periods, 0.5))]
    undefined = "InvalidOperation: [<class 'decimal.DivisionUndefined'>]"
    assert zeros_moved(leaves, current, undefined) == [((ceiling, 0.5), (periods, 0.5))]
    assert zeros_moved(leaves, current, "ValueError: rate must be positive") == []


def test_a_pay_rests_on_an_ordinary_pay_not_the_code_s_boundary() -> None:
    source = (
        "def net(gross_pay, region):\n"
        "    if gross_pay < 0:\n"
        "        return 0\n"
        "    return gross_pay\n"
    )
    gross = leaf(model_of(source, "net"), "gross_pay")
    assert gross.pool[gross.typical] == 30000.0
