"""Parameters that hold many people's values, one per item: `for a in ages`, `ages[i]`, or
columns zipped together (`zip(weight, age_in_days, sex)`), as vectorised calculators take them.

A parameter named for an attribute and iterated as a whole is a list of that attribute's
values; a parameter zipped beside such a list is a column of the same people. Each is built
as a list of two items (the value tried, then a fixed peer's), so the items of parallel
columns stay aligned and the attribute is tried in the first row.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

# Calls that iterate every argument they are given, item by item.
ITERATING_CALLS = frozenset({"zip", "enumerate", "sorted", "reversed", "list", "tuple", "iter"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _names(nodes: list[ast.expr]) -> Iterator[str]:
    for node in nodes:
        if isinstance(node, ast.Starred):
            node = node.value
        if isinstance(node, ast.Name):
            yield node.id


def _iterated_by(node: ast.expr) -> list[str]:
    """The names a loop's or comprehension's `iter` walks item by item."""
    if isinstance(node, ast.Name):
        return [node.id]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ITERATING_CALLS
    ):
        return list(_names(node.args))
    return []


def _zipped(fn: ast.AST) -> list[list[str]]:
    """The names each `zip(...)` of the function pairs item by item."""
    return [
        list(_names(node.args))
        for node in ast.walk(fn)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip"
    ]


def iterated(fn: ast.AST, name: str) -> bool:
    """Whether the function walks `name` item by item: a loop or comprehension over it (or
    over `zip`/`enumerate`/`sorted` of it), or an item taken at a computed index (`ages[i]`)."""
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            if name in _iterated_by(node.iter):
                return True
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and isinstance(node.slice, ast.Name)
            and isinstance(node.ctx, ast.Load)
        ):
            return True
    return False


def item_names(fn: ast.AST, name: str) -> tuple[str, ...]:
    """The names the function's loops bind items of `name` to: `a` of `for a in ages` and of
    `for w, a in zip(weights, ages)`, `s` of `for i, s in enumerate(sexes)`."""
    found: list[str] = []
    for node in ast.walk(fn):
        if not isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            continue
        walked, target = node.iter, node.target
        if isinstance(walked, ast.Name) and walked.id == name and isinstance(target, ast.Name):
            found.append(target.id)
        elif isinstance(walked, ast.Call) and isinstance(walked.func, ast.Name):
            args = list(walked.args)
            if walked.func.id == "enumerate":
                args = [ast.Constant(0), *args]  # the index, then the item
            if walked.func.id in ("zip", "enumerate") and isinstance(target, ast.Tuple):
                pairs = zip(args, target.elts, strict=False)
                found += [t.id for a, t in pairs if _is(a, name) and isinstance(t, ast.Name)]
    return tuple(dict.fromkeys(found))


def _is(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def holds_values(fn: ast.AST, name: str, protected: Callable[[str], object]) -> bool:
    """Whether parameter `name` of `fn` is a list of values, one per person: named for an
    attribute and iterated, or zipped beside a parameter that is."""
    if not isinstance(fn, FUNCTIONS):
        return False
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    if name not in params:
        return False
    if protected(name):
        return iterated(fn, name)
    return any(
        name in group
        and any(other != name and other in params and protected(other) for other in group)
        for group in _zipped(fn)
    )
