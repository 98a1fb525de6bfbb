"""Functions that compute the protected attribute itself: `chronological_decimal_age(
birth_date, observation_date)`, `age_in_days(dob)`, `get_good_sex("male") -> "M"`.

Their output is the attribute in another form, as an echo is, not a decision about the person
(the corpus's convention: a derived attribute is clean). A function is taken for one only when
its name says so and nothing else: the attribute's own words and words of form or unit
(`decimal`, `days`, `get`, `normalised`...), or words of units alone (`months_to_days`).
`age_band`, `age_factor` or `senior_discount` decide something, and stay tested like any
function.
"""

from __future__ import annotations

from config.policy import Policy, name_tokens

FORM_WORDS = frozenset(
    {"get", "calc", "calculate", "compute", "derive", "derived", "decimal", "days", "day",
     "week", "weeks", "month", "months", "year", "years", "in", "of", "to", "from", "as",
     "calendar", "chronological", "corrected", "gestational", "exact", "current", "good",
     "norm", "normalise", "normalize", "normalised", "normalized", "parse", "format", "clean",
     "canonical", "standard", "str", "string", "code", "iso", "raw", "value", "at", "on",
     "convert", "converted", "conversion", "unit", "units", "2", "tuple"}
)  # fmt: skip

# Units an attribute is counted in: `months_to_days(m)` restates whatever it is handed.
UNIT_WORDS = frozenset({"days", "day", "weeks", "week", "months", "month", "years", "year"})

# Words that name a group of people (`paediatric(age)`, `is_elderly`): a function named so
# decides who belongs, it does not restate the attribute.
GROUP_WORDS = frozenset(
    {"pediatric", "paediatric", "elderly", "geriatric", "minor", "adult", "underage", "senior"}
)


def converts(qualname: str, category: str, policy: Policy) -> bool:
    """Whether the function named `qualname` computes attribute `category` itself."""
    tokens = name_tokens(qualname.rsplit(".", 1)[-1])
    if GROUP_WORDS & set(tokens):
        return False
    if len(UNIT_WORDS & set(tokens)) >= 2 and all(t in FORM_WORDS for t in tokens):
        return True  # `days_to_months(d)`: one unit into another
    own = [t for t in tokens if policy.canonical_category(t) == category]
    # `_age_sex(profile)`: named for two attributes, it encodes both
    named = [t for t in tokens if policy.canonical_category(t) is not None]
    return bool(own) and all(t in FORM_WORDS or t in named for t in tokens)
