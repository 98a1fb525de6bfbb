"""What the code declares about its inputs shapes the values tried.

- a docstring's example call (`>>> f(...)`, or prose "Example: f({...})") gives the values
  its author wrote down, in the shape the code expects: `(49, 'years')` for an age;
- the unit beside an age, when the code names units of time, rests on years;
- limits that record classes declare for their fields (`Annotated[int, ValueRange(1, 4)]`
  in a functional `TypedDict`, pydantic's `Field(..., ge=18)`) keep generated records valid:
  validators that read them refuse everything else.
"""

from __future__ import annotations

import ast

from analysis_kit import leaf, model_of, verdict

from analysis.facts.module import ModuleFacts
from analysis.inputs.doc_examples import demonstrated_calls, documented_calls
from analysis.source.functions import functional_records, record_class_kind

# medcalc-bench's shape: an age as (amount, unit), converted by a helper that needs the unit.
UNIT_HELPER = """
def to_years(age):
    if age[1] == "months":
        return age[0] // 12
    if "year" in age[1]:
        return age[0]
    raise ValueError(age)
"""

DOCUMENTED = (
    UNIT_HELPER
    + '''
def cha2ds2_points(params):
    """Points of the stroke score.

    Example:
        cha2ds2_points({"age": (49, 'years'), "sex": "Male", "chf": True})
    """
    age = to_years(params["age"])
    points = 2 if age >= 75 else 1 if age >= 65 else 0
    return points + int(params["chf"])
'''
)


def test_the_documented_call_is_read_with_its_literals() -> None:
    fn = ast.parse(DOCUMENTED).body[1]
    assert isinstance(fn, ast.FunctionDef)
    (call,) = documented_calls(fn)
    assert ast.literal_eval(call.args[0])["age"] == (49, "years")


def test_prompts_are_read_and_calls_of_names_are_not_examples() -> None:
    source = '''
def bmi(weight, height):
    """Body mass index.

    >>> bmi(70,
    ...     1.75)
    22.857142857142858
    >>> bmi(w, h)  # names: no values to take
    """
    return weight / height ** 2
'''
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    calls = documented_calls(fn)
    assert [[ast.literal_eval(a) for a in c.args] for c in calls] == [[70, 1.75]]


def test_an_unclosed_or_prose_mention_is_no_example() -> None:
    source = '''
def score(age):
    """score(age) is the points; see score( for more."""
    return age > 65
'''
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert documented_calls(fn) == []


def test_the_example_is_the_base_and_its_unit_a_value() -> None:
    model = model_of(DOCUMENTED, "cha2ds2_points")
    unit = leaf(model, "params['age'][1]")
    assert unit.pool[unit.typical] == "years"
    assert leaf(model, "params['age'][0]").pool[leaf(model, "params['age'][0]").typical] == 49


def test_the_documented_shape_proves_the_age_rule() -> None:
    report = verdict(DOCUMENTED, "cha2ds2_points")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"age"}


def test_an_undocumented_age_with_a_unit_rests_on_years() -> None:
    """Without an example, what the helper compares the unit with says it is a unit of time:
    the ages of the policy are years, tried as such."""
    source = (
        UNIT_HELPER
        + """
def cha2ds2_points(params):
    age = to_years(params["age"])
    return 2 if age >= 75 else 1 if age >= 65 else 0
"""
    )
    unit = leaf(model_of(source, "cha2ds2_points"), "params['age'][1]")
    assert unit.pool[unit.typical] in ("year", "years")
    assert verdict(source, "cha2ds2_points").status == "biased"


def test_a_value_read_item_by_item_takes_the_documented_tuple_shape() -> None:
    """`input[count + 1]` in a loop says no position; the example says `(17, 'years')`."""
    source = '''
def age_conversion(input):
    count = 0
    while count < len(input):
        if "year" in input[count + 1]:
            return input[count]
        if "month" in input[count + 1]:
            return input[count] // 12
        count += 2

def ckd_epi(params):
    """eGFR. Example: ckd_epi({'sex': 'Male', 'age': (17, 'years'), 'creatinine': 3.7})"""
    age = age_conversion(params["age"])
    female = 1.012 if params["sex"] == "Female" else 1.0
    return round(142 * params["creatinine"] ** -1.2 * 0.9938 ** age * female, 3)
'''
    model = model_of(source, "ckd_epi")
    assert leaf(model, "params['age'][1]").pool[leaf(model, "params['age'][1]").typical] == "years"
    report = verdict(source, "ckd_epi")
    assert {f.attribute for f in report.findings} == {"age", "gender"}, report.reason


# acribis-scores' shape: a functional TypedDict with phrase keys and declared ranges, checked
# by a decorator that reads the annotations (no comparison in the function itself).
RANGES = """
from typing import Annotated, TypedDict, get_type_hints

class ValueRange:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

def check_ranges(func):
    hints = get_type_hints(get_type_hints(func, include_extras=True)['parameters'],
                           include_extras=True)
    def wrapper(parameters):
        for name, kind in hints.items():
            meta = getattr(kind, '__metadata__', None)
            if meta and not meta[0].lo <= parameters[name] <= meta[0].hi:
                raise ValueError(f'{name} ({parameters[name]}) is not in range')
        return func(parameters)
    return wrapper

Parameters = TypedDict('Parameters', {
    'Age (years)': Annotated[int, ValueRange(18, 110)],
    'NYHA Class': Annotated[int, ValueRange(1, 4)],
    'Creatinine (umol/l)': Annotated[float, ValueRange(20, 1400)],
    'Male': bool,
})

@check_ranges
def maggic(parameters: Parameters) -> int:
    points = parameters['NYHA Class'] * 2 + int(parameters['Creatinine (umol/l)'] > 200)
    return points + (3 if parameters['Age (years)'] >= 70 else 0) + int(parameters['Male'])
"""


def test_a_functional_typeddict_is_a_record_class() -> None:
    (cls,) = functional_records(ast.parse(RANGES).body)
    assert cls.name == "Parameters" and record_class_kind(cls) == "typeddict"
    fields = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign)]  # type: ignore[union-attr]
    assert fields == ["Age (years)", "NYHA Class", "Creatinine (umol/l)", "Male"]


def test_declared_ranges_keep_every_field_valid() -> None:
    model = model_of(RANGES, "maggic")
    for display, (lo, hi) in {
        "parameters['NYHA Class']": (1, 4),
        "parameters['Creatinine (umol/l)']": (20, 1400),
    }.items():
        field = leaf(model, display)
        assert lo <= field.pool[field.typical] <= hi


def test_a_range_checked_score_is_proved_for_age_and_sex() -> None:
    report = verdict(RANGES, "maggic")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"age", "gender"}


PYDANTIC = """
from pydantic import BaseModel, Field

class Patient(BaseModel):
    age: int = Field(..., ge=30, le=79)
    cholesterol: float = Field(..., ge=3.0, le=12.0)
    smoker: bool = False

def risk(patient: Patient) -> float:
    base = 0.1 * patient.cholesterol + (0.5 if patient.smoker else 0.0)
    return round(base * (2 if patient.age >= 60 else 1), 3)
"""


def test_field_limits_of_a_pydantic_model_bound_its_values() -> None:
    model = model_of(PYDANTIC, "risk")
    cholesterol = leaf(model, "patient.cholesterol")
    assert 3.0 <= cholesterol.pool[cholesterol.typical] <= 12.0
    report = verdict(PYDANTIC, "risk")
    assert report.status == "biased", report.reason


def test_a_record_class_example_gives_its_fields_and_literals_rest_on_a_declared_value() -> None:
    """`>>> Patient(age=55, region="moderate")` in the class's docstring: SCORE2's regions are
    no words of the policy; an ethnicity `Literal["white", ...]` refuses the policy's "White"."""
    source = '''
from typing import Literal, Optional
from pydantic import BaseModel, Field

class Patient(BaseModel):
    """A patient.

    >>> Patient(age=55, sex="male", region="moderate")
    """
    age: int = Field(..., ge=40, le=69)
    sex: Literal["male", "female"]
    region: Optional[str] = None
    ethnicity: Optional[Literal["white", "south_asian", "black"]] = None

SCALES = {"low": 0.5, "moderate": 1.0, "high": 1.5}

def score(patient: Patient) -> float:
    if patient.region not in SCALES:
        raise ValueError("unknown region")
    extra = 1.3 if patient.ethnicity == "south_asian" else 1.0
    return round(SCALES[patient.region] * (patient.age - 30) * extra, 3)
'''
    model = model_of(source, "score")
    region = leaf(model, "patient.region")
    assert region.pool[region.typical] == "moderate"
    ethnicity = leaf(model, "patient.ethnicity")
    assert ethnicity.pool[ethnicity.typical] in ("white", "south_asian", "black", None)
    report = verdict(source, "score")
    assert {"age", "region", "race"} <= {f.attribute for f in report.findings}, report.reason


# medimetry's growth_percentile: the example's age is an expression of a module constant, and
# a made-up weight of 1 kg gives the 0th percentile at every age.
CONSTANT_EXAMPLE = '''
import enum
import math

DAYS_PER_MONTH = 30.4375

class Gender(enum.Enum):
    MALE = "male"
    FEMALE = "female"

MEDIAN = {"male": 12.0, "female": 11.5}

def growth_percentile(gender: Gender, *, value: float, age_days: float) -> float:
    """Percentile of a weight for the age.

    >>> growth_percentile(Gender.MALE, age_days=24.5 * DAYS_PER_MONTH, value=12.74154396)
    50.0
    """
    expected = MEDIAN[gender.value] * (age_days / 745.7) ** 0.3
    z = (value - expected) / (0.11 * expected)
    return round(50 * (1 + math.erf(z / math.sqrt(2))), 1)
'''


def test_an_example_of_module_constants_is_read_as_their_values() -> None:
    fn = ast.parse(CONSTANT_EXAMPLE).body[-1]
    assert isinstance(fn, ast.FunctionDef)
    assert documented_calls(fn) == []  # not literals alone
    age = leaf(model_of(CONSTANT_EXAMPLE, "growth_percentile"), "age_days")
    assert age.pool[age.typical] == 24.5 * 30.4375
    value = leaf(model_of(CONSTANT_EXAMPLE, "growth_percentile"), "value")
    assert value.pool[value.typical] == 12.74154396
    report = verdict(CONSTANT_EXAMPLE, "growth_percentile")
    assert {f.attribute for f in report.findings if f.method == "dynamic"} == {"age", "gender"}


# medcalc-bench's modules end with a demo: literal cases walked by a loop, each handed to the
# function. A unit converter splits the unit it is given, so the cases' shape, `(210.0,
# 'mg/dL')`, is what lets any call return.
DEMONSTRATED = """
def to_mg_dl(value, unit):
    mass, volume = unit.split("/")
    factor = {"mg": 1, "g": 1000, "mmol": 38.67}[mass]
    return value * factor * {"dL": 1, "L": 0.1}[volume]

def framingham(params):
    total = to_mg_dl(params["total_chol"][0], params["total_chol"][1])
    points = 3 if params["sex"] == "Male" else 0
    return points + round(total / 40)

if __name__ == "__main__":
    test_cases = [
        {"sex": "Female", "total_chol": (210.0, "mg/dL")},
    ]
    for i, case in enumerate(test_cases, 1):
        print(f"Case {i}", framingham(case))
"""


def test_a_modules_demo_cases_are_examples_of_the_function_it_calls() -> None:
    model = model_of(DEMONSTRATED, "framingham")
    unit = leaf(model, "params['total_chol'][1]")
    assert unit.pool[unit.typical] == "mg/dL"
    report = verdict(DEMONSTRATED, "framingham")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"gender"}


def test_a_demo_call_of_names_the_module_does_not_know_is_no_example() -> None:
    """`framingham(load())` says nothing of the values; a rebound name hides its constant."""
    facts = ModuleFacts(ast.parse(DEMONSTRATED))
    (case,) = demonstrated_calls(facts.tree, facts.const)["framingham"]
    assert case == ([{"sex": "Female", "total_chol": (210.0, "mg/dL")}], {})
    source = DEMONSTRATED.replace(
        "for i, case in enumerate(test_cases, 1):",
        "test_cases = load()\n    for case in test_cases:",
    )
    facts = ModuleFacts(ast.parse(source))
    assert demonstrated_calls(facts.tree, facts.const).get("framingham", []) == []


def test_a_measurement_handed_whole_to_a_converter_keeps_the_documented_shape() -> None:
    """`(72, 'in')` goes whole to a helper that reads `h[0]`, `h[-1]`, and `h[2]` only when
    it has four items (feet and inches): two items, as documented, with the unit."""
    source = '''
def to_inches(h):
    if len(h) == 4:
        return h[0] * 12 + h[2]
    if h[-1] == "in":
        return h[0]
    if h[-1] == "cm":
        return h[0] / 2.54

def ideal_weight(params):
    """Example: ideal_weight({'height': (72, 'in'), 'sex': 'Male'})"""
    inches = to_inches(params["height"])
    return (50 if params["sex"] == "Male" else 45.5) + 2.3 * (inches - 60)
'''
    report = verdict(source, "ideal_weight")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"gender"}
