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
from typing import Protocol

from analysis.facts.annotations import annotation_kind
from analysis.shapes import InputPath, Leaf, LeafShape, ListShape
from analysis.values import MISSING
from config.policy import Policy

# Calls that iterate every argument they are given, item by item.
ITERATING_CALLS = frozenset({"zip", "enumerate", "sorted", "reversed", "list", "tuple", "iter"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class LeafBuilder(Protocol):
    """What this module asks of the input builder: its policy, and a leaf made as every
    other leaf is (`LeafMaker.leaf`)."""

    policy: Policy

    def leaf(
        self, name: str, path: InputPath, leaves: list[Leaf], choices: list[object],
        annotation: ast.expr | None, default: object, *, item_names: tuple[str, ...],
    ) -> LeafShape: ...  # fmt: skip


def list_of_values(
    name: str,
    annotation: ast.expr | None,
    path: InputPath,
    fn: ast.AST,
    leaves: list[Leaf],
    builder: LeafBuilder,
) -> ListShape | None:
    """Parameter `name` as a list of two values (the one tried, then a peer's), when it holds
    many people's values (`holds_values`) and no annotation says otherwise, or the use
    belies the annotation (`age_in_days: str` zipped beside the weights)."""
    kind = annotation_kind(annotation) if annotation is not None else "list"
    if kind != "list" and not belied(fn, name, kind):
        return None
    if not holds_values(fn, name, builder.policy.canonical_category):
        return None
    items = item_names(fn, name)
    item = builder.leaf(name, (*path, ListShape.first_item), leaves, [], None, MISSING,
                        item_names=items)  # fmt: skip
    return ListShape(item)


def _names(nodes: list[ast.expr]) -> Iterator[str]:
    for node in nodes:
        if isinstance(node, ast.Starred):
            node = node.value
        if isinstance(node, ast.Name):
            yield node.id


def _walked(node: ast.expr) -> list[str]:
    """The names an iterable walks item by item: itself, or what `zip`, `enumerate`,
    `sorted`... of it walk (`enumerate(zip(results, ages), 1)`)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ITERATING_CALLS:
            return [name for arg in node.args for name in _walked(arg)]
    return []


def _bound(walked: ast.expr, target: ast.expr, name: str) -> Iterator[str]:
    """The names `target` binds to items of `name` as it unpacks the items of `walked`:
    `a` of `for a in ages`, of `for w, a in zip(weights, ages)` and of
    `for i, (w, a) in enumerate(zip(weights, ages))`."""
    if isinstance(walked, ast.Name):
        if walked.id == name and isinstance(target, ast.Name):
            yield target.id
        return
    if not (isinstance(walked, ast.Call) and isinstance(walked.func, ast.Name)):
        return
    kind, args = walked.func.id, list(walked.args)
    if kind in ("sorted", "reversed", "list", "tuple", "iter") and args:
        yield from _bound(args[0], target, name)
    elif kind == "enumerate" and args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        yield from _bound(args[0], target.elts[1], name)  # the index, then the item
    elif kind == "zip" and isinstance(target, ast.Tuple):
        for arg, part in zip(args, target.elts, strict=False):
            yield from _bound(arg, part, name)


def _loops(fn: ast.AST) -> Iterator[ast.For | ast.AsyncFor | ast.comprehension]:
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            yield node


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
    if any(name in _walked(loop.iter) for loop in _loops(fn)):
        return True
    return any(
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == name
        and isinstance(node.slice, ast.Name)
        and isinstance(node.ctx, ast.Load)
        for node in ast.walk(fn)
    )


def item_names(fn: ast.AST, name: str) -> tuple[str, ...]:
    """The names the function's loops bind items of `name` to (`_bound`)."""
    found = [bound for loop in _loops(fn) for bound in _bound(loop.iter, loop.target, name)]
    return tuple(dict.fromkeys(found))


def belied(fn: ast.AST, name: str, kind: str | None) -> bool:
    """Whether the function walks `name` item by item though its annotation names a single
    value: a number walked at all, or a text zipped beside other columns (a string's
    characters are walked on purpose; zipped with a column of weights, it is a column too)."""
    if kind in ("int", "float", "bool", "dateobj"):
        return iterated(fn, name)
    return kind == "str" and any(name in group and len(group) > 1 for group in _zipped(fn))


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
