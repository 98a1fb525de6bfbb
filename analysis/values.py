"""Values the engine tries that are more than JSON: enum members and dates of the module
under test, built inside the sandbox; and numeric thresholds with their neighbours."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

MISSING = object()


class Absent:
    """A key or attribute left out of the record that holds it: a call that gets past its
    check without it (`financial_health_check(**args)` takes no `cashflows`, which the
    function reads only `if "cashflows" in args`; search/working_base.py dropped_moves)."""

    def __repr__(self) -> str:
        return "<absent>"

    def __copy__(self) -> Absent:
        return self  # one of it: found by `is`

    def __deepcopy__(self, memo: dict[int, Any]) -> Absent:
        return self

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT = Absent()


class Choices(tuple):  # type: ignore[type-arg]
    """The values a `Literal[...]` allows, kept as a module's constant when a name is given
    to it (`Identity = Literal["category1", "migrantGeneral"]`): fields annotated with the
    name take those values."""


@dataclass(frozen=True)
class EnumMember:
    """A member of an Enum class of the module under test, by name."""

    cls: str
    member: str

    def __repr__(self) -> str:
        return f"{self.cls}.{self.member}"


@dataclass(frozen=True)
class DateValue:
    """A calendar date, built as datetime.date inside the sandbox."""

    iso: str

    def __repr__(self) -> str:
        return f"date({self.iso})"


@dataclass(frozen=True)
class AgeFrame:
    """A DataFrame looked up by age (`table.query(f"x=={x}")["lx"]`): a row per year of age
    in the `age` column, each other column a table falling with age (inputs/age_tables.py);
    built as a pandas DataFrame inside the sandbox."""

    age: str
    columns: tuple[tuple[str, tuple[float, ...]], ...]

    def encoded(self) -> dict[str, Any]:
        years = list(range(len(self.columns[0][1]))) if self.columns else []
        return {
            "__cb__": "frame",
            "columns": {self.age: years, **{name: list(cells) for name, cells in self.columns}},
        }

    def __repr__(self) -> str:
        names = ", ".join(name for name, _ in self.columns)
        rows = len(self.columns[0][1]) if self.columns else 0
        return f"<table of {rows} ages: {self.age}, {names}>"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def value_kind(value: Any) -> str:
    """What kind of value a protected value is: a witness swaps a value only for one of the
    same kind (a region code 2 for 3, "urban" for "rural"; never 2 for "urban")."""
    if isinstance(value, bool):
        return "flag"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "text"
    return type(value).__name__  # a date, an enum member, a list


def as_int(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def neighbours(value: Any) -> list[Any]:
    """A numeric threshold and the values on either side of it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return [value]
    if isinstance(value, int):
        return [value - 1, value, value + 1]
    if not math.isfinite(value):
        return [value]
    step = 10 ** (math.floor(math.log10(abs(value))) - 2) if value else 0.01
    return [round(value - step, 10), value, round(value + step, 10)]
