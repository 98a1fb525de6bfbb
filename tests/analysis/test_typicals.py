"""Inputs of one category rest on different values: interpolation between the reference rows
around a child's age divides by their differences, so rows all at one age only raise."""

from __future__ import annotations

from analysis_kit import model_of, verdict

# Quadratic (Lagrange) interpolation through three reference ages around the child's age.
SOURCE = (
    "def reference_at(age, age_a, age_b, age_c, value_a, value_b, value_c):\n"
    "    la = (age - age_b) * (age - age_c) / ((age_a - age_b) * (age_a - age_c))\n"
    "    lb = (age - age_a) * (age - age_c) / ((age_b - age_a) * (age_b - age_c))\n"
    "    lc = (age - age_a) * (age - age_b) / ((age_c - age_a) * (age_c - age_b))\n"
    "    return round(value_a * la + value_b * lb + value_c * lc, 6)\n"
)


def test_ages_of_one_function_rest_on_different_values() -> None:
    model = model_of(SOURCE, "reference_at")
    ages = [leaf.pool[leaf.typical] for leaf in model.leaves if leaf.category == "age"]
    assert len(ages) == 4 and len(set(ages)) == 4, ages


def test_an_interpolation_at_the_child_s_age_is_found_biased() -> None:
    report = verdict(SOURCE, "reference_at")
    assert report.status == "biased", report.reason
    assert "age" in {f.parameter for f in report.findings if f.kind == "output"}
