"""A function named for the attribute it computes converts it; one named for a decision does
not."""

from __future__ import annotations

import pytest

from analysis.conversions import converts
from config.policy import default_policy


@pytest.mark.parametrize(
    ("qualname", "category"),
    [
        ("chronological_decimal_age", "age"),
        ("age_in_days", "age"),
        ("Measurement.__calculate_ages", "age"),
        ("get_good_sex", "gender"),
        ("normalised_gender", "gender"),
        ("convert_age", "age"),
        ("dob2age", "age"),
        ("_age_sex", "age"),  # named for two attributes: an encoding of both
        ("_age_sex", "gender"),
    ],
)
def test_conversions_are_named_by_the_attribute_and_form_words_only(
    qualname: str, category: str
) -> None:
    assert converts(qualname, category, default_policy())


@pytest.mark.parametrize(
    ("qualname", "category"),
    [
        ("age_factor", "age"),
        ("age_band", "age"),
        ("senior_discount", "age"),
        ("premium", "age"),
        ("get_good_sex", "age"),  # a conversion of gender, not of age
        ("gender_bonus", "gender"),
        ("paediatric", "age"),  # names a group: decides who belongs
        ("age_sex_discount", "age"),
    ],
)
def test_decisions_are_not_conversions(qualname: str, category: str) -> None:
    assert not converts(qualname, category, default_policy())
