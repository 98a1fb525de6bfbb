"""Whether an expression is an input or reads a field of one (analysis.source.reads_input):
the one answer the record reads of the input model and the static taint walk share.

Each way code reads a field gives one typed access (the holder, the field's name, a key or
an attribute step); the fields the builder finds of a record are typed `FieldRead`s; and
every leaf the builder makes of a field is one the taint walk sees read in the same code.
"""

from __future__ import annotations

import ast

import pytest
from analysis_kit import model_of

from analysis.facts.fieldreads import record_accesses
from analysis.facts.module import ModuleFacts
from analysis.source.functions import find_function
from analysis.source.reads_input import (
    aliases,
    constant_key,
    field_accesses,
    is_input,
    mentions_input,
    rooted_at_input,
)
from analysis.static.taint import leaf_matches
from analysis.values import MISSING


def expression(text: str) -> ast.expr:
    statement = ast.parse(text).body[0]
    assert isinstance(statement, ast.Expr)
    return statement.value


ACCESSES: dict[str, list[tuple[str, object, str, str]]] = {
    'p["age"]': [("p", "age", "key", "subscript")],
    "p[0]": [("p", 0, "key", "subscript")],
    "p.age": [("p", "age", "attr", "attribute")],
    # `p.get("age")` reads "age" of p first; as an accessor it would read it of `p.get`
    'p.get("age", 0)': [("p", "age", "key", "reader"), ("p.get", "age", "key", "accessor")],
    'p.setdefault("age", 0)': [
        ("p", "age", "key", "reader"),
        ("p.setdefault", "age", "key", "accessor"),
    ],
    'getattr(p, "age", 0)': [("p", "age", "attr", "getattr")],
    'person("age", period)': [("person", "age", "key", "accessor")],
    "p[key]": [],
    "p.get(key)": [],
    "f()": [],
}


@pytest.mark.parametrize(("text", "wanted"), ACCESSES.items(), ids=list(ACCESSES))
def test_each_way_of_reading_a_field_is_one_typed_access(
    text: str, wanted: list[tuple[str, object, str, str]]
) -> None:
    found = field_accesses(expression(text))
    assert [(ast.unparse(a.holder), a.name, a.step, a.by) for a in found] == wanted


def test_an_input_is_its_name_an_alias_of_it_or_an_expression_rooted_at_it() -> None:
    fn = ast.parse("def f(applicant):\n    p = applicant\n    q = p.profile\n    return q\n")
    names = {"applicant"} | aliases(ast.walk(fn), lambda value: is_input(value, {"applicant"}))
    assert names == {"applicant", "p"}
    assert is_input(expression("p"), names) and not is_input(expression("p.age"), names)
    assert rooted_at_input(expression("p.profile['age'][0]"), names)
    assert not rooted_at_input(expression("q.age"), names)
    assert mentions_input(expression("round(p.age) + 1"), names)
    assert not mentions_input(expression("round(q) + 1"), names)


def test_a_constant_key_is_read_off_a_subscript_only() -> None:
    assert constant_key(expression('p["age"]')) == "age"
    assert constant_key(expression("p[-1]")) is MISSING  # a unary minus: no constant node
    assert constant_key(expression("p[key]")) is MISSING
    assert constant_key(expression('p.get("age")')) is MISSING


def test_the_fields_read_of_a_record_are_typed_reads() -> None:
    source = (
        "def f(p):\n"
        "    return p.age + p['sex'] + p.get('race') + getattr(p, 'income') + p.describe()\n"
    )
    tree = ast.parse(source)
    info = find_function(tree, "f")
    assert info is not None
    reads = record_accesses(info.node, "p", ModuleFacts(tree))
    assert {(name, read.name, read.step) for name, read in reads.items()} == {
        ("age", "age", "attr"),
        ("sex", "sex", "key"),
        ("race", "race", "key"),
        ("income", "income", "attr"),
    }


SOURCES = {
    "keys and attributes": (
        "def f(p):\n"
        "    return p.age + p['sex'] + p.get('race', 0) + getattr(p, 'income', 0)\n"
    ),
    "through an alias": "def f(applicant):\n    p = applicant\n    return p['age'] > 40\n",
    "nested": "def f(driver):\n    return driver.profile['age'] > 70\n",
    "an accessor": "def f(person, period):\n    return person('age', period) > 3\n",
}


@pytest.mark.parametrize("source", SOURCES.values(), ids=list(SOURCES))
def test_every_field_the_builder_reads_is_one_the_taint_walk_sees(source: str) -> None:
    model = model_of(source)
    fields = [x for x in model.leaves if len(x.path) > 1]
    assert fields
    fn = ast.parse(source)
    for field in fields:
        paths = [field.path]
        if any(isinstance(n, ast.Assign) for n in ast.walk(fn)):  # reads go by the alias
            paths.append((("param", "p"), *field.path[1:]))
        assert any(leaf_matches(n, path) for n in ast.walk(fn) for path in paths), field.display
