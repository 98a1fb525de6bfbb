"""A helper's parameter its name leaves open holds what the module's calls hand it."""

from __future__ import annotations

from analysis_kit import leaf, model_of, verdict

from analysis.values import DateValue

# anthro's shape: the caller works the days out of the child's record, the helper looks the
# row up by a parameter named `d`.
LOOKUP = """
TABLE = {0: 'newborn', 365: 'one year', 730: 'two years'}

def _lookup_day(tbl, d):
    return tbl.get(round(d))

def z_score(params, tables):
    rad = params.get('age_days')
    days = round(float(rad)) if rad is not None else None
    def lookup_age(tbl_sex):
        return _lookup_day(tbl_sex, days)
    return lookup_age(tables[params.get('sex')])
"""


def test_a_parameter_takes_the_category_of_what_every_caller_passes() -> None:
    assert leaf(model_of(LOOKUP, "_lookup_day"), "d").category == "age"
    assert leaf(model_of(LOOKUP, "_lookup_day"), "tbl").category is None


def test_the_helper_is_reviewed_for_the_category() -> None:
    report = verdict(LOOKUP, "_lookup_day")
    assert "age" in {f.attribute for f in report.findings}


def test_the_helper_is_proved_on_a_table_keyed_by_the_ages_tried() -> None:
    """Handed a table, the helper looks a row up by the age: it is given one with a row for
    every age, keyed by number. `d: float` is a number here, though another function of the
    module reads `d.year` of a date."""
    source = (
        LOOKUP.replace("def _lookup_day(tbl, d):", "def _lookup_day(tbl: dict, d: float):")
        + "\ndef years_since(d, today):\n    return today.year - d.year\n"
    )
    days = leaf(model_of(source, "_lookup_day"), "d")
    assert not any(isinstance(v, DateValue) for v in days.pool)
    report = verdict(source, "_lookup_day")
    assert report.status == "biased", report.reason
    assert [(f.attribute, f.method) for f in report.findings] == [("age", "dynamic")]


def test_a_helper_also_called_with_something_else_stays_open() -> None:
    """`_scale(x)` also scales a price: its `x` is no person's age."""
    source = """
def _scale(x):
    return x * 2 if x > 40 else x

def premium(age, price):
    return _scale(age) + _scale(price)
"""
    assert leaf(model_of(source, "_scale"), "x").category is None


def test_a_constant_argument_leaves_the_parameter_open() -> None:
    source = """
def _band(x):
    return 'high' if x > 40 else 'low'

def premium(age):
    return _band(age), _band(10)
"""
    assert leaf(model_of(source, "_band"), "x").category is None


def test_callers_of_two_categories_leave_the_parameter_open() -> None:
    source = """
def _code(x):
    return 1 if x in ('f', 'old') else 0

def a(gender):
    return _code(gender)

def b(age_group):
    return _code(age_group)
"""
    assert leaf(model_of(source, "_code"), "x").category is None


def test_an_infrastructure_age_is_no_persons_age_in_the_helper_either() -> None:
    """werkzeug's shape: `max_age` of a cookie handed to a helper."""
    source = """
def _dump_age(x):
    return None if x is None else int(x.total_seconds()) if hasattr(x, 'total_seconds') else int(x)

def set_cookie(key, value, max_age=None):
    return key, value, _dump_age(max_age)
"""
    assert leaf(model_of(source, "_dump_age"), "x").category is None


def test_a_value_worked_out_with_other_inputs_is_something_else() -> None:
    """lohnsteuer-bmf's shape: the taxable income depends on the birth year (a care-insurance
    surcharge) and on the salary; the tariff helper it is handed to decides by income."""
    source = """
def _tariff(zve):
    return 0.0 if zve <= 12000 else zve * 0.3

def tax(brutto, geburtsjahr):
    surcharge = 600 if 2026 - geburtsjahr > 23 else 0
    zve = brutto - 1200 - surcharge
    return _tariff(zve)
"""
    assert leaf(model_of(source, "_tariff"), "zve").category is None


def test_a_number_looked_up_in_a_table_by_the_attribute_is_a_coefficient() -> None:
    """bp-percentile's shape: an interpolation helper handed the rows of the sex's reference
    table. The table's numbers for that sex are coefficients, not the sex; the code the sex
    is handed as (`sex_code`'s name, or the sex itself) still is."""
    source = """
REFERENCE = {"male": [{"age": 24, "l": 1.0}, {"age": 36, "l": 1.2}],
             "female": [{"age": 24, "l": 0.9}, {"age": 36, "l": 1.1}]}

def mean(a, b, weight):
    return a + (b - a) * weight

def label(s):
    return "boy" if s == "male" else "girl"

def lms(age_months, sex):
    rows = REFERENCE[sex]
    for i in range(len(rows) - 1):
        if rows[i]["age"] <= age_months < rows[i + 1]["age"]:
            w = (age_months - rows[i]["age"]) / 12
            return mean(rows[i]["l"], rows[i + 1]["l"], w), label(sex)
    return None
"""
    assert leaf(model_of(source, "mean"), "a").category is None
    assert leaf(model_of(source, "label"), "s").category == "gender"


def test_a_birth_date_and_the_day_of_measurement_make_an_age() -> None:
    source = """
import datetime

def _band(days):
    return 'infant' if days < 365 else 'child'

def assess(dob: datetime.date, measured: datetime.date):
    return _band((measured - dob).days)
"""
    assert leaf(model_of(source, "_band"), "days").category == "age"


def test_the_period_an_accessor_is_asked_for_is_no_part_of_the_value() -> None:
    """OpenFisca's shape: `person("age", period)` reads the age of that period."""
    source = """
def _band(years):
    return 'senior' if years >= 65 else 'adult'

def formula(person, period):
    age = person('age', period)
    return _band(age)
"""
    assert leaf(model_of(source, "_band"), "years").category == "age"


def test_a_total_made_with_helpers_handed_the_whole_record_stays_open() -> None:
    """cvd-risk's TIMI: the total adds the age's points to points other helpers work out
    from the whole patient, so `_risk_category(score)` is handed no age."""
    source = """
from dataclasses import dataclass

@dataclass
class Patient:
    age: int
    smoker: bool
    diabetes: bool

class TIMI:
    def _age_points(self, age):
        return 1 if age >= 65 else 0

    def _risk_factor_points(self, patient):
        return int(patient.smoker) + int(patient.diabetes)

    def _risk_category(self, score):
        return 'high' if score >= 2 else 'low'

    def calculate(self, patient: Patient):
        total = self._age_points(patient.age) + self._risk_factor_points(patient)
        return total, self._risk_category(total)
"""
    assert leaf(model_of(source, "TIMI._risk_category"), "score").category is None


# Actuarial notation (funciones-actuariales' commutation functions): the age is `x`; what it
# is compared with, and what the module's calls hand it, are named for what they are.
NOTATION = """
def Dx(x, i, tabla):
    return (1 + i) ** -x * tabla[x]


def Nx(x, i, tabla):
    total = 0.0
    for edad in sorted(tabla):
        if edad >= x:
            total += Dx(edad, i, tabla)
    return total


def count_above(n, items):
    return sum(1 for item in items if item > n)
"""


def test_a_parameter_compared_with_a_named_value_is_what_that_value_is() -> None:
    assert leaf(model_of(NOTATION, "Nx"), "x").category == "age"
    assert leaf(model_of(NOTATION, "count_above"), "n").category is None


def test_a_parameter_every_call_hands_a_named_value_is_what_that_value_is() -> None:
    assert leaf(model_of(NOTATION, "Dx"), "x").category == "age"
    assert leaf(model_of(NOTATION, "Dx"), "i").category is None  # `i` names nothing
