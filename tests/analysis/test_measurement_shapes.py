"""How clinical and scientific code hands over a person's values: measurements as `(amount,
unit)` tuples or `{"value": .., "unit": ..}` records, decorators that rename parameters,
limits declared in `Annotated`, keys the source does not spell at the read. Each case runs
the real engine on a small function (children with rlimits, as in the other engine tests)."""

from __future__ import annotations

import pytest
from analysis_kit import engine, model_of, verdict

from analysis.execution.harness.output import mask_text
from analysis.facts.param_docs import described
from analysis.search.missing_fields import missing_key
from analysis.search.search import absent


def biased_for(source: str, qualname: str = "f") -> set[str]:
    report = verdict(source, qualname)
    return {f.attribute for f in report.findings if f.method == "dynamic"}


CASES = {
    "a tuple read by position": (
        "def f(patient):\n"
        "    age = patient['age'][0]\n"
        "    years = age / 12 if patient['age'][1] == 'months' else age\n"
        "    return 'adult' if years >= 18 else 'child'\n",
        {"age"},
    ),
    "a tuple unpacked in a helper": (
        "def years(age):\n"
        "    value, unit = age\n"
        "    return value / 12 if unit == 'months' else value\n"
        "def f(patient):\n"
        "    return 2 if years(patient['age']) >= 65 else 1\n",
        {"age"},
    ),
    "a measurement record": (
        "def f(patient):\n    return patient['age']['value'] > 70\n",
        {"age"},
    ),
    "a key passed to a helper": (
        "def get_value(patient, key):\n    return patient[key]['value']\n"
        "def f(patient):\n    return int(get_value(patient, 'age') > 70)\n",
        {"age"},
    ),
    "a decorator without functools.wraps": (
        "def batch(func):\n"
        "    def inner(data):\n"
        "        return [func(d) for d in data] if isinstance(data, list) else func(data)\n"
        "    return inner\n"
        "@batch\n"
        "def f(params):\n    return params['Sex category'] == 'female'\n",
        {"gender"},
    ),
    "limits in Annotated, checked by a decorator": (
        "from typing import Annotated, get_type_hints\n"
        "import functools\n"
        "def checked(func):\n"
        "    hints = get_type_hints(func, include_extras=True)\n"
        "    @functools.wraps(func)\n"
        "    def wrapper(**kwargs):\n"
        "        for name, value in kwargs.items():\n"
        "            low, high = hints[name].__metadata__[0]\n"
        "            if not low <= value <= high:\n"
        "                raise ValueError(name)\n"
        "        return func(**kwargs)\n"
        "    return wrapper\n"
        "@checked\n"
        "def f(age: Annotated[float, (30, 90)], sbp: Annotated[float, (70, 200)]) -> float:\n"
        "    return round(0.06 * age + 0.004 * sbp, 3)\n",
        {"age"},
    ),
    "a threshold chosen by a branch": (
        "def f(male: bool, grip: float) -> bool:\n"
        "    cut = 27.0 if male else 16.0\n"
        "    return grip < cut\n",
        {"gender"},
    ),
    "keys listed in a constant": (
        "REQUIRED = ('Age in years', 'Hypertension')\n"
        "def f(params):\n"
        "    for key in REQUIRED:\n"
        "        if params[key] is None:\n"
        "            raise ValueError(key)\n"
        "    return params[REQUIRED[0]] >= 75\n",
        {"age"},
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_person_is_found_and_the_bias_proved(case: str) -> None:
    source, expected = CASES[case]
    assert biased_for(source) == expected


def test_the_first_letter_of_a_word_is_no_tuple() -> None:
    model = model_of("def f(patient):\n    return 2 if patient['sex'][0].upper() == 'F' else 3\n")
    assert [leaf.display for leaf in model.leaves] == ["patient['sex']"]
    assert biased_for("def f(sex):\n    return 2 if sex[0].upper() == 'F' else 3\n") == {"gender"}


def test_the_unit_of_a_tuple_is_no_protected_input() -> None:
    model = model_of("def f(age):\n    value, unit = age\n    return value > 65\n")
    assert {(leaf.display, leaf.category) for leaf in model.leaves} == {
        ("age[0]", "age"),
        ("age[1]", None),
    }


def test_missing_keys_are_read_from_the_error() -> None:
    assert missing_key("KeyError: 'Sex category'") == (["Sex category"], "key")
    assert missing_key("AttributeError: age") == (["age"], "attr")
    assert missing_key("KeyError: 0") is None
    assert missing_key("AttributeError: 'int' object has no attribute 'age'") is None
    assert missing_key("ValueError: age") is None


def test_a_missing_value_is_no_witness() -> None:
    assert all(absent(v) for v in (None, float("nan"), "", " Unknown ", "N/A"))
    assert not any(absent(v) for v in (0, "female", "non-binary", False))
    source = "def f(age=None):\n    return 'age unknown' if age is None else 'ok'\n"
    assert verdict(source).status == "clean"


def test_a_formatted_echo_is_masked() -> None:
    assert mask_text("age=30.0 yr", [30]) == mask_text("age=45.0 yr", [45])
    assert mask_text("age=0.1 yr", [0.0769]) == mask_text("age=0.0 yr", [0])
    # the 1 of another input's -1, or of 1.5, is no echo of an age of 1
    assert mask_text("weight=-1 kg, dose=1.5", [1]) == "weight=-1 kg, dose=1.5"


def test_tests_are_not_reviewed() -> None:
    source = "def test_senior(age=70):\n    assert age > 65\n"
    report = engine().scan_function(source, "tests/test_pension.py", "test_senior")
    assert (report.status, report.reason) == ("skipped", "a test function")
    assert engine().scan_function(source, "pension.py", "test_senior").status != "skipped"


def test_a_command_line_command_runs_its_function() -> None:
    pytest.importorskip("click")
    source = (
        "import click\n"
        "@click.command()\n"
        "@click.option('--age', type=float)\n"
        "def f(age):\n"
        "    click.echo('paediatric dose' if age < 18 else 'adult dose')\n"
    )
    assert biased_for(source) == {"age"}


def test_a_class_that_refuses_a_value_is_not_built_by_hand() -> None:
    # Built by hand past its validation, an age of 131 would keep the sex unnormalised ('m'
    # where every valid patient has 'M'): a difference no real call can show.
    source = (
        "from dataclasses import dataclass\n"
        "@dataclass\n"
        "class Patient:\n"
        "    age: float\n"
        "    sex: str = 'm'\n"
        "    def __post_init__(self):\n"
        "        if not 0 <= self.age <= 130:\n"
        "            raise ValueError('age out of range')\n"
        "        self.sex = self.sex.upper()\n"
        "    def label(self):\n"
        "        return f'{self.age:.1f} yr, {self.sex}'\n"
    )
    assert biased_for(source, "Patient.label") == set()


def test_a_first_call_that_kills_the_child_is_no_internal_error() -> None:
    source = "import os\ndef f(person):\n    os._exit(3)\n    return person['age'] > 60\n"
    report = verdict(source)
    assert "internal error" not in (report.reason or "")
    assert report.status in ("unverified", "error")


def test_a_child_that_dies_mid_search_leaves_the_static_review() -> None:
    """A function that ends the interpreter for older people (or runs past the time limit)
    kills the session before any proof: an `error` (the README's word for it), and what the
    code says still holds beside it."""
    source = "import os\ndef f(age):\n    if age > 60:\n        os._exit(3)\n    return age * 2\n"
    report = verdict(source)
    assert report.status == "error", report.reason
    assert report.reason and report.reason.endswith("judged statically")
    assert report.executions >= 1
    assert [(f.attribute, f.method) for f in report.findings] == [("age", "static")]


DOCUMENTED = (
    "def qx(mt, x):\n"
    '    """Probability that a life aged x dies within the year.\n'
    "    Args:\n"
    "        mt: the mortality table\n"
    "        x: the age as integer number.\n"
    '    """\n'
    "    return mt.qx[x] if x < len(mt.qx) else 0\n"
    "def Ax(mt, x):\n"
    '    """Net single premium of a whole life insurance."""\n'
    "    return mt.Mx[x] / mt.Dx[x]\n"
    "def premium(s, base):\n"
    '    """:param s: sex of the insured\n    :param base: base premium"""\n'
    "    return base * (1.2 if s == 'M' else 1.0)\n"
    "def neighbours(nodes, d):\n"
    '    """d: the degree of the node"""\n'
    "    return [n for n in nodes if n > d]\n"
)


def test_a_parameter_documented_as_an_age_is_one() -> None:
    # `x` is documented in qx; Ax's own docstring is silent, and the module's word holds.
    assert biased_for(DOCUMENTED, "qx") == {"age"}
    assert biased_for(DOCUMENTED, "Ax") == {"age"}
    assert biased_for(DOCUMENTED, "premium") == {"gender"}
    # a word that names other things too counts only beside a person
    assert verdict(DOCUMENTED, "neighbours").status == "skipped"


# Parameters described where they are declared: typer's `help=` and option names, FastAPI's
# and pydantic's `description=`.
DECLARED = """\
from typing import Annotated

import typer
from fastapi import Query


def dose(s: Annotated[str, typer.Option(help="Patient sex (M or F)")], weight: float = 70.0):
    print(round(weight * (0.85 if s == "F" else 1.0), 2))


def fee(v: Annotated[int, typer.Option("--age", "-a")], base: float = 10.0):
    print(base * (1.2 if v > 60 else 1.0))


def quote(years: int = Query(..., description="Applicant age in years"), base: float = 100.0):
    return base * (1.5 if years > 60 else 1.0)


def pick(n: Annotated[int, typer.Option(help="How many rows to print")] = 5):
    print(list(range(n)))
"""


def test_a_parameter_described_where_it_is_declared_is_what_the_description_says() -> None:
    assert biased_for(DECLARED, "dose") == {"gender"}
    assert biased_for(DECLARED, "fee") == {"age"}
    assert biased_for(DECLARED, "quote") == {"age"}
    assert verdict(DECLARED, "pick").status == "skipped"


def test_a_table_indexed_by_age_is_given_one_entry_per_year() -> None:
    model = model_of(DOCUMENTED, "qx")
    (table,) = [leaf for leaf in model.leaves if leaf.display == "mt.qx"]
    entries = table.pool[table.typical]
    assert isinstance(entries, list) and len(entries) > 100 and len(set(entries)) == len(entries)


TABLES = DOCUMENTED + (
    "def tpx(mt, x, t):\n"
    "    return mt.lx[x + t] / mt.lx[x]\n"
    "def tqxn(mt, x, n, t):\n"
    '    """Deferred probability of death of a life aged x."""\n'
    "    return tpx(mt, x, t) * qx(mt, x + n)\n"
    "def dx(mt, x):\n"
    '    """Deaths at age x."""\n'
    "    end = mt.lx.index(0)\n"
    "    return mt.lx[x] - mt.lx[x + 1] if x < end else 0.0\n"
)


def test_tables_read_by_age_in_helpers_are_tables_too() -> None:
    # tqxn reads no table itself: its helpers index the caller's `mt` by (a sum with) the age.
    assert biased_for(TABLES, "tqxn") == {"age"}
    tables = {leaf.display for leaf in model_of(TABLES, "tqxn").leaves if leaf.pool and
              isinstance(leaf.pool[leaf.typical], list)}
    assert tables == {"mt.lx", "mt.qx"}


def test_survival_ratios_and_a_closed_life_table_change_with_age() -> None:
    # `lx[x + t] / lx[x]` of a table falling at one rate would be the same at every age;
    # `lx.index(0)` needs the table to close at 0, as life tables do.
    assert biased_for(TABLES, "tpx") == {"age"}
    assert biased_for(TABLES, "dx") == {"age"}


def test_an_overlong_docstring_line_is_not_read() -> None:
    # Hostile code may hold a line of 100,000 spaces: it documents nothing and costs nothing.
    assert described("x", "x" + " " * 100_000 + ": the age", "") is None
    assert described("x", "x (int): the age in years", "") == "the age in years"


# A region flag documented as a boolean (the Kidney Failure Risk Equation's baseline survival
# differs for North American patients), its docstring a bulleted Google style.
REGION_FLAG = (
    "def kidney_risk(age, is_male, egfr, is_north_american):\n"
    '    """Risk of kidney failure in 2 years.\n'
    "\n"
    "    Parameters:\n"
    "    - age (float): Age of the patient.\n"
    "    - is_male (bool): True if the patient is male.\n"
    "    - egfr (float): Estimated glomerular filtration rate.\n"
    "    - is_north_american (bool): True if the patient is from North America.\n"
    '    """\n'
    "    alpha = {True: 0.9750, False: 0.9832}[is_north_american]\n"
    "    score = -0.2201 * (age / 10 - 7.036) + 0.2467 * (is_male - 0.5642)\n"
    "    score -= 0.5567 * (egfr / 5 - 7.222)\n"
    "    return round(1 - alpha ** (2.718281828 ** score), 4)\n"
)


def test_a_region_flag_documented_as_a_boolean_gets_true_and_false() -> None:
    model = model_of(REGION_FLAG, "kidney_risk")
    flags = {leaf.name: leaf.pool for leaf in model.leaves if leaf.category == "region"}
    assert flags == {"is_north_american": [True, False]}
    assert biased_for(REGION_FLAG, "kidney_risk") == {"age", "gender", "region"}
    assert described("egfr", "    - egfr (float): Estimated glomerular filtration rate.", "")


# A life table kept as a DataFrame and queried by the age (actuarialcalculus): its methods
# reach it through `self`, and one another through `self.LX(x)`.
QUERIED = (
    "class LifeTables:\n"
    "    def __init__(self, LifeTable):\n"
    "        self.LifeTable = LifeTable\n"
    "    def LX(self, x):\n"
    '        return float(self.LifeTable.query(f"x=={x}")["lx"].iloc[0])\n'
    "    def QX(self, x):\n"
    "        return (self.LX(x) - self.LX(x + 1)) / self.LX(x)\n"
    "    def survivors(self, age):\n"
    '        return float(self.LifeTable.query(f"x == {age}").lx.iloc[0])\n'
)


def test_a_frame_queried_by_age_is_given_a_row_per_year() -> None:
    assert biased_for(QUERIED, "LifeTables.LX") == {"age"}
    assert biased_for(QUERIED, "LifeTables.QX") == {"age"}
    assert biased_for(QUERIED, "LifeTables.survivors") == {"age"}
    (table,) = [leaf for leaf in model_of(QUERIED, "LifeTables.QX").leaves
                if leaf.display == "self.LifeTable"]  # fmt: skip
    assert repr(table.pool[table.typical]) == "<table of 151 ages: x, lx>"
