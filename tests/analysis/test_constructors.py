"""A constructor's own parameters are its inputs; it answers with what it prints or raises.
What it stores on the object is judged where it is read: by the method or property that
returns it (tests/realworld/README.md, "Constructors and methods that return None")."""

from __future__ import annotations

from analysis_kit import model_of, verdict

SOURCE = (
    "from decimal import Decimal\n"
    "class Visit:\n"
    "    def __init__(self, age_in_months, sex, note=''):\n"
    "        self.age = Decimal(age_in_months)\n"
    "        self.sex = sex.upper()\n"
    "        self.note = note\n"
    "class Premium:\n"
    "    def __init__(self, age, base):\n"
    "        self.age = age\n"
    "        self.amount = base * (2 if age > 60 else 1)\n"
    "    def quote(self):\n"
    "        return self.amount\n"
    "class Referral:\n"
    "    def __init__(self, age, reason):\n"
    "        self.reason = reason\n"
    "        if age > 70:\n"
    "            print('refer to a specialist:', reason)\n"
)


def test_a_constructor_s_inputs_are_its_own_parameters_only() -> None:
    model = model_of(SOURCE, "Visit.__init__")
    assert sorted(leaf.display for leaf in model.leaves) == ["age_in_months", "note", "sex"]


def test_a_constructor_that_only_keeps_its_inputs_is_clean() -> None:
    report = verdict(SOURCE, "Visit.__init__")
    assert report.status == "clean", (report.findings, report.reason)


def test_a_price_a_constructor_stores_by_age_is_found_where_it_is_returned() -> None:
    stored = verdict(SOURCE, "Premium.__init__")
    assert stored.status == "clean", (stored.findings, stored.reason)
    returned = verdict(SOURCE, "Premium.quote")
    assert returned.status == "biased", returned.reason
    assert [f.attribute for f in returned.findings] == ["age"]


def test_a_constructor_that_prints_its_decision_is_biased() -> None:
    report = verdict(SOURCE, "Referral.__init__")
    assert report.status == "biased", report.reason
    assert [f.attribute for f in report.findings] == ["age"]


# `*args` in a constructor: the extra positional arguments are one input, their number from the
# lengths the constructor checks, items lists when annotated as sequences (fitness-tools'
# skinfold calculators take `(age, sex, *args: Sequence[int])` and call `list(*args)`).
VARARGS_SOURCE = (
    "import math\n"
    "from typing import Sequence\n"
    "class Skinfolds:\n"
    "    def __init__(self, age: int, sex: str, *args: Sequence[int]) -> None:\n"
    "        if sex not in ('male', 'female'):\n"
    "            raise ValueError(sex)\n"
    "        self.age, self.sex = age, sex\n"
    "        self.folds = list(*args)\n"
    "        if len(self.folds) != 3:\n"
    "            raise ValueError('three skinfolds')\n"
    "        self.log_sum = math.log10(sum(self.folds))\n"
    "    def density(self) -> float:\n"
    "        if self.sex == 'male':\n"
    "            return 1.10938 - 0.0008267 * sum(self.folds) - 0.0002574 * self.age\n"
    "        return 1.0994921 - 0.0009929 * sum(self.folds) - 0.0001392 * self.age\n"
    "class Team:\n"
    "    def __init__(self, lead_gender, *members, label='team'):\n"
    "        self.lead_gender, self.members, self.label = lead_gender, members, label\n"
    "    def size(self):\n"
    "        return len(self.members) + (1 if self.lead_gender == 'female' else 0)\n"
    "def total(age, *scores):\n"
    "    return sum(scores) + (5 if age < 40 else 0)\n"
)


def test_a_constructor_s_star_args_are_given_as_many_as_it_checks_for() -> None:
    model = model_of(VARARGS_SOURCE, "Skinfolds.density")
    (extra,) = [leaf for leaf in model.leaves if leaf.name == "args"]
    assert extra.pool == [[[12, 15, 18]]]  # one positional argument: a list of three
    args, kwargs = model.assemble({leaf.path: leaf.pool[leaf.typical] for leaf in model.leaves})
    (instance,) = args
    assert instance["args"][2] == [12, 15, 18] and not instance["kwargs"]


def test_methods_of_a_class_built_with_star_args_are_tested() -> None:
    report = verdict(VARARGS_SOURCE, "Skinfolds.density")
    assert report.status == "biased", report.reason
    assert sorted(f.attribute for f in report.findings) == ["age", "gender"]
    team = verdict(VARARGS_SOURCE, "Team.size")
    assert [f.attribute for f in team.findings] == ["gender"], team.reason


def test_a_constructor_with_star_args_keeping_the_age_beside_an_equal_sum_is_no_finding() -> None:
    """Age 45 kept next to a sum of skinfolds of 45 (12 + 15 + 18) is still an echo; refusing
    a non-binary sex is a finding."""
    report = verdict(VARARGS_SOURCE, "Skinfolds.__init__")
    assert [(f.attribute, f.kind) for f in report.findings] == [("gender", "refuses")]


def test_a_function_s_star_args_follow_its_named_parameters_by_position() -> None:
    model = model_of(VARARGS_SOURCE, "total")
    values = {leaf.path: leaf.pool[leaf.typical] for leaf in model.leaves}
    (extra,) = [leaf for leaf in model.leaves if leaf.name == "scores"]
    values[extra.path] = [12, 15]
    assert model.assemble(values) == ([30, 12, 15], {})
    assert [f.attribute for f in verdict(VARARGS_SOURCE, "total").findings] == ["age"]


# A constructor given what the module loads: anthro's `create_anthro(day_tables,
# month_tables)` wants the WHO tables `_load_day_tables()` returns, keyed by indicator and sex.
MADE_SOURCE = (
    "_cache = {}\n"
    "def _load_tables(scale=1.0):\n"
    "    if 'wfa' not in _cache:\n"
    "        _cache['wfa'] = {'M': {1: 3.3 * scale, 2: 4.5 * scale},\n"
    "                         'F': {1: 3.2 * scale, 2: 4.2 * scale}}\n"
    "    return _cache\n"
    "def get_age(): return 30\n"
    "class Growth:\n"
    "    def __init__(self, tables, age):\n"
    "        if 'wfa' not in tables:\n"
    "            raise ValueError('missing table wfa')\n"
    "        self._t = tables\n"
    "        self.age = age\n"
    "    def median_weight(self, sex, month):\n"
    "        return self._t['wfa'][sex].get(month)\n"
)


def test_a_constructor_parameter_the_module_loads_is_loaded_not_made_up() -> None:
    model = model_of(MADE_SOURCE, "Growth.median_weight")
    assert {leaf.name for leaf in model.leaves} == {"age", "sex", "month"}  # not the tables
    args, _ = model.assemble({leaf.path: leaf.pool[leaf.typical] for leaf in model.leaves})
    assert args[0]["kwargs"]["tables"] == {"__cb__": "made", "function": "_load_tables"}
    report = verdict(MADE_SOURCE, "Growth.median_weight")
    assert [f.attribute for f in report.findings] == ["gender"], report.reason


def test_a_constructor_given_column_names_takes_no_person() -> None:
    """akiFlagger's `AKIFlagger(age="age", sex="sex", race="race")` names a frame's columns;
    `sex="female"` is a value and stays an input."""
    source = (
        "class Flagger:\n"
        "    def __init__(self, creatinine='creatinine', age='age', sex='sex', race='race'):\n"
        "        self.age, self.sex, self.race = age, sex, race\n"
        "def quote(age=30, sex='female'):\n"
        "    return 2 if sex == 'female' and age > 40 else 1\n"
    )
    assert not model_of(source, "Flagger.__init__").protected
    assert {leaf.name for leaf in model_of(source, "quote").protected} == {"age", "sex"}


def test_records_passed_one_per_extra_argument_are_people() -> None:
    source = "def count(*people):\n    return sum(1 for p in people if p['gender'] == 'female')\n"
    assert verdict(source, "count").biased_attributes == ["gender"]


CONFIGURED_PROBE = """\
from abc import ABC, abstractmethod
from enum import Enum


class Method(Enum):
    MINIMUM = "minimum"
    CALCULATED = "calculated"


class Probe(ABC):
    @abstractmethod
    def probe(self, patient): ...


class BaselineProbe(Probe):
    def __init__(self, method: Method = Method.MINIMUM) -> None:
        self._method: Method = method

    def baseline(self, patient):
        if self._method == Method.CALCULATED:
            return (140 - patient["age"]) / 72
        return 1.0
"""


def test_a_mode_the_method_branches_on_is_an_input_and_an_abstract_class_is_made() -> None:
    """The age counts only when the probe is set up with `Method.CALCULATED`: the mode the
    constructor keeps is searched, and the abstract class is made through a stand-in
    subclass."""
    model = model_of(CONFIGURED_PROBE, "BaselineProbe.baseline")
    assert "self._method" in {leaf.display for leaf in model.leaves}
    report = verdict(CONFIGURED_PROBE, "BaselineProbe.baseline")
    assert report.biased_attributes == ["age"], report.reason


SELF_LOADING = """\
import csv
import io

TABLE = "first_name,sex,count\\nmary,f,90\\nmary,m,1\\njohn,m,80\\njohn,f,2\\n"


def read_table():
    return list(csv.DictReader(io.StringIO(TABLE)))


class Names:
    def __init__(self, table=None):
        if table is None:
            self._table = read_table()
        else:
            self._table = table

    def count(self, first_name, sex):
        if sex not in ("m", "f"):
            raise ValueError("sex must be 'm' or 'f'")
        return sum(
            int(row["count"])
            for row in self._table
            if row["first_name"] == first_name.lower() and row["sex"] == sex
        )
"""


def test_a_table_the_constructor_reads_in_itself_is_not_made_up() -> None:
    """agefromname's `AgeFromName(mortality_df=None)` reads its CSV when given none: the
    instance keeps that real table (no record of the fields its methods read stands in for
    it), and a first name is a common one, which the table has."""
    model = model_of(SELF_LOADING, "Names.count")
    assert not [leaf for leaf in model.leaves if leaf.path[0] == ("param", "self")]
    first = next(leaf for leaf in model.leaves if leaf.name == "first_name")
    assert first.pool[first.typical] == "Mary"
    assert verdict(SELF_LOADING, "Names.count").biased_attributes == ["gender"]
