"""A person kept inside an object the method reaches through its instance (analysis/facts/
instance_reads.py, analysis/inputs/instances.py): `self.settings.age`, `s = self.settings;
s.age`, `self.patient.record.age`, read in the method or in the methods and properties of
its class it reaches through `self`. The synthesised instance is built with that object: by
the held class's own constructor when its annotation names one, else as a record of the
fields read; the leaf inside is the protected input the search varies."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from analysis_kit import leaf, model_of, verdict, write_package

from analysis import Engine
from analysis.execution.process import ProcessExecutor
from analysis.facts.in_place import changed_in_place
from analysis.shapes import ObjectShape
from config.policy import build_policy, default_policy

# A calculator holding its taxpayer's settings, as income-tax packages do: the settings'
# class keeps the age its constructor takes; the calculator's methods read it through
# `self.settings`, directly, through a local alias, or through a property of their own.
CALCULATOR = """\
class TaxSettings:
    def __init__(self, age: int, financial_year: int = 2025, metro: bool = True):
        if age < 18:
            raise ValueError("a taxpayer is an adult")
        self.age = age
        self.financial_year = financial_year
        self.metro = metro


class IncomeTaxCalculator:
    def __init__(self, settings: TaxSettings, salary: float):
        self.settings = settings
        self.salary = salary

    @property
    def total_deductions(self):
        if self.settings.age > 60:
            return 50000
        return 10000

    def taxable(self):
        return max(self.salary - self.total_deductions, 0)

    def rate(self):
        s = self.settings
        return 0.05 if s.age >= 80 else 0.1

    def summary(self):
        if self.settings.age > 150:
            raise ValueError("no one is that old")
        return {"salary": self.salary, "year": self.settings.financial_year}
"""


def test_a_field_of_an_object_the_instance_holds_is_an_input_built_by_its_constructor() -> None:
    model = model_of(CALCULATOR, "IncomeTaxCalculator.total_deductions")
    protected = {leaf.display: leaf.category for leaf in model.protected}
    assert protected == {"self.settings.age": "age"}
    (instance,) = model.params
    assert isinstance(instance.shape, ObjectShape)
    settings = instance.shape.fields["settings"]
    assert isinstance(settings, ObjectShape) and settings.cls == "TaxSettings"
    # The constructor's own defaults stand for what the method does not read.
    assert sorted(settings.fields) == ["age"]


def test_a_property_reading_the_held_settings_age_is_biased_with_a_proof() -> None:
    report = verdict(CALCULATOR, "IncomeTaxCalculator.total_deductions")
    assert report.status == "biased", (report.reason, report.findings)
    (finding,) = report.findings
    assert finding.attribute == "age" and finding.parameter == "self.settings.age"
    assert finding.example is not None
    assert finding.example.outputs[0] != finding.example.outputs[1]


def test_the_held_object_is_reached_through_an_alias_and_through_the_class_s_property() -> None:
    assert verdict(CALCULATOR, "IncomeTaxCalculator.rate").status == "biased"
    taxable = verdict(CALCULATOR, "IncomeTaxCalculator.taxable")
    assert taxable.status == "biased", (taxable.reason, taxable.findings)
    assert [f.attribute for f in taxable.findings] == ["age"]


def test_a_held_age_read_only_to_check_it_is_tested_and_clean() -> None:
    report = verdict(CALCULATOR, "IncomeTaxCalculator.summary")
    assert report.status == "clean", (report.reason, report.findings)
    assert report.attributes_tested == ["age"]


# A clinic holding a patient it is handed with no annotation: what the methods read of it
# (two objects deep) is all there is to build it from.
CLINIC = """\
class Clinic:
    def __init__(self, patient, fee=40.0):
        self.patient = patient
        self.fee = fee

    def triage(self):
        if self.patient.record.age > 70:
            return "urgent"
        return "routine"

    def price(self):
        return self.fee * (1.2 if self.patient.sex == "female" else 1.0)

    def greeting(self):
        return "Dear " + self.patient.name + (" (" + self.patient.sex + ")" if False else "")
"""


def test_an_unannotated_held_object_is_a_record_of_what_the_methods_read() -> None:
    model = model_of(CLINIC, "Clinic.triage")
    assert [leaf.display for leaf in model.protected] == ["self.patient.record.age"]
    triage = verdict(CLINIC, "Clinic.triage")
    assert triage.status == "biased", (triage.reason, triage.findings)
    price = verdict(CLINIC, "Clinic.price")
    assert price.status == "biased", (price.reason, price.findings)
    assert [f.attribute for f in price.findings] == ["gender"]


def test_a_held_sex_that_never_changes_the_output_is_clean() -> None:
    report = verdict(CLINIC, "Clinic.greeting")
    assert report.status == "clean", (report.reason, report.findings)
    assert report.attributes_tested == ["gender"]


# A dataclass holding an object of a plain class, and one holding a dataclass in turn.
RECORDS = """\
from dataclasses import dataclass


class Holder:
    def __init__(self, sex, age):
        self.sex = sex
        self.age = age


@dataclass
class Profile:
    gender: str
    city: str


@dataclass
class Applicant:
    profile: Profile
    income: float


@dataclass
class Policy:
    holder: Holder
    base: float = 100.0

    def premium(self):
        return self.base * (1.3 if self.holder.sex == "male" else 1.0)


class Quote:
    def __init__(self, applicant: Applicant):
        self.applicant = applicant

    def offer(self):
        a = self.applicant
        return a.income * (0.9 if a.profile.gender == "female" else 1.0)
"""


def test_a_dataclass_holding_a_plain_class_s_object_builds_it_by_its_constructor() -> None:
    model = model_of(RECORDS, "Policy.premium")
    # The constructor requires both; the search varies what the method reads.
    assert [leaf.display for leaf in model.protected] == ["self.holder.sex", "self.holder.age"]
    instance = model.params[0].shape
    assert isinstance(instance, ObjectShape)
    holder = instance.fields["holder"]
    assert isinstance(holder, ObjectShape) and holder.cls == "Holder"
    report = verdict(RECORDS, "Policy.premium")
    assert report.status == "biased", (report.reason, report.findings)
    assert [f.parameter for f in report.findings] == ["self.holder.sex"]


def test_a_dataclass_inside_a_dataclass_held_by_the_instance_is_varied() -> None:
    report = verdict(RECORDS, "Quote.offer")
    assert report.status == "biased", (report.reason, report.findings)
    assert [f.parameter for f in report.findings] == ["self.applicant.profile.gender"]


# vitalscore's HEARTResult: a frozen dataclass of five scores whose `risk_category` reads
# only `self.total`, a property summing them, the age band among them.
SCORES = """\
import enum
from dataclasses import dataclass


class AgeBand(enum.IntEnum):
    UNDER_45 = 0
    FROM_45 = 1
    FROM_65 = 2


@dataclass(frozen=True)
class Result:
    history: int
    age: AgeBand
    troponin: int

    @property
    def total(self) -> int:
        return self.history + int(self.age) + self.troponin

    @property
    def risk_category(self) -> str:
        return "Low" if self.total <= 3 else "Moderate"

    def advice(self) -> str:
        return "discharge" if self.risk_category == "Low" else "observe"
"""


@pytest.mark.parametrize("qualname", ["Result.risk_category", "Result.advice"])
def test_a_field_the_instance_s_own_properties_read_is_read_by_the_method(qualname: str) -> None:
    report = verdict(SCORES, qualname)
    assert report.status == "biased", (report.reason, report.findings)
    assert [f.parameter for f in report.findings] == ["self.age"]


# A package: the calculator and its settings in two modules, the settings imported.
PACKAGE = {
    "taxes/__init__.py": "",
    "taxes/models.py": """\
        class Settings:
            def __init__(self, age: int, resident: bool = True):
                self.age = age
                self.resident = resident
    """,
    "taxes/calculator.py": """\
        from .models import Settings


        class Calculator:
            def __init__(self, settings: Settings, income: float):
                self.settings = settings
                self.income = income
                self._cache = {}

            def allowance(self):
                if "allowance" not in self._cache:
                    self._cache["allowance"] = 3000 if self.settings.age >= 65 else 1000
                return self._cache["allowance"]

            def tax(self):
                return round((self.income - self.allowance()) * 0.2, 2)
    """,
    "tests/test_calculator.py": """\
        from taxes.calculator import Calculator
        from taxes.models import Settings


        def test_a_pensioner_pays_less():
            young = Calculator(Settings(age=30), income=20000)
            old = Calculator(Settings(age=70), income=20000)
            assert old.tax() < young.tax()
    """,
}


def package(root: Path) -> Path:
    write_package(root, PACKAGE)
    (root / ".git").mkdir()  # a repository: its tests are run and recorded
    return root


def test_a_held_object_of_a_class_imported_from_another_module_is_built(tmp_path: Path) -> None:
    root = package(tmp_path / "repo")
    # No recorded call: the instance is the synthesised one.
    policy = build_policy([{"evidence": {"enabled": False}}])
    with Engine(policy, executor=ProcessExecutor()) as synthesised:
        report = synthesised.scan_paths([str(root / "taxes")])
    found = {f.qualname: f for f in report.functions}
    assert found["Calculator.allowance"].status == "biased", found["Calculator.allowance"].reason
    assert found["Calculator.tax"].status == "biased", found["Calculator.tax"].reason


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_the_package_s_tests_give_the_held_object_and_the_proof_says_so(tmp_path: Path) -> None:
    root = package(tmp_path / "repo")
    with Engine(default_policy()) as sandboxed:
        report = sandboxed.scan_paths([str(root / "taxes")])
    found = {f.qualname: f for f in report.functions}
    tax = found["Calculator.tax"]
    assert tax.status == "biased", (tax.reason, tax.findings)
    sources = {f.example.source for f in tax.findings if f.example is not None}
    assert "tests/test_calculator.py::test_a_pensioner_pays_less" in sources


# What a value has itself (`.value` of an enum member, `.year` of a date) makes no object of
# it: the member or the date is the input, as where the method is given it directly.
VALUES = """\
import datetime
import enum


class Sex(enum.Enum):
    MALE = "male"
    FEMALE = "female"


class Member:
    def __init__(self, sex: Sex, born: datetime.date, gender=None):
        self.sex = sex
        self.born = born
        self.gender = gender

    def fee(self):
        return 10 if self.sex.value == "female" else 12

    def senior(self):
        return self.born.year < 1960

    def title(self):
        return self.gender.name
"""


@pytest.mark.parametrize("method", ["fee", "senior", "title"])
def test_a_held_value_read_by_its_own_attributes_stays_the_value(method: str) -> None:
    model = model_of(VALUES, f"Member.{method}")
    assert {leaf.display: leaf.category for leaf in model.protected} == {
        "self.sex": "gender",
        "self.born": "age",
    }
    assert str(model.leaves[0].pool[0]) == "Sex.MALE"  # a member of the enum
    # `gender=None` keeps its default: `.name` of it makes it no object to build.
    assert all(not leaf.display.startswith("self.gender") for leaf in model.leaves)


# pygrowup's shape: the constructor keeps what it MAKES of a parameter (`self.logger =
# logging.getLogger(logger_name)`); the methods read that made object (`self.logger.name`),
# not the parameter, which keeps its default.
MADE_FROM_A_PARAMETER = """\
import logging


class Calculator:
    def __init__(self, adjust=False, logger_name="growth", log_level="INFO"):
        self.logger = logging.getLogger(logger_name)
        self.logger.setLevel(getattr(logging, log_level))
        self.adjust = adjust

    def zscore(self, measurement, sex):
        self.logger.debug("%s: zscore for %s", self.logger.name, sex)
        base = 12.0 if sex == "female" else 13.0
        return round((measurement - base) / 2.0, 2)
"""


def test_an_object_the_constructor_makes_of_a_parameter_is_no_object_of_the_parameter() -> None:
    report = verdict(MADE_FROM_A_PARAMETER, "Calculator.zscore")
    assert report.status == "biased", report.reason
    assert report.biased_attributes == ["gender"]


def test_an_object_kept_as_given_or_a_default_is_the_parameter_s() -> None:
    """taxcalcindia's shape: `self.business = business or BusinessIncome()`."""
    source = (
        "class Settings:\n"
        "    def __init__(self, age: int = 40):\n"
        "        self.age = age\n\n\n"
        "class Calc:\n"
        "    def __init__(self, salary: float, settings: Settings | None = None):\n"
        "        self.salary = salary\n"
        "        self.settings = settings or Settings()\n\n"
        "    def rebate(self):\n"
        "        return 5000 if self.settings.age >= 60 else 0\n"
    )
    report = verdict(source, "Calc.rebate")
    assert report.biased_attributes == ["age"], report.reason


# cvd-risk's PREDICT: `calculate` keeps the patient's sex on the instance for the helpers it
# calls; a constructed instance has none, so the helper read it and raised for every
# ethnicity the code names (validation, as "maori" is no value every function must serve),
# returning only for the others: clean.
KEPT_BY_ANOTHER_METHOD = """\
class Predict:
    model_year = 2019

    def __init__(self, cohort="nz"):
        self.cohort = cohort
        self._load_scale()

    def _load_scale(self):
        self._scale = {"nz": 1.0, "au": 0.9}

    def _ethnicity_coefficient(self, ethnicity):
        scale = self._scale[self.cohort]
        if ethnicity == "maori":
            return scale * (0.317 if self._current_sex == "male" else 0.312)
        if ethnicity == "pacific":
            return scale * (0.417 if self._current_sex == "male" else 0.398)
        return 0.0

    def calculate(self, patient):
        self._current_sex = patient["sex"]
        return 1.0 + self._ethnicity_coefficient(patient["ethnicity"])
"""


def test_state_another_method_keeps_on_the_instance_is_an_input() -> None:
    model = model_of(KEPT_BY_ANOTHER_METHOD, "Predict._ethnicity_coefficient")
    assert sorted(lf.display for lf in model.protected) == ["ethnicity", "self._current_sex"]
    # What the constructor sets through a method it calls (`self._scale`) every instance has.
    assert not any(("attr", "_scale") in lf.path for lf in model.leaves)
    report = verdict(KEPT_BY_ANOTHER_METHOD, "Predict._ethnicity_coefficient")
    assert sorted(f.attribute for f in report.findings) == ["gender", "race"]
    # The counterexample shows the state under the attribute's own name.
    shown = [f.example.inputs["self"] for f in report.findings if f.example is not None]
    assert shown and all("_current_sex" in str(i) and "@" not in str(i) for i in shown)
    # What the method asked about sets itself, before its helpers read it, is no input.
    model = model_of(KEPT_BY_ANOTHER_METHOD, "Predict.calculate")
    shown = sorted(lf.display for lf in model.protected)
    assert shown == ["patient['ethnicity']", "patient['sex']"]


# The pooled cohort equations as one class (emji-ascvd-calculator): the constructor turns the
# sex and race into flags, and the baseline survival reads only the flags.
FLAGS_MADE_BY_THE_CONSTRUCTOR = """\
class Equation:
    def __init__(self, age, sex, race, smoker):
        self.age = age
        self.smoker = smoker
        self.is_female = sex == "female"
        self.is_african = race == "african_american"

    def baseline(self):
        if self.is_african and self.is_female:
            return 0.95334
        if self.is_female:
            return 0.96652
        return 0.91436 if not self.is_african else 0.89536
"""


def test_an_attribute_the_constructor_makes_of_a_parameter_reads_that_parameter() -> None:
    report = verdict(FLAGS_MADE_BY_THE_CONSTRUCTOR, "Equation.baseline")
    assert sorted(f.attribute for f in report.findings) == ["gender", "race"], report.reason


# A method that returns nothing and only stores on its object (cgmzscore's LmsBoxCox picks its
# table into `self.table`) is judged by what it prints or raises: the table is judged where it
# is read. One that fills in a record it is given answers with that record.
CHART = """
class Chart:
    def __init__(self, chart: str, sex: str, age_in_days: int):
        self.chart = chart
        self.sex = sex
        self.age_in_days = age_in_days

    def pick_table(self):
        if self.sex == "M":
            table_sex = "boys"
        else:
            table_sex = "girls"
        self.table = f"{self.chart}_{table_sex}"

    def table_name(self):
        self.pick_table()
        return self.table

    def fill(self, row: dict):
        row["table"] = "boys" if self.sex == "M" else "girls"
"""


def test_what_a_method_stores_on_its_object_is_judged_where_it_is_read() -> None:
    assert verdict(CHART, "Chart.pick_table").status == "clean"
    report = verdict(CHART, "Chart.table_name")
    assert report.status == "biased" and {f.attribute for f in report.findings} == {"gender"}


def test_what_a_method_fills_in_a_record_it_is_given_is_its_output() -> None:
    report = verdict(CHART, "Chart.fill")
    assert report.status == "biased" and {f.attribute for f in report.findings} == {"gender"}


def test_the_parameters_a_procedure_changes_are_found_in_its_source() -> None:
    tree = ast.parse(
        "def fill(customer, rate, log):\n"
        "    customer['discount'] = rate\n"
        "    log.append(rate)\n"
        "def answer(customer):\n"
        "    customer['seen'] = True\n"
        "    return 1\n"
        "def reads(customer):\n"
        "    print(customer['age'])\n"
    )
    found = {f.name: changed_in_place(f) for f in tree.body if isinstance(f, ast.FunctionDef)}
    assert found == {"fill": ("customer", "log"), "answer": (), "reads": ()}
    method = ast.parse("def keep(self, row):\n    self.seen = row\n    row['seen'] = True\n")
    assert changed_in_place(method.body[0], instance="self") == ("row",)


# Fields a caller, a loader or an ORM puts on the instance: columns declared in the class body
# (`age = Column(...)`), a record poured into `__dict__`, attributes a classmethod sets.
SET_FROM_OUTSIDE = """
class Column:
    def __init__(self, *args):
        self.args = args


class Patient:
    age = Column("age")
    VERSION = 2

    def risk(self):
        return 2 if self.age > 70 else 1


class Loaded:
    def __init__(self, record):
        self.__dict__.update(record)

    def eligible(self):
        return self.age >= 18 and self.income > 1000


class Stock:
    def __init__(self, record):
        self.__dict__.update(record)

    def value(self):
        return self.price * self.units
"""


def test_what_an_orm_or_a_loader_puts_on_the_instance_is_its_input() -> None:
    assert verdict(SET_FROM_OUTSIDE, "Patient.risk").biased_attributes == ["age"]
    assert verdict(SET_FROM_OUTSIDE, "Loaded.eligible").biased_attributes == ["age"]
    assert verdict(SET_FROM_OUTSIDE, "Stock.value").status == "skipped"  # no person there


# A constructor that sets what the methods read from elsewhere: a file it opens, a line it
# parses, the items another method appends. The instance is made without it, the attributes
# the method reads set by hand.
SET_FROM_ELSEWHERE = """
import json


class FromFile:
    def __init__(self, path):
        with open(path) as f:
            self.sex = json.load(f)["sex"]

    def dose(self):
        return 5 if self.sex == "F" else 7


class Parsed:
    def __init__(self, line: str):
        parts = line.split(",")
        self.name, self.age = parts[0], int(parts[1])

    def senior(self):
        return self.age >= 65


class Register:
    def __init__(self):
        self.people = []

    def add(self, name, age):
        self.people.append({"name": name, "age": age})

    def seniors(self):
        return [p["name"] for p in self.people if p["age"] > 65]
"""


@pytest.mark.parametrize(
    ("qualname", "attribute"),
    [("FromFile.dose", "gender"), ("Parsed.senior", "age"), ("Register.seniors", "age")],
)
def test_an_instance_whose_constructor_reads_elsewhere_is_made_without_it(
    qualname: str, attribute: str
) -> None:
    assert verdict(SET_FROM_ELSEWHERE, qualname).biased_attributes == [attribute]


# A record whose constructor sets defaults and whose caller fills it in afterwards (detax's
# `TaxData`): the method reads the state only through a property, and the denomination is
# kept as a code tested for truth (`if self.church_tax:`, False for no church).
FILLED_IN_AFTER = """
class TaxData:
    def __init__(self, year):
        self.year = year
        self.income = 0
        self.state = 'BW'
        self.church_tax = False

    @property
    def church_tax_rate(self):
        return 0.08 if self.state in ('BW', 'BY') else 0.09

    def calc_tax(self):
        tax = round(self.income * 0.2, 2)
        taxes = [(tax, 'income tax')]
        if self.church_tax:
            taxes.append((round(tax * self.church_tax_rate, 2), 'church tax'))
        return taxes
"""


def test_a_field_read_through_a_property_and_a_denomination_tested_for_truth_are_proved() -> None:
    """`self.state` is read by the property alone, and set after construction: the search
    varies it. `if self.church_tax:` beside no value but codes: no church (False) against a
    member (True) proves the religion."""
    model = model_of(FILLED_IN_AFTER, "TaxData.calc_tax")
    assert leaf(model, "self.state").read_in == "church_tax_rate"
    assert {True, False} <= set(leaf(model, "self.church_tax").pool)
    report = verdict(FILLED_IN_AFTER, "TaxData.calc_tax")
    assert report.biased_attributes == ["region", "religion"], report.reason


# A model the constructor works out from the person through its locals and its own earlier
# attributes (python-anesthesia-simulator's `CompartmentModel`): the method reads only the
# result, and the person's list is its input all the same.
WORKED_OUT_IN_STEPS = """
class CompartmentModel:
    def __init__(self, characteristics: list, ts: float = 1.0):
        age = characteristics[0]
        weight = characteristics[2]
        clearance = 1.89 + 0.0456 * (weight - 77) - 0.024 * (age - 53)
        self.rates = (clearance, clearance / 4.27)
        self.step_factor = self.rates[0] * ts

    def one_step(self, u: float) -> float:
        return round(u * self.step_factor, 4)
"""


def test_a_parameter_worked_into_the_attributes_a_method_reads_is_its_input() -> None:
    model = model_of(WORKED_OUT_IN_STEPS, "CompartmentModel.one_step")
    assert leaf(model, "self.characteristics[0]").read_in == "__init__"
    report = verdict(WORKED_OUT_IN_STEPS, "CompartmentModel.one_step")
    assert report.biased_attributes == ["age"], report.reason
