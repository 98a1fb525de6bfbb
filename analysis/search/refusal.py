"""Refusal as a finding: a call that raises for a realistic protected value while another
realistic value, every other input the same, returns (issue "Real repositories 2/2").

Only values a real person has count (the category's `realistic:` values in the policy):
raising for a negative age, None, an empty string or an unknown spelling is validation.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from analysis.execution.harness.output import whole
from analysis.execution.process import Outcome
from analysis.search.shifted import as_date
from analysis.values import DateValue, EnumMember, is_number
from config.policy import Category, name_tokens

# Failures that say nothing about the value: the harness's own limits, a broken reply.
# InputError: a constructor of an argument raised (harness/runner.py), before the function ran.
NOT_REFUSALS = frozenset(
    {"TimeoutError", "MemoryError", "RecursionError", "malformed outcome", "InputError"}
)
ISO_DATE = re.compile(r"^(\d{4})-\d{2}-\d{2}")
# The interpreter's own complaints about a value of the wrong type, with the types they name:
# `'int' object is not callable`, `unsupported operand type(s) for +: 'int' and 'str'`.
TYPE_COMPLAINTS = frozenset({"TypeError", "AttributeError"})
NAMED_TYPES = re.compile(
    r"'(\w+)' object|non-iterable (\w+) object|type '(\w+)'|'(\w+)' and '(\w+)'"
    r"|instances of '(\w+)'|\(not \"(\w+)\"\)"
)


def refusal_error(outcome: Outcome) -> str | None:
    """The exception type a failed call raised, when that failure can be a refusal."""
    if outcome.ok or outcome.needs:
        return None
    kind = outcome.error.split(":")[0].strip()
    if not kind or kind in NOT_REFUSALS or not kind.isidentifier():
        return None
    return kind


def is_realistic(value: Any, category: str, spec: Category, pool: list[Any]) -> bool:
    """Whether `value` is one a real person of `category` may have (see module doc)."""
    listed = spec.realistic
    if isinstance(value, EnumMember):
        return True  # a member of the code's own enum: the code declares it a real value
    if isinstance(value, bool):
        # A flag (`is_female`) has two real values; True given as a gender is no gender.
        return all(isinstance(v, bool) for v in pool)
    if category == "age":
        value = as_age(value)
    if is_number(value):
        numbers = [float(v) for v in listed if is_number(v)]
        return bool(numbers) and min(numbers) <= float(value) <= max(numbers)
    if isinstance(value, str):
        # Any case: code that compares with "phd" still refuses a person with a PhD.
        return value.casefold() in {v.casefold() for v in listed if isinstance(v, str)}
    return False


def listed_spelling(value: Any, spec: Category) -> bool:
    """Whether a string is spelt exactly as the policy lists it ("female", not "Female")."""
    return isinstance(value, str) and value in {v for v in spec.realistic if isinstance(v, str)}


def as_age(value: Any) -> Any:
    """An age carried as a birth year, a date or an ISO date string, as years of age."""
    this_year = datetime.date.today().year
    if isinstance(value, DateValue):
        value = value.iso
    if isinstance(value, str):
        match = ISO_DATE.match(value)
        return this_year - int(match[1]) if match else value
    if is_number(value) and is_year(value):
        return this_year - int(value)
    return value


def about_another_input(
    error: str, refused: Any, others: list[Any], other_names: tuple[str, ...] = (), own: str = ""
) -> bool:
    """Whether an exception's message speaks of another input's value and not of the refused
    one: `The Body Mass Index measurement of 2 kg/m² is below -15 SD` validates the
    measurement against the person's reference, it does not refuse the person. Or of another
    input by its name of two words or more: "Diabetes age cannot be greater than current age"
    checks two inputs against each other (`diabetes_age`), no age alone. Or, when it names the
    refused input `own` by two words or more, of another by any name beside it: the same
    message refuses no `diabetes_age`, it compares it with `age`."""
    message = error.partition(":")[2]
    if named_in(message, other_names):
        return True
    if len(name_tokens(own)) >= 2:
        text = words_of(message)
        rest = name_pattern(own).sub(" ", text)
        if rest != text and named_in(rest, other_names, least=1):
            return True

    def mentions(value: Any) -> bool:
        if isinstance(value, bool) or value is None:
            return False
        if is_number(value):
            texts = {str(value), f"{value:g}"}
        elif isinstance(value, str) and len(value.strip()) >= 2:
            texts = {value}
        else:
            return False
        return any(re.search(whole(text, False), message) for text in texts)

    return not mentions(refused) and any(mentions(v) for v in others)


def wrong_kind_given(error: str, others: list[Any]) -> bool:
    """Whether a failure is the interpreter's complaint about a type that another input of
    the call has: `'int' object is not callable` where a made-up 1 stands for the strategy
    function a test would pass. The code never reached a decision about the person; which
    value of theirs met the stand-in first (an age that runs the loop once more) says
    nothing of them."""
    kind, _, message = error.partition(":")
    if kind.strip() not in TYPE_COMPLAINTS:
        return False
    named = {name for match in NAMED_TYPES.finditer(message) for name in match.groups() if name}
    # None stays a finding: a table's `.get()` that finds no row for one group is no stand-in.
    return bool(named & {type(value).__name__ for value in others} - {"NoneType"})


def another_form(refused: Any, returned: list[Any]) -> bool:
    """Whether a refused age is a number of another form than every one that returned:
    `generation=30` where the birth years 1960 and 1985 return ("Generation 30 out of range
    [1900, 2005]") is no year anyone was born in, nor 1960 anyone's age. The code asks for
    the age in one form; raising for the other is validation."""
    if not is_number(refused) or not returned or not all(is_number(v) for v in returned):
        return False
    return len({is_year(v) for v in [refused, *returned]}) > 1


def is_year(value: Any) -> bool:
    return bool(1800 <= value <= datetime.date.today().year)


def unborn(refused: Any, returned: list[Any], others: list[Any]) -> bool:
    """Whether a refused date falls after another date of the call that a returning date
    does not: a birth after the day measured is no person on that day (`observed before
    birth` validates the pair of dates; it refuses no age)."""
    born = as_date(refused)
    days = [d for d in map(as_date, others) if d is not None]
    fine = [d for d in map(as_date, returned) if d is not None]
    return born is not None and any(born > day and any(f <= day for f in fine) for day in days)


def named_in(message: str, names: tuple[str, ...], least: int = 2) -> bool:
    """Whether the message names one of `names` by its words (`diabetes_age`, `diabetesAge` as
    "diabetes age"); names of one word ("age", "sex") are too common to tell inputs apart,
    unless `least` is 1."""
    text = words_of(message)
    return any(
        len(name_tokens(name)) >= least and name_pattern(name).search(text) for name in names
    )


def words_of(message: str) -> str:
    """A message as its words, lower case, one space apart."""
    return " ".join(re.findall(r"[a-z0-9]+", message.casefold()))


def name_pattern(name: str) -> re.Pattern[str]:
    """A name's words as whole words of `words_of` text."""
    return re.compile(rf"\b{re.escape(' '.join(name_tokens(name)))}\b")
