"""An input its name says nothing of carries a category when the code compares it with a
strong word of one (`kind == "female"`, `status in ("senior_citizen", ...)`): a tax
calculator's class of taxpayers, an insurer's `kind`. A weak word (a region's "urban"), a
word of no category and a name that is excluded say nothing."""

from __future__ import annotations

import textwrap

import pytest
from analysis_kit import leaf, model_of, verdict

SOURCE = textwrap.dedent("""\
    def tax(income, taxpayer_category):
        if taxpayer_category == "senior_citizen":
            return income * 0.1
        if taxpayer_category == "super_senior_citizen":
            return income * 0.05
        return income * 0.2


    def premium(base, kind):
        if kind == "female":
            return base * 0.9
        return base


    def rate(person):
        return 0.1 if person["category"] == "senior citizen" else 0.2


    def zone_fee(base, zone):
        return base + (5 if zone == "urban" else 0)


    def file_kind(path, mode):
        return path + (".csv" if mode == "table" else ".txt")
""")


def test_an_input_compared_with_a_strong_word_of_a_category_carries_it() -> None:
    assert leaf(model_of(SOURCE, "tax"), "taxpayer_category").category == "age"
    assert leaf(model_of(SOURCE, "premium"), "kind").category == "gender"
    assert leaf(model_of(SOURCE, "rate"), "person['category']").category == "age"


def test_weak_words_and_words_of_no_category_say_nothing() -> None:
    assert leaf(model_of(SOURCE, "zone_fee"), "zone").category is None
    assert leaf(model_of(SOURCE, "file_kind"), "mode").category is None


def test_the_class_of_taxpayers_and_the_kind_are_proved_biased() -> None:
    for name, category in (("tax", "age"), ("premium", "gender")):
        report = verdict(SOURCE, name)
        assert report.status == "biased", (name, report.reason)
        assert {f.attribute for f in report.findings} == {category}


# A sex coded by its two letters, under a name that says nothing (CKD-EPI's `s`), compared
# with both or looking one up in a table keyed by both; one letter alone (a grade "F") or
# another pair (sizes) says nothing.
LETTERS = textwrap.dedent("""\
    FACTORS = {"M": 1.0, "F": 0.742}


    def egfr(scr, age, s):
        kappa = 0.7 if s == "F" else 0.9
        if s not in ("M", "F"):
            raise ValueError(s)
        return 141 * (scr / kappa) ** -0.329 * 0.993 ** age


    def mdrd(scr, age, code):
        return 175 * scr ** -1.154 * age ** -0.203 * FACTORS.get(code, 1.0)


    def passed(score, grade):
        return score > 50 and grade != "F"


    def shirt(price, size):
        return price + (2 if size in ("M", "L") else 0)
""")


def test_an_input_compared_with_both_letters_of_a_sex_is_one() -> None:
    assert leaf(model_of(LETTERS, "egfr"), "s").category == "gender"
    assert leaf(model_of(LETTERS, "mdrd"), "code").category == "gender"
    assert leaf(model_of(LETTERS, "passed"), "grade").category is None
    assert leaf(model_of(LETTERS, "shirt"), "size").category is None
    assert {f.attribute for f in verdict(LETTERS, "egfr").findings} == {"age", "gender"}


# An input worked into a named value by arithmetic alone is what that value is named: the age
# in two parts (`years`, `months`). Beside a part that is the attribute already, it is a
# reference (`today - birth_year`: `today` is no age); worked into a value of no category, it
# stays what it was.
WORKED_INTO = textwrap.dedent("""\
    def percentile(years, months, systolic):
        age = years + months / 12.0
        return systolic - 0.5 * age


    def band(today, birth_year):
        age = today - birth_year
        return "senior" if age >= 65 else "adult"


    def bmi(weight, height):
        ratio = weight / height ** 2
        return "high" if ratio > 25 else "normal"
""")


def test_an_input_worked_into_a_named_value_carries_its_name() -> None:
    model = model_of(WORKED_INTO, "percentile")
    assert leaf(model, "years").category == leaf(model, "months").category == "age"
    assert leaf(model, "systolic").category is None
    assert leaf(model_of(WORKED_INTO, "band"), "today").category is None
    assert leaf(model_of(WORKED_INTO, "bmi"), "weight").category is None
    assert {f.attribute for f in verdict(WORKED_INTO, "percentile").findings} == {"age"}


WAYS_OF_COMPARING = """\
from enum import Enum

RATES = {"male": 1.2, "female": 1.0}
FEMALE_CODES = ("F", "female", "woman")


class Ethnicity(Enum):
    WHITE = 1
    BLACK = 2


def by_match(weight, kind):
    match kind:
        case "male":
            return weight * 1.2
        case "female" | "woman":
            return weight * 1.0
    return weight


def by_table(weight, kind):
    return weight * RATES[kind]


def by_constant(weight, s):
    return weight * (0.9 if s.strip().upper() in FEMALE_CODES else 1.0)


def by_member(score, group):
    return score + (5 if group == Ethnicity.BLACK else 0)
"""


@pytest.mark.parametrize(
    ("qualname", "category"),
    [("by_match", "gender"), ("by_table", "gender"), ("by_constant", "gender"),
     ("by_member", "race")],
)  # fmt: skip
def test_what_an_input_is_compared_with_in_any_form_names_its_category(
    qualname: str, category: str
) -> None:
    """A `match`, a module's table or tuple of values, a normalised text, an enum's member
    (by its class's name, as `Ethnicity.BLACK`): the input is what they are values of."""
    report = verdict(WAYS_OF_COMPARING, qualname)
    assert report.status == "biased", report.reason
    assert report.biased_attributes == [category]


MAPPED = """\
import pandas as pd

FACTORS = {1: 1.0, 2: 1.012}


def egfr(df: pd.DataFrame) -> pd.Series:
    return (142 * 0.9938 ** df["age"] * df["sex"].map(FACTORS)).round(2)


def rated(df: pd.DataFrame) -> pd.Series:
    return df["premium"] * df["c7"].replace({"F": 1.2, "M": 1.0})


def decoded(df: pd.DataFrame) -> pd.Series:
    label = df["c2"].map({1: "Male", 2: "Female"})
    return df["chol"] * (label == "Female").astype(float) + df["chol"]
"""


def test_the_keys_a_column_is_mapped_by_are_its_values() -> None:
    # A survey's sex coded 1 and 2, looked up in a mapping: without those codes every
    # lookup is NaN, whatever the sex, and nothing differs.
    assert 2 in leaf(model_of(MAPPED, "egfr"), "df['sex'][0]").pool
    assert set(verdict(MAPPED, "egfr").biased_attributes) == {"age", "gender"}
    # The mapping's keys are both letters of a sex: the column is the sex.
    assert verdict(MAPPED, "rated").biased_attributes == ["gender"]
    # A code decoded into the words of a sex is the sex.
    assert verdict(MAPPED, "decoded").biased_attributes == ["gender"]
