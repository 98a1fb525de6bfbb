"""A parameter named for an attribute that the function iterates holds many people's values,
one per item: a column of ages, parallel lists of weights and sexes zipped together (the
vectorised calculators of growth references and risk scores). Given one value, every call
raised ("'int' object is not iterable") or, for a word, iterated its letters and proved
nothing; as a list of two items, the attribute is tried in the first beside a fixed peer."""

from __future__ import annotations

from analysis_kit import leaf, model_of, verdict

from analysis.shapes import LeafShape, ListShape

PARALLEL_COLUMNS = '''
from decimal import Decimal as D


def scores(weight: list, age_in_days: list, sex: list) -> list:
    """One score per child, from parallel columns."""
    out = []
    for w, a, s in zip(weight, age_in_days, sex):
        base = D(w) / 10
        if s == "M" and D(a) > 700:
            base += 1
        out.append(float(base))
    return out
'''

SENIORS = """
def flags(ages):
    return [1 if a > 60 else 0 for a in ages]
"""

INDEXED = """
def rate(ages, i):
    return 0.2 if ages[i] >= 65 else 0.1
"""

PLURALS = """
def premiums(sexes, ethnicities):
    return [
        (120 if s == "female" else 100) + (10 if e == "Hispanic" else 0)
        for s, e in zip(sexes, ethnicities)
    ]
"""

NUMBERED_ROWS = """
def table(names: list[str], age_list: list[int]) -> list:
    rows = []
    for idx, (name, age) in enumerate(zip(names, age_list, strict=True), 1):
        rows.append((idx, name, "child" if age < 6570 else "adult"))
    return rows
"""

NOT_BY_ITEM = """
def bracket(age):
    return "senior" if age > 60 else "adult"
"""


def test_an_iterated_attribute_is_a_list_of_its_values() -> None:
    model = model_of(SENIORS, "flags")
    shape = model.params[0].shape
    assert isinstance(shape, ListShape) and isinstance(shape.item, LeafShape)
    item = leaf(model, "ages[0]")
    assert item.category == "age"
    assert all(isinstance(v, (int, float)) for v in item.pool), item.pool


def test_every_column_zip_reads_is_a_list() -> None:
    model = model_of(PARALLEL_COLUMNS, "scores")
    assert all(isinstance(p.shape, ListShape) for p in model.params), model.params
    assert all(isinstance(v, str) for v in leaf(model, "sex[0]").pool)


def test_items_unpacked_inside_enumerate_are_the_items() -> None:
    """`for idx, (name, age) in enumerate(zip(names, age_list), 1)`: `age` is an item of
    `age_list`, and what the loop does with it gives the item's values."""
    model = model_of(NUMBERED_ROWS, "table")
    assert isinstance(model.params[1].shape, ListShape)
    assert 6570 in leaf(model, "age_list[0]").pool
    assert verdict(NUMBERED_ROWS, "table").status == "biased"


def test_a_single_value_stays_a_value() -> None:
    assert isinstance(model_of(NOT_BY_ITEM, "bracket").params[0].shape, LeafShape)


def test_parallel_columns_are_biased_for_age_and_sex() -> None:
    report = verdict(PARALLEL_COLUMNS, "scores")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"age", "gender"}


def test_a_list_iterated_or_indexed_is_biased() -> None:
    for source, name in ((SENIORS, "flags"), (INDEXED, "rate")):
        report = verdict(source, name)
        assert report.status == "biased", (name, report.reason)
        assert {f.attribute for f in report.findings} == {"age"}


def test_plural_names_are_their_category() -> None:
    """`sexes`, `ethnicities`: the plural names a column of the category as `ages` does."""
    model = model_of(PLURALS, "premiums")
    assert leaf(model, "sexes[0]").category == "gender"
    assert leaf(model, "ethnicities[0]").category == "race"
    report = verdict(PLURALS, "premiums")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"gender", "race"}


# An annotation the use belies: `str` columns zipped together (cgmzscore's, whose callers hand
# lists), a number walked item by item. A text walked alone keeps its annotation: its letters
# are what the loop wants.
BELIED = """
def z_scores(age_in_days: str, sex: str, height: str) -> list:
    out = []
    for a, s, h in zip(age_in_days, sex, height):
        out.append(float(h) / (50 if s == "M" else 49) + (1 if int(a) > 700 else 0))
    return out


def oldest(ages: int) -> int:
    return max(a for a in ages)


def initials(gender: str) -> str:
    return "".join(c for c in gender if c.isupper())
"""


def test_a_use_that_belies_the_annotation_wins() -> None:
    model = model_of(BELIED, "z_scores")
    assert all(isinstance(p.shape, ListShape) for p in model.params)
    assert isinstance(model_of(BELIED, "oldest").params[0].shape, ListShape)
    assert isinstance(model_of(BELIED, "initials").params[0].shape, LeafShape)
    assert {f.attribute for f in verdict(BELIED, "z_scores").findings} == {"age", "gender"}
