"""Static taint: where a protected input reaches a branch or the output, without running.

This is what an `unverified` function's findings say, which line a dynamic finding points
at, and the proof that an input is never read (so no execution is spent on it). Each case
holds the kinds of reach and their lines; printing or logging a value reaches nothing.
"""

from __future__ import annotations

import ast

import pytest
from analysis_kit import leaf, model_of, verdict

from analysis.source.functions import find_function
from analysis.static.review import first_reach, never_read, reaches


def reach_of(source: str, display: str) -> list[tuple[str, int]]:
    tree = ast.parse(source)
    info = find_function(tree, "f")
    assert info is not None
    return [(r.how, r.line) for r in reaches(info.node, leaf(model_of(source), display))]


def first_of(source: str, display: str) -> tuple[str, int] | None:
    info = find_function(ast.parse(source), "f")
    assert info is not None
    found = first_reach(info.node, leaf(model_of(source), display))
    return (found.how, found.line) if found else None


def unread(source: str, display: str) -> bool:
    info = find_function(ast.parse(source), "f")
    assert info is not None
    return never_read(info.node, leaf(model_of(source), display))


CASES: dict[str, tuple[str, str, set[tuple[str, int]]]] = {
    "an if test": (
        "def f(age):\n    if age > 60:\n        return 1\n    return 0\n",
        "age",
        {("branch", 2)},
    ),
    "through local variables": (
        "def f(age):\n    x = age * 2\n    y = x + 1\n"
        "    if y > 3:\n        return 1\n    return 0\n",
        "age",
        {("branch", 4)},
    ),
    "through an augmented assignment": (
        "def f(age, base):\n    base += age\n    return base\n",
        "age",
        {("return", 3)},
    ),
    "through a walrus": (
        "def f(age):\n    if (old := age) > 60:\n        return 1\n    return 0\n",
        "age",
        {("branch", 2)},
    ),
    "returned": ("def f(gender):\n    return gender\n", "gender", {("return", 2)}),
    "a table lookup": (
        "RATES = {'n': 1}\ndef f(region):\n    rate = 2\n    return RATES[region] * rate\n",
        "region",
        {("lookup", 4), ("return", 4)},
    ),
    "a match subject": (
        "def f(gender):\n    match gender:\n        case 'f':\n            pass\n    return 1\n",
        "gender",
        {("match", 2)},
    ),
    "a comprehension filter": (
        "def f(age, xs):\n    ys = [x for x in xs if age > x]\n    return len(ys)\n",
        "age",
        {("branch", 2), ("return", 3)},
    ),
    "a record field in a conditional expression": (
        "def f(p):\n    score = 1 if p['age'] > 60 else 2\n    return score\n",
        "p['age']",
        {("branch", 2), ("return", 3)},
    ),
    "into a container by its method": (
        "def f(sex, rows):\n    by_sex = {}\n    by_sex.update({sex: rows})\n    return by_sex\n",
        "sex",
        {("return", 4)},
    ),
    "handed to a helper that decides with it": (
        "def _log_rate(s, book):\n    book.append(2 if s == 'f' else 1)\n"
        "def f(gender, book):\n    _log_rate(gender, book)\n    return len(book)\n",
        "gender",
        {("call", 4)},
    ),
    "handed to a helper that only stores it": (
        "def _keep(s, book):\n    book.append(s)\n"
        "def f(gender, book):\n    _keep(gender, book)\n    return len(book)\n",
        "gender",
        set(),
    ),
    "checked for None only": (
        "def f(age):\n    if age is None:\n        return None\n    return 1\n",
        "age",
        set(),
    ),
    "checked for None beside a decision": (
        "def f(age):\n    if age is None or age > 60:\n        return 0\n    return 1\n",
        "age",
        {("branch", 2)},
    ),
    "printed only": ("def f(gender):\n    print(gender)\n    return 1\n", "gender", set()),
    "logged only, through a local": (
        "import logging\n"
        "def f(gender):\n    note = 'sex=' + gender\n    logging.info(note)\n    return 1\n",
        "gender",
        set(),
    ),
}


@pytest.mark.parametrize(("source", "display", "wanted"), CASES.values(), ids=list(CASES))
def test_where_a_protected_input_reaches(
    source: str, display: str, wanted: set[tuple[str, int]]
) -> None:
    assert set(reach_of(source, display)) == wanted


def test_a_finding_points_at_the_branch_before_the_return() -> None:
    source = (
        "def f(age):\n    senior = age > 60\n    if senior:\n        return 'yes'\n    return age\n"
    )
    assert first_of(source, "age") == ("branch", 2)


def test_only_a_return_is_pointed_at_when_there_is_no_branch() -> None:
    assert first_of("def f(gender):\n    x = 1\n    return gender\n", "gender") == ("return", 3)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(age, income):\n    return income > 10\n", True),
        ("def f(age):\n    return (lambda: age)()\n", False),
        ("def f(age):\n    return locals()\n", False),
        ("def f(age):\n    return eval('age')\n", False),
        ("def f(age):\n    print(age)\n    return 1\n", False),  # read, even if it reaches nothing
    ],
    ids=["unused", "closure", "locals()", "eval", "printed"],
)
def test_never_read_is_a_proof_not_a_guess(source: str, expected: bool) -> None:
    assert unread(source, "age") is expected


def test_a_dataclass_field_used_by_no_read_is_never_read() -> None:
    source = (
        "from dataclasses import dataclass\n"
        "@dataclass\nclass P:\n    age: int\n    name: str\n"
        "def f(p: P):\n    return p.name.upper()\n"
    )
    assert unread(source, "p.age") is True
    whole = source.replace("return p.name.upper()", "return p.describe()")
    assert unread(whole, "p.age") is False  # a method of the object may read anything


def test_an_unread_protected_input_costs_no_execution_and_is_clean() -> None:
    report = verdict("def f(age, income):\n    return income > 10\n")
    assert (report.status, report.executions) == ("clean", 0)
    assert report.reason == "no protected input is ever read"


def test_code_that_cannot_run_gets_static_findings_for_exactly_what_reaches() -> None:
    source = (
        "import vendor_scoring_missing as vendor\n"
        "def f(age, gender, race):\n"
        "    print(gender)\n"
        "    if age > 60:\n"
        "        return vendor.score(race)\n"
        "    return vendor.score(0)\n"
    )
    report = verdict(source)
    assert report.status == "unverified", (report.status, report.reason)
    assert {(x.attribute, x.method, x.line) for x in report.findings} == {
        ("age", "static", 4),
        ("race", "static", 5),
    }


def test_a_record_handed_to_the_helper_that_reads_its_field_reaches_there() -> None:
    # The object holding the tables is never built right, so nothing runs; the sex is read
    # by the helper the whole record is handed to, and what that helper gives is returned.
    source = (
        "def _z(params, tables):\n"
        "    return tables[params.get('sex')] * 2\n"
        "class Calculator:\n"
        "    def __init__(self, tables):\n"
        "        if not tables:\n"
        "            raise ValueError('no tables')\n"
        "        self._tables = tables\n"
        "    def compute(self, params):\n"
        "        return _z(params, self._tables)\n"
    )
    report = verdict(source, "Calculator.compute")
    assert report.status == "unverified", (report.status, report.reason)
    assert {(x.attribute, x.method, x.line) for x in report.findings} == {("gender", "static", 9)}
