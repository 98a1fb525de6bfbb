"""Field-read discovery: which keys and attributes a function reads from a record.

`applicant["age"]`, `applicant.get("age")`, `applicant.age`, `getattr(applicant, "age")`,
accessors (`person("age", period)`, and `parameters(period).general` read from what the call
gives back), through local aliases (`p = applicant`), nested records (`driver.profile.age`),
items of a list parameter (`for c in candidates: c["age"]`, `max(candidates, key=lambda c:
c.score)`, `candidates[0].age`) and helpers the record is passed to.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from analysis.functions import call_bindings, called_function
from analysis.hints import ModuleFacts

Matcher = Callable[[ast.AST], bool]


def name_matcher(name: str) -> Matcher:
    return lambda node: isinstance(node, ast.Name) and node.id == name


def field_read(node: ast.AST, base: Matcher, method_calls: set[int]) -> tuple[str, str] | None:
    """(field, "key" or "attr") when `node` reads a field of an object `base` matches:
    b["k"], b.get("k"), b.k, getattr(b, "k"), b("k", ...)."""
    if isinstance(node, ast.Call) and base(node.func) and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            if first.value.isidentifier():  # an accessor: `person("age", period)`
                return first.value, "key"
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


def or_called(base: Matcher) -> Matcher:
    """`base`, or a call of it that names no field: `parameters(period)` reads as the record
    `parameters` itself (records built for the sandbox answer such calls with themselves)."""

    def matches(node: ast.AST) -> bool:
        if base(node):
            return True
        if isinstance(node, ast.Call) and base(node.func):
            first = node.args[0] if node.args else None
            return not (isinstance(first, ast.Constant) and isinstance(first.value, str))
        return False

    return matches


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
    matcher = or_called(with_aliases(fn, base or name_matcher(name)))
    fields: dict[str, tuple[ast.AST, Matcher, str]] = {}
    for node in ast.walk(fn):
        read = field_read(node, matcher, method_calls)
        if read is not None and read[0] not in fields:
            fields[read[0]] = (fn, field_matcher(matcher, read[0]), read[1])
        called = called_function(node, facts.functions) if isinstance(node, ast.Call) else None
        if called is None or called[0] is fn or helper_depth == 0:
            continue
        callee, bound = called
        for param, arg in call_bindings(callee, node, bound):  # type: ignore[arg-type]
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
    """Fields read from the items of a list parameter: `for c in name: c["age"]`, a lambda
    given the list (`sorted(name, key=lambda c: c["age"])`, `filter(lambda c: ..., name)`,
    `name.sort(key=...)`), and items taken by index (`name[0].age`)."""
    key = ("items", id(fn), name)
    if key in facts.memo:
        return dict(facts.memo[key])
    names = list_aliases(fn, name)
    fields: dict[str, tuple[ast.AST, Matcher, str]] = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and is_name(node.iter, names):
            if isinstance(node.target, ast.Name):
                scope = node if isinstance(node, ast.For) else fn
                fields.update(record_accesses(scope, node.target.id, facts))
        elif isinstance(node, ast.Call) and given_the_list(node, names):
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Lambda) and arg.args.args:
                    fields.update(record_accesses(arg, arg.args.args[0].arg, facts))
    indexed = record_accesses(fn, name, facts, base=item_of(names))
    for field_name, where in indexed.items():
        fields.setdefault(field_name, where)
    facts.memo[key] = dict(fields)
    return fields


# Calls that give back the same people, reordered or filtered: `ranked = sorted(candidates)`.
SAME_ITEMS = frozenset({"sorted", "list", "tuple", "set", "reversed", "filter", "iter"})


def list_aliases(fn: ast.AST, name: str) -> set[str]:
    """`name`, and the local names that hold its items: `ranked = sorted(name, key=...)`,
    `adults = [p for p in name if ...]`, `rest = name[1:]`."""
    names = {name}
    assigns = [
        node
        for node in ast.walk(fn)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    ]
    for _ in range(3):  # aliases of aliases
        for node in assigns:
            if holds_items(node.value, names):
                names.add(node.targets[0].id)  # type: ignore[attr-defined]
    return names


def holds_items(value: ast.expr, names: set[str]) -> bool:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id in SAME_ITEMS and any(is_name(a, names) for a in value.args)
    if isinstance(value, ast.Subscript):
        return is_name(value.value, names) and isinstance(value.slice, ast.Slice)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        first = value.generators[0]
        return (
            is_name(first.iter, names)
            and isinstance(first.target, ast.Name)
            and is_name(value.elt, {first.target.id})
        )
    return False


def given_the_list(call: ast.Call, names: set[str]) -> bool:
    """`f(name, ...)`, `f(..., key=name)` or `name.sort(...)`."""
    if any(is_name(a, names) for a in [*call.args, *(k.value for k in call.keywords)]):
        return True
    return isinstance(call.func, ast.Attribute) and is_name(call.func.value, names)


def item_of(names: set[str]) -> Matcher:
    """An item of a list taken by position: `name[0]`, `name[-1]`, `name[i]`."""

    def matches(node: ast.AST) -> bool:
        if not (isinstance(node, ast.Subscript) and is_name(node.value, names)):
            return False
        index = node.slice
        return not (isinstance(index, ast.Constant) and isinstance(index.value, str))

    return matches


def is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names
