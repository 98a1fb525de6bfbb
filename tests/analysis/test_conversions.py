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
        ("_norm_sex", "gender"),
        ("months_to_days", "age"),  # units alone: whatever the caller hands it
        ("_days_to_months", "age"),
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
        ("days_discount", "age"),  # one unit word and a decision
        ("calculate", "age"),  # no unit, no attribute: says nothing
    ],
)
def test_decisions_are_not_conversions(qualname: str, category: str) -> None:
    assert not converts(qualname, category, default_policy())


def test_a_conversion_that_refuses_a_realistic_value_is_still_a_refusal() -> None:
    """liftmath's `_canonical_sex` maps 'M'/'female'/... to 'male'/'female' and raises for
    anything else: 'non-binary' is turned away, whatever the function is named."""
    from analysis_kit import verdict

    source = (
        "def canonical_sex(sex):\n"
        "    s = sex.strip().lower()\n"
        "    if s in ('m', 'male'):\n"
        "        return 'male'\n"
        "    if s in ('f', 'female'):\n"
        "        return 'female'\n"
        "    raise ValueError(f'unknown sex {sex!r}')\n"
        "def normalised_gender(gender):\n"
        "    return str(gender).strip().lower()\n"
    )
    report = verdict(source, "canonical_sex")
    assert [(f.attribute, f.kind) for f in report.findings] == [("gender", "refuses")]
    assert verdict(source, "normalised_gender").status == "clean"
