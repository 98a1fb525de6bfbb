"""A function named for the attribute it computes converts it; one named for a decision does
not."""

from __future__ import annotations

import pytest
from analysis_kit import verdict

from analysis.facts.conversions import named_conversion
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
        # OpenFisca names a variable's computation `formula` (or `formula_2017_01`, from a
        # date): its class names what it computes.
        ("age.formula", "age"),
        ("vek.formula_2020_01", "age"),
        # a transform of it as a model's term takes it
        ("ASCVD.ln_age", "age"),
        ("age_squared", "age"),
    ],
)
def test_conversions_are_named_by_the_attribute_and_form_words_only(
    qualname: str, category: str
) -> None:
    assert named_conversion(qualname, category, default_policy())


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
        ("pension.formula", "age"),
        ("formula", "age"),
    ],
)
def test_decisions_are_not_conversions(qualname: str, category: str) -> None:
    assert not named_conversion(qualname, category, default_policy())


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


# A category recoded, nothing decided (issue 24, item 6): each function below only gives the
# attribute another form (every realistic value gets one, so none is refused). Their
# neighbours of the same shapes decide something.
RECODES = """
RACE_CODES = {"White": 1, "Black": 2, "Asian": 6, "Hispanic": 7}


def race_code_of(race):
    return RACE_CODES.get(race, 9)


def sex_as_number(sex):
    return {"male": 1, "female": 2}.get(sex, 3)


def encode(sex):
    s = str(sex).strip().upper()
    if s in ("M", "MALE"):
        return 1
    if s in ("F", "FEMALE"):
        return 2
    return 3


def to_int(gender):
    return 1 if gender == "female" else 0


def screening_interval(sex):
    return 2 if sex == "F" else 3


def sex_bonus(sex):
    return {"male": 1, "female": 2}.get(sex, 0)


def encode_with_age(sex, age):
    return 1 if sex == "M" and age > 60 else 2
"""


@pytest.mark.parametrize("qualname", ["race_code_of", "sex_as_number", "encode", "to_int"])
def test_a_function_that_only_recodes_the_attribute_is_a_conversion(qualname: str) -> None:
    from analysis_kit import verdict

    report = verdict(RECODES, qualname)
    assert (report.status, report.findings) == ("clean", []), report.reason


@pytest.mark.parametrize("qualname", ["screening_interval", "sex_bonus", "encode_with_age"])
def test_a_recode_named_for_a_decision_or_reading_more_is_still_tested(qualname: str) -> None:
    from analysis_kit import verdict

    report = verdict(RECODES, qualname)
    assert report.status == "biased", (report.status, report.reason)


def test_an_object_s_text_is_what_it_holds_not_a_decision() -> None:
    source = (
        "class Member:\n"
        "    def __init__(self, name, age):\n"
        "        self.name, self.age = name, age\n"
        "    def __str__(self):\n"
        "        return f'{self.name}, {\"senior\" if self.age > 65 else \"adult\"} member'\n"
    )
    assert verdict(source, "Member.__str__").status == "clean"
