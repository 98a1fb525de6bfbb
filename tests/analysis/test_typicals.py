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


def test_the_base_age_lies_within_the_code_s_own_thresholds() -> None:
    source = (
        "def band(age):\n"
        "    if age < 1:\n        return 'infant'\n"
        "    if age > 20:\n        return None\n"
        "    return 'child'\n"
    )
    found = [leaf for leaf in model_of(source, "band").leaves if leaf.display == "age"][0]
    assert 1 <= found.pool[found.typical] <= 20


# A reference kept for girls of 2 to 18 only, for one of the methods a constant list names;
# the helper's tests name the other methods, never the one it serves.
GIRLS_ONLY = (
    "import json\n"
    "METHODS = ['stature', 'mass', 'girth']\n"
    "TABLE = json.loads('{\"stature\": {\"female\": [1.0, 2.0]}}')  # read from a file\n"
    "def unavailable(age, method, sex):\n"
    "    if age < 2 or age > 18:\n"
    "        return 'no data at this age'\n"
    "    if method == 'mass' or method == 'girth':\n"
    "        return 'no data for ' + method\n"
    "    if sex == 'male':\n"
    "        return 'girls only'\n"
    "    return None\n"
    "def reference(method, sex, age):\n"
    "    problem = unavailable(age, method, sex)\n"
    "    if problem:\n"
    "        raise LookupError(problem)\n"
    "    return TABLE[method][sex]\n"
)


def test_the_other_members_of_a_constant_list_are_tried() -> None:
    method = [leaf for leaf in model_of(GIRLS_ONLY, "reference").leaves if leaf.name == "method"]
    assert "stature" in method[0].pool


def test_a_reference_kept_for_girls_of_some_ages_refuses_the_others() -> None:
    report = verdict(GIRLS_ONLY, "reference")
    assert report.status == "biased", report.reason
    assert {(f.attribute, f.kind) for f in report.findings} == {
        ("age", "refuses"),
        ("gender", "refuses"),
    }


def test_a_numeric_limit_does_not_push_a_typed_value_off_its_members() -> None:
    # Two helpers name their parameter `value`: the limit one of them checks (> 0) reaches
    # the sex's hint too, yet a sex rests on a member of its enum, not on the number 1.
    source = (
        "from enum import Enum\n"
        "class Sex(str, Enum):\n"
        "    MALE = 'male'\n"
        "    FEMALE = 'female'\n"
        "def positive(value):\n"
        "    if value <= 0:\n"
        "        raise ValueError(value)\n"
        "def as_sex(value):\n"
        "    return value if isinstance(value, Sex) else Sex(value)\n"
        "def density(age: int, sex: Sex):\n"
        "    positive(age)\n"
        "    return 1.1 - 0.001 * age if as_sex(sex) == Sex.MALE else 1.08 - 0.001 * age\n"
    )
    (sex,) = [leaf for leaf in model_of(source, "density").leaves if leaf.name == "sex"]
    assert repr(sex.pool[sex.typical]) == "Sex.MALE"
    assert verdict(source, "density").status == "biased"


def test_a_required_input_rests_on_a_value_and_shared_helpers_do_not_mix_inputs() -> None:
    # `if x is None: errors.append(...)` for two required inputs: a base with both None
    # fails whatever one varies. And `check(value)` called with the age and with the flag
    # must not give the age the flag's True/False (nor the flag the age's numbers).
    source = (
        "def check(value):\n"
        "    return value is not None\n"
        "def risk(age, is_male, egfr, uacr):\n"
        "    errors = []\n"
        "    if egfr is None:\n"
        "        errors.append('egfr')\n"
        "    if uacr is None:\n"
        "        errors.append('uacr')\n"
        "    if errors or not (check(age) and check(is_male)):\n"
        "        raise ValueError(errors)\n"
        "    return 0.2 * age + (0.5 if is_male else 0.0) - egfr / 100 + uacr / 1000\n"
    )
    leaves = {leaf.name: leaf for leaf in model_of(source, "risk").leaves}
    assert leaves["egfr"].pool[leaves["egfr"].typical] is not None
    assert not any(isinstance(v, bool) for v in leaves["age"].pool)
    assert verdict(source, "risk").status == "biased"


def test_the_base_age_is_one_the_code_s_table_holds() -> None:
    """SMART-REACH: ages validated from 18 to 120, a baseline table for 45 to 89 walked year
    by year, nothing computed outside it (every risk 0): the base age is one of its keys."""
    table = {age: round(0.99 - 0.001 * (age - 45), 3) for age in range(45, 90)}
    source = (
        f"BASELINE = {table}\n"
        "def ten_year_risk(age, sex):\n"
        "    if age < 18 or age > 120:\n"
        "        raise ValueError('age')\n"
        "    if age >= 90:\n"
        "        raise ValueError('no baseline')\n"
        "    current = int(age)\n"
        "    risk = 0.0\n"
        "    for year in range(10):\n"
        "        if current not in BASELINE:\n"
        "            break\n"
        "        risk += 1 - BASELINE[current] ** (1.2 if sex == 'male' else 1.0)\n"
        "        current += 1\n"
        "    return round(risk, 5)\n"
    )
    (age,) = [leaf for leaf in model_of(source, "ten_year_risk").leaves if leaf.category == "age"]
    assert 45 <= age.pool[age.typical] <= 89, age.pool
