"""Reads of a small tuple by position: `age[0]` of `(17, "years")`, `value, unit = weight`."""

from __future__ import annotations

import ast

from analysis.caches import Cache
from analysis.facts.fieldreads import (
    Matcher,
    name_matcher,
    with_aliases,
)
from analysis.facts.module import ModuleFacts
from analysis.source.functions import call_bindings, called_function
from analysis.source.reads_input import constant_key

# A value held as a small tuple is read by position: `(17, "years")`, `(70.0, "kg")`.
MAX_POSITIONS = 4
# A row read by positions its module names (`row[AGE_COL]`): up to this one.
MAX_NAMED_POSITION = 16
# (function, tuple's name, helper depth) -> the positions read, for a tuple not nested.
POSITIONS: Cache[tuple[int, str, int], dict[int, str]] = Cache("tuple positions")


TUPLE_API = frozenset({"count", "index"})


def tuple_positions(
    fn: ast.AST, name: str, facts: ModuleFacts, base: Matcher | None = None, helper_depth: int = 2
) -> dict[int, str]:
    """Positions read from `name` (or what `base` matches) as a fixed-size tuple: `age[0]`,
    `value, unit = age`, `w = weight[0]`, in `fn` and in helpers it is passed to (two calls
    deep). Maps each position to the local name that takes it ("" when none does)."""
    key = (id(fn), name, helper_depth)
    kept = facts.caches[POSITIONS]
    if base is None and key in kept:
        return dict(kept[key])
    matcher = with_aliases(fn, base or name_matcher(name))
    positions: dict[int, str] = {}
    for node in matcher.nodes(fn):
        if isinstance(node, ast.Attribute) and node.attr not in TUPLE_API and matcher(node.value):
            positions = {}  # `name[0].upper()` or `name.strip()`: a word, not a tuple
            break
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            positions.update(unpacked(node.targets[0], node.value, matcher))
        index = position_of(node, matcher)
        if index is not None:
            positions.setdefault(index, "")
        named = named_position(node, matcher, facts)
        if named is not None and not positions.get(named[0]):
            positions[named[0]] = named[1]  # `row[SEX_COL]`: the position its constant names
        if helper_depth and isinstance(node, ast.Call):
            for i, local in helper_positions(fn, node, matcher, facts, helper_depth).items():
                if not positions.get(i):
                    positions[i] = local
    if base is None:
        kept[key] = dict(positions)
    return positions


def unpacked(target: ast.expr, value: ast.expr, matcher: Matcher) -> dict[int, str]:
    """Positions an assignment takes from the tuple, by the local that takes each:
    `value, unit = age` -> {0: "value", 1: "unit"}, `w = weight[0]` -> {0: "w"}, `age, sex =
    x[0], x[1]` -> {0: "age", 1: "sex"}, `self.sex = x[3]` -> {3: "sex"}."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
        found: dict[int, str] = {}
        if len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts, strict=True):
                found.update(unpacked(t, v, matcher))
        return found
    if isinstance(target, (ast.Tuple, ast.List)) and matcher(value):
        names = [t.id if isinstance(t, ast.Name) else None for t in target.elts]
        if 2 <= len(names) <= MAX_POSITIONS and all(names):
            return {i: local or "" for i, local in enumerate(names)}
        return {}
    local = target_name(target)
    if local:
        index = position_of(value, matcher)
        if index is not None:
            return {index: local}
    return {}


def target_name(target: ast.expr) -> str:
    """The name an assignment gives its value: `age = ...`, `self.age = ...`,
    `record["age"] = ...`."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    key = constant_key(target) if isinstance(target, ast.Subscript) else None
    return key if isinstance(key, str) else ""


def helper_positions(
    fn: ast.AST, call: ast.Call, matcher: Matcher, facts: ModuleFacts, helper_depth: int
) -> dict[int, str]:
    """The positions a helper reads of the tuple it is handed."""
    called = called_function(call, facts.functions)
    if called is None or called[0] is fn:
        return {}
    found: dict[int, str] = {}
    callee, bound = called
    for param, arg in call_bindings(callee, call, bound):
        if matcher(arg):
            for i, local in tuple_positions(callee, param, facts, None, helper_depth - 1).items():
                if not found.get(i):
                    found[i] = local
    return found


def named_position(node: ast.AST, matcher: Matcher, facts: ModuleFacts) -> tuple[int, str] | None:
    """(i, "SEX_COL") when `node` reads `x[SEX_COL]` of what matches, SEX_COL a constant of
    the module holding a small index: the position of a row its name says what it holds."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.slice, ast.Name)
        and matcher(node.value)
    ):
        return None
    index = facts.constants.get(node.slice.id)
    if type(index) is int and 0 <= index < MAX_NAMED_POSITION:
        return index, node.slice.id
    return None


def position_of(node: ast.AST, matcher: Matcher) -> int | None:
    """i when `node` reads `x[i]` (a small constant index, read not written) of what matches."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
        return None
    index = constant_key(node)
    if type(index) is int and 0 <= index < MAX_POSITIONS and matcher(node.value):
        return index
    return None
