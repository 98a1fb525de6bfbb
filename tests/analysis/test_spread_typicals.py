"""Numeric inputs of one category rest on different values (inputs/leaves.py
`spread_typicals`), even when the code's own thresholds fill their pool and leave none of
the policy's values in it: the ages of the rows an interpolation reads, all alike, only
divide by zero."""

from __future__ import annotations

from analysis_kit import model_of, verdict

THRESHOLDS = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
BANDS = "\n".join(f"    if age > {t}:\n        return {i}" for i, t in enumerate(THRESHOLDS))
SOURCE = f"""\
def band(age):
{BANDS}
    return -1


def interpolate(age, age_below, age_above, value_below, value_above):
    share = (age - age_below) / (age_above - age_below)
    return value_below + share * (value_above - value_below)
"""


def test_ages_of_one_call_rest_on_different_values_when_thresholds_fill_the_pool() -> None:
    model = model_of(SOURCE, "interpolate")
    bases = [leaf.pool[leaf.typical] for leaf in model.leaves if leaf.category == "age"]
    assert len(bases) == 3 and len(set(bases)) == 3, bases
    assert verdict(SOURCE, "interpolate").biased_attributes == ["age"]
