"""Reads of a small tuple by position: `age[0]` of `(17, "years")`, `value, unit = weight`."""

from __future__ import annotations

import ast

from analysis.facts.fieldreads import (
    Matcher,
    name_matcher,
    with_aliases,
)
from analysis.facts.module import ModuleFacts
from analysis.source.functions import call_bindings, called_function

# A value held as a small tuple is read by position: `(17, "years")`, `(70.0, "kg")`.
MAX_POSITIONS = 4


TUPLE_API = frozenset({"count", "index"})


def tuple_positions(
    fn: ast.AST, name: str, facts: ModuleFacts, base: Matcher | None = None, helper_depth: int = 2
) -> dict[int, str]:
    """Positions read from `name` (or what `base` matches) as a fixed-size tuple: `age[0]`,
    `value, unit = age`, `w = weight[0]`, in `fn` and in helpers it is passed to (two calls
    deep). Maps each position to the local name that takes it ("" when none does)."""
    key = ("positions", id(fn), name, helper_depth)
    if base is None and key in facts.memo:
        return dict(facts.memo[key])
    matcher = with_aliases(fn, base or name_matcher(name))
    positions: dict[int, str] = {}
    for node in matcher.nodes(fn):
        if isinstance(node, ast.Attribute) and node.attr not in TUPLE_API and matcher(node.value):
            positions = {}  # `name[0].upper()` or `name.strip()`: a word, not a tuple
            break
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, (ast.Tuple, ast.List)) and matcher(value):
                names = [t.id if isinstance(t, ast.Name) else None for t in target.elts]
                if 2 <= len(names) <= MAX_POSITIONS and all(names):
                    for i, local in enumerate(names):
                        positions[i] = local or ""
            elif isinstance(target, ast.Name) and position_of(value, matcher) is not None:
                positions[position_of(value, matcher)] = target.id  # type: ignore[index]
        index = position_of(node, matcher)
        if index is not None:
            positions.setdefault(index, "")
        if helper_depth and isinstance(node, ast.Call):
            called = called_function(node, facts.functions)
            if called is not None and called[0] is not fn:
                callee, bound = called
                for param, arg in call_bindings(callee, node, bound):
                    if matcher(arg):
                        found = tuple_positions(callee, param, facts, None, helper_depth - 1)
                        for i, local in found.items():
                            if not positions.get(i):
                                positions[i] = local
    if base is None:
        facts.memo[key] = dict(positions)
    return positions


def position_of(node: ast.AST, matcher: Matcher) -> int | None:
    """i when `node` reads `x[i]` (a small constant index, read not written) of what matches."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
        return None
    index = node.slice
    if (
        isinstance(index, ast.Constant)
        and type(index.value) is int
        and 0 <= index.value < MAX_POSITIONS
        and matcher(node.value)
    ):
        return index.value
    return None


