"""Field-read discovery: the engine finds a protected value wherever the function reads it
from a record, and only what it reads.

Each case is one way code reads a field; the test holds the protected leaves the input
model gets (how the function receives the value, and its category). Then the finding of a
real run names the same path, so a report points at `driver.profile.age`, not `driver`.
"""

from __future__ import annotations

import pytest
from analysis_kit import model_of, verdict

from analysis.execution.harness.getters import getter_field

READS: dict[str, tuple[str, set[tuple[str, str]]]] = {
    "subscript": (
        "def f(applicant):\n    return applicant['age'] > 40\n",
        {("applicant['age']", "age")},
    ),
    ".get()": (
        "def f(applicant):\n    return applicant.get('gender') == 'f'\n",
        {("applicant['gender']", "gender")},
    ),
    "attribute": ("def f(person):\n    return person.race == 'x'\n", {("person.race", "race")}),
    "getattr()": (
        "def f(person):\n    return getattr(person, 'education') == 'phd'\n",
        {("person.education", "education")},
    ),
    "a getter": (
        "def f(person):\n    return person.get_age() > 65 or person.getSex() == 'F'\n",
        {("person.age", "age"), ("person.sex", "gender")},
    ),
    "through a local alias": (
        "def f(applicant):\n    p = applicant\n    return p['age'] > 40\n",
        {("applicant['age']", "age")},
    ),
    "nested attributes": (
        "def f(driver):\n    return driver.profile.age > 70\n",
        {("driver.profile.age", "age")},
    ),
    "nested keys": (
        "def f(driver):\n    return driver['profile']['age'] > 70\n",
        {("driver['profile']['age']", "age")},
    ),
    "in a helper the record is passed to": (
        "def check(p):\n    return p['age'] > 40\ndef f(applicant):\n    return check(applicant)\n",
        {("applicant['age']", "age")},
    ),
    "**kwargs record": (
        "def f(**tenant):\n    return tenant['age'] > 40\n",
        {("tenant['age']", "age")},
    ),
    "synonyms of the categories": (
        "def f(applicant):\n    return applicant['applicantAge'] > 40 or applicant['sex'] == 'f'\n",
        {("applicant['applicantAge']", "age"), ("applicant['sex']", "gender")},
    ),
    "a method call is not a field": (
        "def f(person):\n    return person.describe() and person.age > 3\n",
        {("person.age", "age")},
    ),
    "an unprotected field only": (
        "def f(applicant):\n    return applicant['income'] > 40\n",
        set(),
    ),
}


@pytest.mark.parametrize(("source", "wanted"), READS.values(), ids=list(READS))
def test_each_way_of_reading_a_field_gives_its_protected_leaf(
    source: str, wanted: set[tuple[str, str]]
) -> None:
    model = model_of(source)
    assert {(x.display, x.category) for x in model.protected} == wanted


def test_only_fields_the_function_reads_become_leaves() -> None:
    model = model_of("def f(applicant):\n    return applicant['income'] > 40\n")
    assert [x.display for x in model.leaves] == ["applicant['income']"]


def test_a_declared_dataclass_gives_its_fields_as_leaves() -> None:
    source = (
        "from dataclasses import dataclass\n"
        "@dataclass\nclass P:\n    age: int\n    name: str\n"
        "def f(p: P):\n    return p.age > 3\n"
    )
    model = model_of(source)
    assert {(x.display, x.category) for x in model.leaves} == {("p.age", "age"), ("p.name", None)}


@pytest.mark.parametrize(
    "source",
    [
        "def f(candidates):\n    return [c['age'] > 60 for c in candidates]\n",
        "def f(candidates):\n"
        "    n = 0\n"
        "    for c in candidates:\n"
        "        if c.age > 60:\n"
        "            n += 1\n"
        "    return n\n",
    ],
    ids=["comprehension", "for loop"],
)
def test_fields_of_the_items_of_a_list_parameter_are_found(source: str) -> None:
    model = model_of(source)
    found = [(x.display, x.category) for x in model.protected]
    assert [c for _, c in found] == ["age"], found
    assert found[0][0].startswith("candidates") and "age" in found[0][0], found


@pytest.mark.parametrize(
    ("source", "parameter"),
    [
        (
            "def f(driver):\n    return 90 if driver.profile.age > 70 else 50\n",
            "driver.profile.age",
        ),
        ("def f(**tenant):\n    return tenant['age'] > 40\n", "tenant['age']"),
        (
            "def check(p):\n    return getattr(p, 'age') > 40\n"
            "def f(applicant):\n    return check(applicant)\n",
            "applicant.age",
        ),
    ],
    ids=["nested attributes", "**kwargs", "getattr in a helper"],
)
def test_a_finding_names_the_path_the_function_reads(source: str, parameter: str) -> None:
    report = verdict(source)
    assert report.status == "biased", (report.status, report.reason)
    assert [f.parameter for f in report.findings] == [parameter]


def test_a_local_holding_a_field_or_a_fallback_reads_the_field() -> None:
    # `demo = applicant.get("demographics") or {}`: the gender is the applicant's
    source = (
        "def loading(applicant):\n"
        "    demo = applicant.get('demographics') or {}\n"
        "    return 0.9 if demo.get('gender') == 'female' else 1.0\n"
    )
    report = verdict(source, "loading")
    assert report.status == "biased", report.reason
    assert report.biased_attributes == ["gender"]


@pytest.mark.parametrize(
    "copy", ["dict(applicant)", "applicant.copy()", "copy.deepcopy(applicant)"]
)
def test_a_local_holding_a_copy_reads_the_fields(copy: str) -> None:
    source = (
        "import copy\n"
        "def loading(applicant):\n"
        f"    data = {copy}\n"
        "    data['base'] = data.get('base', 100)\n"
        "    return data['base'] * (0.9 if data['gender'] == 'female' else 1.0)\n"
    )
    assert verdict(source, "loading").biased_attributes == ["gender"]


KEYS_BY_CONSTANT = """\
AGE = "age"
COL_SEX = "sex"


class Cols:
    GENDER = "gender"


def by_get(person):
    return 1.2 if person.get(COL_SEX) == "M" else 1.0


def by_frame(df):
    return int((df[AGE] > 60).sum())


def by_getattr(p):
    return getattr(p, AGE) > 60


def by_class_constant(row):
    return 1.2 if row.get(Cols.GENDER) == "female" else 1.0


def by_own_key(person, keys=("income",)):
    for AGE in keys:
        return person[AGE] > 100
"""


@pytest.mark.parametrize(
    ("qualname", "category"),
    [("by_get", "gender"), ("by_frame", "age"), ("by_getattr", "age"),
     ("by_class_constant", "gender")],
)  # fmt: skip
def test_a_field_named_by_a_constant_of_the_module_is_read_by_its_text(
    qualname: str, category: str
) -> None:
    if qualname == "by_frame":
        pytest.importorskip("pandas")
    report = verdict(KEYS_BY_CONSTANT, qualname)
    assert report.status == "biased", report.reason
    assert report.biased_attributes == [category]


def test_a_name_the_function_binds_itself_is_not_the_constant() -> None:
    # `for AGE in keys`: the loop's key, whatever the module's AGE holds
    assert "person['age']" not in {
        leaf.display for leaf in model_of(KEYS_BY_CONSTANT, "by_own_key").leaves
    }


def test_a_getter_is_read_as_its_field_and_the_record_answers_it() -> None:
    # Code written against a class (`person.get_age()`) is handed a record: the record
    # answers the getter with its field, so the call runs and the bias is proved.
    source = "def discount(person):\n    return 0.2 if person.get_age() >= 65 else 0.0\n"
    assert verdict(source, "discount").biased_attributes == ["age"]


@pytest.mark.parametrize(
    ("method", "field"),
    [("get_age", "age"), ("getAge", "age"), ("getDateOfBirth", "dateOfBirth"),
     ("get", None), ("gettext", None), ("getattr", None), ("get_", None)],
)  # fmt: skip
def test_a_getter_s_name_says_its_field(method: str, field: str | None) -> None:
    assert getter_field(method) == field


def test_a_method_named_for_the_person_s_attribute_hands_it_out() -> None:
    source = "def retire(p):\n    return 'retire' if p.age() >= 67 and p.name() else 'work'\n"
    model = model_of(source, "retire")
    assert [leaf.display for leaf in model.protected] == ["p.age"]
    assert verdict(source, "retire").biased_attributes == ["age"]


def test_what_an_array_made_of_the_input_tells_of_itself_is_no_field() -> None:
    # `x` is an age (the module writes life-table notation); `x.ndim` is the array's.
    source = '''\
import numpy as np


class LifeTable:
    def __init__(self, lx):
        self.lx = np.asarray(lx, dtype=float)

    def qx(self, x):
        x = np.asarray(x, dtype=int)
        scalar = x.ndim == 0
        q = 1 - self.lx[x + 1] / self.lx[x]
        return float(q) if scalar else q

    def Dx(self, x):
        return self.lx[x]
'''
    assert [leaf.display for leaf in model_of(source, "LifeTable.qx").protected] == ["x"]
    assert verdict(source, "LifeTable.qx").status == "biased"
    # a record's own `shape` (not made an array) stays a field
    kept = model_of("def f(box):\n    return box.shape == 'round'\n")
    assert {leaf.name for leaf in kept.leaves} == {"shape"}
