"""Whether an expression is an input, or reads one: the question every reader of the engine
asks of a node (the field, item, tuple and frame reads of facts/ the inputs/ builder goes by,
the taint walks and review of static/, the data-file readers of evidence/).

An input goes by a name (`applicant`); code reaches it as that name, as a local alias
(`p = applicant`), or a field off it: a key or an attribute step (`p["age"]`, `p.get("age")`,
`p.age`, `getattr(p, "age")`, an accessor's `person("age", period)`) or an item by a constant
subscript key (`p[0]`). Each reader decides with the few functions here which of those it
accepts: one accepts aliases, another any constant key, another text keys only.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from typing import Any, Literal, NamedTuple, TypeGuard, get_args

from analysis.execution.harness.getters import getter_field
from analysis.source.functions import KEY_READERS
from analysis.values import MISSING

# How a field is read off what holds it: by key (a mapping's item) or by attribute.
FieldStep = Literal["key", "attr"]
FIELD_STEPS: frozenset[str] = frozenset(get_args(FieldStep))

# The syntax of a field read: `h["k"]`, `h.k`, `h.get("k", d)` (a KEY_READERS method),
# `getattr(h, "k", d)`, an accessor's `h("k", ...)`, a getter's `h.get_k()`.
ReadBy = Literal["subscript", "attribute", "reader", "getattr", "accessor", "getter"]


class FieldAccess(NamedTuple):
    """One way an expression reads a named field: the field `name` (the constant the code
    spells: text, or any constant a subscript or an accessor is given) off `holder`, by
    `step`, in the syntax `by`."""

    holder: ast.expr
    name: Any
    step: FieldStep
    by: ReadBy

    @property
    def text(self) -> str | None:
        """The field's name when it is text; None for a constant of another kind."""
        return self.name if isinstance(self.name, str) else None


def is_input(node: ast.AST | None, names: AbstractSet[str]) -> TypeGuard[ast.Name]:
    """Whether `node` is the input itself, by one of its `names` (aliases included when the
    caller puts them in `names`)."""
    return isinstance(node, ast.Name) and node.id in names


def mentions_input(node: ast.AST, names: AbstractSet[str]) -> bool:
    """Whether `node` uses one of `names` anywhere inside it (`x + n`, `round(age)`)."""
    return any(is_input(inner, names) for inner in ast.walk(node))


def rooted_at_input(node: ast.AST, names: AbstractSet[str]) -> bool:
    """`x`, `x[0]`, `x.loc[...]`, `x.profile`: an expression that starts at one of `names`."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return is_input(node, names)


def aliases(nodes: Iterable[ast.AST], gives: Callable[[ast.expr], bool]) -> set[str]:
    """The local names assigned alone (`p = ...`) among `nodes` from a value `gives` accepts:
    `p = applicant`, `adults = [c for c in people if ...]`, a copy (`p = dict(applicant)`),
    or with a fallback for when it is missing (`demo = applicant.get("demographics") or
    {}`)."""
    return {
        node.targets[0].id
        for node in nodes
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and gives(held_value(node.value))
    }


# Calls that copy what they are given: the copy holds the same fields.
COPIES = frozenset({"dict", "copy", "deepcopy"})


def held_value(value: ast.expr) -> ast.expr:
    """`x` of `x or {}`, `dict(x)`, `x.copy()`, `copy.deepcopy(x)`: the value, without the
    default put in its place when it is empty, nor the copy made of it."""
    while True:
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and value.values:
            value = value.values[0]
        elif isinstance(value, ast.Call) and not value.keywords:
            func = value.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in COPIES and len(value.args) == 1:
                value = value.args[0]
            elif isinstance(func, ast.Attribute) and func.attr == "copy" and not value.args:
                value = func.value
            else:
                return value
        else:
            return value


def constant_key(node: ast.AST) -> Any:
    """The constant `node` subscripts by (`x["age"]`, `x[0]`); MISSING for any other node."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value
    return MISSING


def text_of(node: ast.AST | None) -> str | None:
    """The text a string constant holds; None for any other node."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def input_subscript(node: ast.AST, names: AbstractSet[str]) -> TypeGuard[ast.Subscript]:
    """`x[...]` for an input `x` of `names`, whatever the key."""
    return isinstance(node, ast.Subscript) and is_input(node.value, names)


# One way a node may read a field, before a caller wants it: (holder, name, step, syntax),
# a plain tuple; a FieldAccess is made of the one a caller keeps (every node around an
# input's mentions is asked, most read none).
Reading = tuple[ast.expr, Any, FieldStep, ReadBy]
# The nodes that may read a field.
READERS = (ast.Subscript, ast.Attribute, ast.Call)


def readings(node: ast.AST) -> tuple[Reading, ...]:
    """Every way `node` may read a field by a constant name, most direct first: a subscript
    or an attribute is one; `h.get("k")` reads "k" of `h` before it calls `h.get` as an
    accessor; a caller keeps the first whose holder is the input it follows."""
    if isinstance(node, ast.Subscript):
        key = constant_key(node)
        return () if key is MISSING else ((node.value, key, "key", "subscript"),)
    if isinstance(node, ast.Attribute):
        return ((node.value, node.attr, "attr", "attribute"),)
    if not isinstance(node, ast.Call):
        return ()
    if not node.args:
        # `p.get_age()`: the getter of a field (a record built for the sandbox answers it)
        func = node.func
        if not isinstance(func, ast.Attribute) or node.keywords:
            return ()
        field = getter_field(func.attr)
        return () if field is None else ((func.value, field, "attr", "getter"),)
    func, first = node.func, node.args[0]
    found: tuple[Reading, ...] = ()
    if isinstance(func, ast.Attribute) and func.attr in KEY_READERS:
        if isinstance(first, ast.Constant):
            found = ((func.value, first.value, "key", "reader"),)
    elif isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) >= 2:
        attribute = node.args[1]
        if isinstance(attribute, ast.Constant):
            found = ((node.args[0], attribute.value, "attr", "getattr"),)
    if isinstance(first, ast.Constant):
        found += ((func, first.value, "key", "accessor"),)
    return found


def field_accesses(node: ast.AST) -> list[FieldAccess]:
    """Every way `node` may read a field by a constant name (see `readings`)."""
    return [FieldAccess(*reading) for reading in readings(node)]


def field_access(node: ast.AST, holds: Callable[[ast.AST], bool]) -> FieldAccess | None:
    """The first way `node` reads a field off what `holds` accepts; None when it reads none."""
    if not isinstance(node, READERS):
        return None  # most nodes read no field: spared the call
    for reading in readings(node):
        if holds(reading[0]):
            return FieldAccess(*reading)
    return None


def field_holder(node: ast.AST, name: Any) -> ast.expr | None:
    """What `node` reads the field `name` of, by the first way that names it (`p` of
    `p["age"]`, `p.age`, `p.get("age")`, `getattr(p, "age")`, the accessor `person` of
    `person("age", period)`); None when it reads no such field."""
    for holder, read, _, _ in readings(node):
        if read == name:
            return holder
    return None
