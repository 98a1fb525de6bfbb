"""Field-read discovery: which keys and attributes a function reads from a record.

`applicant["age"]`, `applicant.get("age")`, `applicant.age`, `getattr(applicant, "age")`,
through local aliases (`p = applicant`), nested records (`driver.profile.age`), items of a
list parameter (`for c in candidates: c["age"]`) and helpers the record is passed to.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from analysis.functions import all_args
from analysis.hints import ModuleFacts

Matcher = Callable[[ast.AST], bool]


def name_matcher(name: str) -> Matcher:
    return lambda node: isinstance(node, ast.Name) and node.id == name


def field_read(node: ast.AST, base: Matcher, method_calls: set[int]) -> tuple[str, str] | None:
    """(field, "key" or "attr") when `node` reads a field of an object `base` matches:
    b["k"], b.get("k"), b.k, getattr(b, "k")."""
    if isinstance(node, ast.Subscript) and base(node.value):
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return node.slice.value, "key"
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if base(node.func.value) and node.func.attr == "get" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return first.value, "key"
    elif isinstance(node, ast.Attribute) and base(node.value):
        if id(node) not in method_calls and not node.attr.startswith("__"):
            return node.attr, "attr"
    elif (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
    ):
        if len(node.args) >= 2 and base(node.args[0]):
            second = node.args[1]
            if isinstance(second, ast.Constant) and isinstance(second.value, str):
                return second.value, "attr"
    return None


def field_key(node: ast.AST, base: Matcher, method_calls: set[int]) -> str | None:
    read = field_read(node, base, method_calls)
    return read[0] if read else None


def with_aliases(fn: ast.AST, base: Matcher) -> Matcher:
    """`base`, or any local name assigned from what `base` matches (`p = applicant`)."""
    names: set[str] = set()
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and base(node.value)
        ):
            names.add(node.targets[0].id)
    if not names:
        return base
    return lambda node: base(node) or (isinstance(node, ast.Name) and node.id in names)


def field_matcher(parent: Matcher, key: str) -> Matcher:
    """Matches reads of field `key` of whatever `parent` matches: `driver.profile`."""
    return lambda node: field_key(node, parent, set()) == key


def record_accesses(
    fn: ast.AST,
    name: str,
    facts: ModuleFacts,
    base: Matcher | None = None,
    helper_depth: int = 2,
) -> dict[str, tuple[ast.AST, Matcher, str]]:
    """Keys and attributes read from `name` (or from what `base` matches).

    Maps each field to the function where it was read (helpers the record is passed to
    count too, two calls deep) and a matcher for reads of that field, so nested records
    (`driver.profile.age`) can be followed.
    """
    key = (id(fn), name, helper_depth)
    if base is None and key in facts.memo:
        return dict(facts.memo[key])
    method_calls: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method_calls.add(id(node.func))
    matcher = with_aliases(fn, base or name_matcher(name))
    fields: dict[str, tuple[ast.AST, Matcher, str]] = {}
    for node in ast.walk(fn):
        read = field_read(node, matcher, method_calls)
        if read is not None and read[0] not in fields:
            fields[read[0]] = (fn, field_matcher(matcher, read[0]), read[1])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callee = facts.functions.get(node.func.id)
            if callee is not None and callee is not fn and helper_depth > 0:
                for param, arg in call_bindings(callee, node):
                    if matcher(arg):
                        found = record_accesses(callee, param, facts, None, helper_depth - 1)
                        for sub, where in found.items():
                            fields.setdefault(sub, where)
    if base is None:
        facts.memo[key] = dict(fields)
    return fields


def element_accesses(
    fn: ast.AST, name: str, facts: ModuleFacts
) -> dict[str, tuple[ast.AST, Matcher, str]]:
    """Fields read from the items of a list parameter: `for c in name: c["age"]`."""
    key = ("items", id(fn), name)
    if key in facts.memo:
        return dict(facts.memo[key])
    fields: dict[str, tuple[ast.AST, Matcher, str]] = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and is_name(node.iter, {name}):
            if isinstance(node.target, ast.Name):
                scope = node if isinstance(node, ast.For) else fn
                fields.update(record_accesses(scope, node.target.id, facts))
    facts.memo[key] = dict(fields)
    return fields


def call_bindings(
    callee: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call
) -> list[tuple[str, ast.expr]]:
    params = [a.arg for a in all_args(callee)]
    pairs = list(zip(params, call.args, strict=False))
    pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
    return pairs


def is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names
