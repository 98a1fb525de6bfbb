"""Echoes that masking cannot see. Dates echoed at a fixed distance: `birth_date +
timedelta(days=prematurity)` moves with the birth date, day for day. Two outputs that differ
only in dates, each moved by exactly as many days as the protected date was, are the same
answer about two people (the attribute in another form, as an echo is), not a decision that
treats them differently (a day kept beside it, the day measured, stays the same); so are two
numbers moved as far as the protected numbers (an age carried forward by the years passed). A value
kept as its enum's member (`Sex(sex)` shows `Sex.MALE` for "male") is an echo too, and so is
the band that holds the age (`'20-29'` for 29, `'30-39'` for 30: an age bucket), and the age a
birth date gives (40 for 1986-05-28, 41 for a year earlier). And echoes
beside a coincidence: a calculator that keeps age 45 next
to a sum of skinfolds of 45 shows two 45s, where age 41 shows one; the masked outputs differ,
yet the first output with 41 written as 45 is the second."""

from __future__ import annotations

import datetime
import re
from typing import Any

from analysis.execution.harness.output import whole
from analysis.values import DateValue, is_number

DATE_REPR = re.compile(r"datetime\.date\((\d{1,4}), (\d{1,2}), (\d{1,2})\)|(\d{4})-(\d{2})-(\d{2})")


def as_date(value: Any) -> datetime.date | None:
    text = value.iso if isinstance(value, DateValue) else value
    if not isinstance(text, str):
        return None
    try:
        return datetime.date.fromisoformat(text[:10])
    except ValueError:
        return None


def dates_in(text: str) -> tuple[list[datetime.date], str]:
    """The dates a text shows, and the text with each replaced by a marker."""
    found: list[datetime.date] = []

    def keep(match: re.Match[str]) -> str:
        parts = [int(p) for p in match.groups() if p is not None]
        try:
            found.append(datetime.date(*parts))
        except ValueError:
            return match.group(0)
        return "<date>"

    return found, DATE_REPR.sub(keep, text)


def shifted_echo(value_a: Any, value_b: Any, output_a: str, output_b: str) -> bool:
    """Whether two outputs differ only by dates moved as far as the protected dates were."""
    a, b = as_date(value_a), as_date(value_b)
    if a is None or b is None or a == b:
        return False
    dates_a, rest_a = dates_in(output_a)
    dates_b, rest_b = dates_in(output_b)
    if not dates_a or rest_a != rest_b or len(dates_a) != len(dates_b):
        return False
    # The dates the value moved move with it, by as many days or as many whole months (a
    # year later across a 29 February); the others (the day measured) stay.
    shift, months = a - b, months_apart(a, b)
    moved = [
        x - y == shift or (months is not None and months_apart(x, y) == months)
        for x, y in zip(dates_a, dates_b, strict=True)
    ]
    return any(moved) and all(m or x == y for m, x, y in zip(moved, dates_a, dates_b, strict=True))


def aged_echo(value_a: Any, value_b: Any, output_a: str, output_b: str) -> bool:
    """Whether two outputs differ only in ages the protected dates give: numbers each the
    time from its birth date to one same day of these decades, in years, months or days
    (40 for 1986-05-28 and 41 for a year earlier, as of 2026; 23 for 1996-06-15 and -7 for
    2026-08-29 on a day of 2019 the caller names). The date in another form, not a decision
    about it; a point that steps from 0 to 1 between two birth dates a year apart gives no
    such day."""
    a, b = as_date(value_a), as_date(value_b)
    if a is None or b is None or a == b:
        return False
    numbers_a, rest_a = numbers_in(output_a)
    numbers_b, rest_b = numbers_in(output_b)
    if rest_a != rest_b or len(numbers_a) != len(numbers_b):
        return False
    changed = [(x, y) for x, y in zip(numbers_a, numbers_b, strict=True) if x != y]
    return bool(changed) and all(counted_to_one_day(x, a, y, b) for x, y in changed)


# How far from today the day an age is counted to may be (a test's fixed `today`, the day a
# projection ends): an age of 1 from a birth date in 1961 is counted to no day of these.
AGE_DAY_SPAN = 30 * 366


def counted_to_one_day(x: float, a: datetime.date, y: float, b: datetime.date) -> bool:
    """Whether `x` and `y` are the ages, in whole years, months or days, of people born on
    `a` and `b` on one same day: near today, or any day when the ages are two or more apart
    (a step of a point, 0 to 1, falls on a day for any two birth dates a year apart). Negative
    for a birth date after that day, as code that subtracts writes it."""
    if not (x.is_integer() and y.is_integer()) or max(abs(x), abs(y)) > 150 * 366:
        return False
    today = datetime.date.today()
    for unit in ("years", "months", "days"):
        span_a, span_b = aged_days(a, int(x), unit), aged_days(b, int(y), unit)
        if span_a is None or span_b is None:
            continue
        first, last = max(span_a[0], span_b[0]), min(span_a[1], span_b[1])
        near = abs((first - today).days) <= AGE_DAY_SPAN
        if first < last and (near or abs(x - y) >= 2):
            return True
    return False


def aged_days(
    birth: datetime.date, age: int, unit: str
) -> tuple[datetime.date, datetime.date] | None:
    """The days on which someone born on `birth` is `age` years, months or days old (the
    first, and the first after), or None past the calendar."""
    try:
        if unit == "days":
            day = birth + datetime.timedelta(days=age)
            return day, day + datetime.timedelta(days=1)
        step = 12 if unit == "years" else 1
        return months_after(birth, age * step), months_after(birth, (age + 1) * step)
    except (OverflowError, ValueError):
        return None


def months_after(day: datetime.date, months: int) -> datetime.date:
    """The same day `months` later (the month's last day when it has fewer: 29 February a
    year on is 28 February, as a birthday is kept)."""
    total = day.year * 12 + day.month - 1 + months
    year, month = divmod(total, 12)
    for day_of_month in range(day.day, 27, -1):  # 31, 30, 29: as many as the month has
        try:
            return datetime.date(year, month + 1, day_of_month)
        except ValueError:
            continue
    return datetime.date(year, month + 1, min(day.day, 28))


def months_apart(a: datetime.date, b: datetime.date) -> int | None:
    """How many whole months `a` is after `b` (None when their days of the month differ)."""
    return (a.year - b.year) * 12 + a.month - b.month if a.day == b.day else None


def moved_numbers(values: list[Any], outputs: list[str]) -> bool:
    """Whether every output is its protected number moved by one same distance, over three
    values or more: `issue_age + (month - 1) // 12`, the insured's attained age, is the age
    carried forward (the attribute in another form, as a date moved with a birth date is),
    not a decision. Two values cannot tell: a point added at 65 moves 64's 0 to 65's 1. The
    numbers of a list or a table move alike, each by its own distance, or stay: the ages of
    a projection from the starting age (`[30, 31, 32]` from 30, `[45, 46, 47]` from 45)."""
    if not all(is_number(v) for v in values) or len(set(values)) < 3:
        return False  # (values of other kinds may be lists: unhashable)
    read = [numbers_in(out) for out in outputs]
    shapes = {rest for _, rest in read}
    counts = {len(numbers) for numbers, _ in read}
    if len(shapes) != 1 or counts == {0} or len(counts) != 1:
        return False
    moved_any = False
    for position in zip(*(numbers for numbers, _ in read), strict=True):
        moved = {round(n - float(v), 9) for v, n in zip(values, position, strict=True)}
        if len(moved) == 1:
            moved_any = moved_any or moved != {0.0} or len(position) > 1
        elif len(set(position)) != 1:
            return False  # neither moved with the value nor the same for all
    return moved_any


NUMBER = re.compile(r"(?<![\w.'\"])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.'\"])")


def numbers_in(text: str) -> tuple[list[float], str]:
    """The numbers an output shows (not inside a name or a quoted text), and the output with
    each replaced by a marker."""
    found: list[float] = []

    def keep(match: re.Match[str]) -> str:
        found.append(float(match.group(0)))
        return "<n>"

    return found, NUMBER.sub(keep, text)


# Any number an output writes, quoted ones too (a band is often text: '20-29').
ANY_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# What stands between a band's two bounds: "20-29", "20 to 29", "(20, 29)", "20..29".
BAND_JOINT = re.compile(r"\s*(?:-|–|—|to|,|\.\.\.?|…)\s*")
NUM = r"\d+(?:\.\d+)?"
# A band as text writes it, or a number alone: closed ("20-29", "20 to 29"), open above
# ("70+", "65 and over", ">44") or below ("under 18", "<18", "U17": an athletics age group).
BAND = re.compile(
    rf"(?P<low>{NUM})\s*(?:-|–|—|_|to|\.\.\.?|…)\s*(?P<high>{NUM})"
    rf"|(?P<over>{NUM})\s*(?:\+(?![\d+])|and over\b|and above\b|and older\b|or over\b"
    r"|or older\b|or above\b|plus\b)"
    rf"|(?:(?<![\w.])(?:over|above)\s+|>=?\s*|≥\s*)(?P<above>{NUM})"
    rf"|(?:(?<![\w.])(?:under|below|less than)\s*|<\s*|(?<![\w.])U-?)(?P<under>{NUM})"
    rf"|(?P<number>{NUM})",
    re.IGNORECASE,
)


def banded_echo(value_a: Any, value_b: Any, output_a: str, output_b: str) -> bool:
    """Whether two outputs differ only in bands (and echoes) that hold each output's own
    value: the age in another form (its bucket: '60-69' for 69, '70+' for 70), not a decision
    about it. A price, a score or a time that changes beside it is one."""
    if not (is_number(value_a) and is_number(value_b)) or value_a == value_b:
        return False
    return bounds_side_by_side(value_a, value_b, output_a, output_b) or bands_hold(
        float(value_a), float(value_b), output_a, output_b
    )


def bounds_side_by_side(value_a: Any, value_b: Any, output_a: str, output_b: str) -> bool:
    """Two numbers changed, next to each other, each output's pair bracketing its value
    ("(60, 64.99)" for 64.5, "(65, 69.99)" for 65)."""
    found_a, found_b = list(ANY_NUMBER.finditer(output_a)), list(ANY_NUMBER.finditer(output_b))
    if len(found_a) != len(found_b):
        return False
    if ANY_NUMBER.sub("<n>", output_a) != ANY_NUMBER.sub("<n>", output_b):
        return False
    changed = [i for i, (x, y) in enumerate(zip(found_a, found_b, strict=True)) if x[0] != y[0]]
    if len(changed) != 2 or changed[1] != changed[0] + 1:
        return False

    def holds(found: list[re.Match[str]], text: str, value: float) -> bool:
        first, second = found[changed[0]], found[changed[1]]
        low, high = float(first[0]), float(second[0])
        joint = BAND_JOINT.fullmatch(text[first.end() : second.start()]) is not None
        return joint and low <= value <= high <= 10 * max(abs(value), 10) and low < high

    return holds(found_a, output_a, float(value_a)) and holds(found_b, output_b, float(value_b))


def bands_hold(value_a: float, value_b: float, output_a: str, output_b: str) -> bool:
    """Outputs alike but for bands, open or closed, each holding its output's value, and the
    value itself: `{'age': 69, 'group': '60-69'}` against `{'age': 70, 'group': '70+'}`,
    `'F0_34'` against `'F35_44'`, and `'AGE0_MALE'` against `'AGE1_MALE'` (a number in a
    name, which masking, reading whole words, leaves)."""
    found_a, found_b = list(BAND.finditer(output_a)), list(BAND.finditer(output_b))
    if len(found_a) != len(found_b) or BAND.sub("<b>", output_a) != BAND.sub("<b>", output_b):
        return False
    changed = [(x, y) for x, y in zip(found_a, found_b, strict=True) if x[0] != y[0]]
    return bool(changed) and all(
        holds_value(x, value_a) and holds_value(y, value_b) for x, y in changed
    )


def holds_value(band: re.Match[str], value: float) -> bool:
    """Whether a band (or a number) holds `value`, its bounds near it: "20-29" holds 29,
    "70+" 70 and over, "under 18" and "U18" below 18, "30" only 30."""
    reach = 10 * max(abs(value), 10)
    if band["number"] is not None:
        return float(band["number"]) == value
    if band["over"] is not None:
        return 1 <= float(band["over"]) <= value
    if band["above"] is not None:  # ">44" holds 45, as "45+" does
        return 1 <= float(band["above"]) <= value
    if band["under"] is not None:
        return value < float(band["under"]) <= reach
    low, high = float(band["low"]), float(band["high"])
    return low <= value <= high <= reach and low < high


def swapped_echo(value_a: Any, value_b: Any, output_a: str, output_b: str) -> bool:
    """Whether output A, with every spelling of value A written as value B's, is output B."""
    pairs = spelling_pairs(value_a, value_b)
    if not pairs or output_a == output_b:
        return False
    text = member_echo(value_a, value_b, output_a)
    for before, after in pairs:
        text = re.sub(whole(before, is_number(value_a)), after, text)  # as masking reads it
    return text == output_b


def spelling_pairs(a: Any, b: Any) -> list[tuple[str, str]]:
    """How A and B read in outputs, side by side, longest first ("41.0" before "41")."""
    if is_number(a) and is_number(b):
        if isinstance(a, float) or isinstance(b, float):
            # 41.5 reads as "41.5" and "41.50" in text a function writes; in a value the
            # harness writes (a table's cell, a list's item), as canonical() writes it.
            return [(canonical_float(a), canonical_float(b))]
        return [*((f"{a:.{d}f}", f"{b:.{d}f}") for d in (3, 2, 1)), (str(a), str(b))]
    if isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip():
        return [(a, b)]
    return []


def canonical_float(number: float) -> str:
    """A number as the harness writes it in an output (harness/output.py canonical)."""
    rounded = round(number, 9)
    return repr(int(rounded)) if float(rounded).is_integer() else repr(rounded)


def member_echo(value_a: Any, value_b: Any, text: str) -> str:
    """`text` with the enum member named as value A (`Sex.MALE` for "male": `Sex(sex)`
    keeps the input as its member) named as value B's."""
    if not (isinstance(value_a, str) and isinstance(value_b, str)):
        return text
    if not (value_a.isidentifier() and value_b.isidentifier()):
        return text
    return re.sub(rf"(?<=\.){re.escape(value_a.upper())}\b", value_b.upper(), text)
