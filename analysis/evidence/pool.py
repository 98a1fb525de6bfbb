"""The values tried for a protected leaf found inside a recorded call. Values of the recorded
value's own kind only: a number stays a number (a whole number stays whole), a flag a flag,
a date a date, text stays text in the spelling the recording used ("Male" recorded: "Female"
tried, not "female"; "M" recorded: "F"; "1" recorded: other codes; an enum member: the other
members of its enum). They come from the code (the values the builder finds for the same
name: thresholds and their neighbours, compared strings), then the policy's realistic values
and its other values of the category; a `Literal[...]` field declares its values, and only
those run. The recorded value itself comes first: it is the base.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from analysis.evidence.described import EnumValue, Scalar
from analysis.inputs.pools import AGE_BAND, age_bands, dedupe
from analysis.values import DateValue, EnumMember, is_number
from config.policy import Category

MAX_RECORDED_POOL = 16
# A birth date moved by so many years, either way: ages across the adult range, and the
# next one (a rule on every fifth birthday sees none of the others).
YEARS_APART = (1, 5, 10, 20, 30, 40, 50)
FIRST_YEAR = 1900  # the earliest year of birth a recorded number is read as
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class RecordedPool:
    values: list[Any]  # the recorded value first
    from_code: int  # how many values after the first come from the code
    declared: tuple[Any, ...] = ()


def recorded_pool(
    recorded: Scalar | EnumValue, code: list[Any], peers: list[Any], spec: Category
) -> RecordedPool:
    """The values to try where `recorded` was, from `code` (the builder's values from the
    code for the same name), `peers` (what the other rows of its column, the other items of
    its list, were recorded with: the codes a data set uses) and the category's `spec`."""
    if isinstance(recorded, EnumValue):
        # Members of the recorded value's own enum, built as such in the sandbox: an output
        # that stores the member echoes it, and is masked as one.
        members = dedupe([recorded.member, *recorded.members])[:MAX_RECORDED_POOL]
        return RecordedPool([EnumMember(recorded.type_name, m) for m in members], 0)
    code = [*code, *peers]
    policy_values = [*spec.realistic, *spec.values]
    if recorded.kind in ("int", "float"):
        return numbers(recorded, code, policy_values, spec)
    if recorded.kind == "bool":
        return RecordedPool([recorded.value, not recorded.value], 0)
    if recorded.kind in ("date", "datetime"):
        return dates(recorded, code)
    if recorded.kind == "str":
        return texts(recorded, code, policy_values)
    # Recorded as None: nothing says its kind; the code's values and the policy's.
    return RecordedPool(dedupe([None, *code, *spec.realistic])[:MAX_RECORDED_POOL], len(code))


def numbers(recorded: Scalar, code: list[Any], policy: list[Any], spec: Category) -> RecordedPool:
    whole = recorded.kind == "int"
    low, high = spec.minimum, spec.maximum
    if birth_year(recorded, policy):
        # An age carried as the year of birth (`dob_year`: 1950 recorded): the policy's ages
        # as years, and the code's years (`< 1960`) kept, not dropped as ages past 120.
        this_year = datetime.date.today().year
        policy = [this_year - int(age) for age in policy if is_number(age)]
        low, high = FIRST_YEAR, this_year

    def fit(values: list[Any]) -> list[Any]:
        out: list[Any] = []
        for value in values:
            if not is_number(value):
                continue
            if low is not None and value < low:
                continue
            if high is not None and value > high:
                continue
            if whole:
                if float(value).is_integer():
                    out.append(int(value))
            else:
                out.append(float(value))
        return out

    from_code = fit(code)
    values = dedupe([recorded.value, *from_code, *spread(fit(policy))])
    return RecordedPool(values[:MAX_RECORDED_POOL], len(dedupe(from_code)))


def birth_year(recorded: Scalar, policy: list[Any]) -> bool:
    """Whether a recorded number of a category of numbers (ages) is a year of birth: past
    every value of the category, and a year that has been."""
    value = recorded.value
    ages = [v for v in policy if is_number(v)]
    if not ages or not is_number(value) or not float(value).is_integer():
        return False
    return bool(max(ages) < FIRST_YEAR <= value <= datetime.date.today().year)


def spread(numbers: list[Any], count: int = 6) -> list[Any]:
    """A few of the policy's numbers across their range, the least and the greatest first:
    one recorded call runs every value once, so a handful spanning the range does."""
    ordered = sorted(set(numbers))
    if len(ordered) <= count:
        return ordered
    picked = [ordered[0], ordered[-1]]
    step = (len(ordered) - 1) / (count - 1)
    picked += [ordered[round(i * step)] for i in range(1, count - 1)]
    return picked


def dates(recorded: Scalar, code: list[Any]) -> RecordedPool:
    try:
        day = datetime.date.fromisoformat(str(recorded.value)[:10])
    except ValueError:
        return RecordedPool([DateValue(str(recorded.value)[:10])], 0)
    from_code = [v for v in code if isinstance(v, DateValue)]
    moved = [DateValue(other.isoformat()) for other in years_apart(day)]
    values = dedupe([DateValue(day.isoformat()), *from_code, *moved])
    return RecordedPool(values[:MAX_RECORDED_POOL], len(from_code))


def years_apart(day: datetime.date) -> list[datetime.date]:
    """The same day of the year, YEARS_APART earlier and later, up to today: a birthday
    the recorded call was made on (`today=date(2026, 5, 28)`) stays a birthday."""
    moved = []
    for years in YEARS_APART:
        for sign in (-1, 1):
            try:
                other = day.replace(year=day.year + sign * years)
            except ValueError:  # 29 February
                other = day.replace(year=day.year + sign * years, day=28)
            if datetime.date(FIRST_YEAR, 1, 1) <= other <= datetime.date.today():
                moved.append(other)
    return moved


def date_texts(value: str) -> RecordedPool | None:
    """A date recorded as ISO text (a CSV's `DateOfBirth` cell): the same text moved by
    whole years, the rest of it (a time) kept."""
    if not ISO_DAY.fullmatch(value[:10]):
        return None
    try:
        day = datetime.date.fromisoformat(value[:10])
    except ValueError:
        return None
    moved = [other.isoformat() + value[10:] for other in years_apart(day)]
    return RecordedPool(dedupe([value, *moved])[:MAX_RECORDED_POOL], 0)


def texts(recorded: Scalar, code: list[Any], policy: list[Any]) -> RecordedPool:
    value = str(recorded.value)
    as_date = date_texts(value)
    if as_date is not None:
        return as_date
    ages = [v for v in policy if is_number(v)]
    if ages and AGE_BAND.fullmatch(value.strip()):
        # An age recorded as its band ("30-39"): the bands of the policy's ages, so written.
        bands = age_bands(ages, value)
        return RecordedPool(dedupe([value, *bands])[:MAX_RECORDED_POOL], 0)
    if recorded.choices:
        declared = tuple(c for c in recorded.choices if isinstance(c, str))
        return RecordedPool(dedupe([value, *declared])[:MAX_RECORDED_POOL], 0, declared)
    style = spelling(value)
    from_code = [v for v in code if isinstance(v, str) and spelling(v).kind == style.kind]
    restyled = [style.apply(v) for v in [*from_code, *policy] if isinstance(v, str)]
    fitting = [v for v in restyled if spelling(v).kind == style.kind]
    values = dedupe_spelling([value, *from_code, *fitting])
    return RecordedPool(values[:MAX_RECORDED_POOL], len(dedupe_spelling(from_code)))


@dataclass(frozen=True)
class Spelling:
    kind: str  # "digits" (a code such as "1"), "letter" ("M"), "words"
    case: str  # "upper", "lower", "title", "capitalized", "mixed"

    def apply(self, text: str) -> str:
        if self.case == "upper":
            return text.upper()
        if self.case == "lower":
            return text.lower()
        if self.case == "title":
            return text.title()
        if self.case == "capitalized":
            # "non-binary" as "Non-binary"; "Native American" stays as it is written
            return text if text[:1].isupper() else text[:1].upper() + text[1:]
        return text


def spelling(text: str) -> Spelling:
    stripped = text.strip()
    if stripped.isdigit():
        kind = "digits"
    elif len(stripped) == 1 and stripped.isalpha():
        kind = "letter"
    else:
        kind = "words"
    if stripped.isupper():
        case = "upper"
    elif stripped.islower():
        case = "lower"
    elif " " in stripped and stripped.istitle():
        case = "title"
    elif stripped[:1].isupper() and stripped[1:] == stripped[1:].lower():
        case = "capitalized"
    else:
        case = "mixed"
    return Spelling(kind, case)


def dedupe_spelling(values: list[str]) -> list[str]:
    """Each value once, whatever its case: "Female" and "female" are one person."""
    seen: set[str] = set()
    out = []
    for value in values:
        key = value.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(value)
    return out


def around(recorded: Scalar | EnumValue, code: list[Any]) -> RecordedPool:
    """The values tried for another input of a recorded call: a flag flipped, an enum's
    other members, a number moved (around_number). A bias may show only when another
    input is otherwise: a church tax only when it is due, a cap only past a premium."""
    if isinstance(recorded, EnumValue):
        members = dedupe([recorded.member, *recorded.members])[:MAX_RECORDED_POOL]
        return RecordedPool([EnumMember(recorded.type_name, m) for m in members], 0)
    if recorded.kind == "bool":
        return RecordedPool([recorded.value, not recorded.value], 0)
    return around_number(recorded.value, code)


def around_number(recorded: int | float, code: list[Any]) -> RecordedPool:
    """The values tried for a number of another input of a recorded call (an income, a
    premium): the code's own for its name (the thresholds it compares with), then the
    recorded value doubled, times ten and halved, and none. A bias may show only past a
    threshold of another input (a cap on a deduction that an older person has higher),
    where the test's values did not go. A whole number stays whole."""
    whole = isinstance(recorded, int)
    # In whole numbers' own arithmetic: num2words' tests pass 10**400, past any float.
    scaled = [recorded * 2, recorded * 10, recorded // 2 if whole else recorded / 2]
    found = [v for v in code if is_number(v) and not isinstance(v, bool)]
    found = [int(v) if whole and isinstance(v, float) and v.is_integer() else v for v in found]
    values = dedupe([recorded, *found, *scaled, 0])[:MAX_RECORDED_POOL]
    return RecordedPool(values, min(len(found), len(values) - 1))
