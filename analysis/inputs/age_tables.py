"""Tables looked up by age (`mt.qx[x]`, `rates.get(age)`): an input indexed by an age gets a
life-table-like list to index, so the lookup neither fails nor reads one character."""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator

from analysis.facts.module import ModuleFacts
from analysis.shapes import Leaf
from analysis.source.functions import call_bindings, called_function
from analysis.source.reads_input import is_input, mentions_input
from analysis.static.taint import leaf_matches


def age_table(kind: int) -> list[float]:
    """A table looked up by age (`mt.qx[x]`, `rates[age]`): one entry per year of age, falling
    like a survival table (Gompertz: the fall steepens with age, so that `lx[x + n] / lx[x]`
    still changes with x) and reaching 0 only at the last entry, as a life table closes; each
    table of a function has its own parameters, so one divided by another still changes."""
    hazard, growth = 0.0003 * (1 + 0.3 * (kind % 10)), 0.06 + 0.002 * (kind % 10)
    table = [
        float(f"{100000 * math.exp(-hazard / growth * (math.exp(growth * year) - 1)):.6g}")
        for year in range(150)
    ]
    return [*table, 0.0]


def tables_by_age(fn: ast.AST, leaves: list[Leaf], facts: ModuleFacts) -> None:
    """Give an input indexed by an age parameter a table to index: a list, a number or a
    string in its place would fail or read one character. Helpers count: `qx(mt, x + n)`
    whose `qx` reads `mt.qx[x]` indexes the caller's `mt.qx` by its age too."""
    ages = {leaf.path[0][1] for leaf in leaves if leaf.category == "age" and len(leaf.path) == 1}
    if not ages:
        return
    # An item of a list or a frame's cell is one entry, never the table: `df[df["x"] == age]`
    # selects rows by a mask, it looks nothing up by age.
    others = [leaf for leaf in leaves if not leaf.protected and leaf.path[-1][0] != "index"]
    roots = {leaf.path[0][1]: leaf.path[0][1] for leaf in leaves}
    tabled: list[Leaf] = []
    for indexed, names, keyed in age_subscripts(fn, ages, roots, facts, HELPER_DEPTH):
        for leaf in others:
            inner = [name for name, outer in names.items() if outer == leaf.path[0][1]]
            if leaf in tabled or not any(
                leaf_matches(indexed, (("param", name), *leaf.path[1:])) for name in inner
            ):
                continue
            table = age_table(len(tabled))
            leaf.pool.insert(0, dict(enumerate(table)) if keyed else table)
            leaf.from_code += 1
            leaf.typical = 0
            tabled.append(leaf)


HELPER_DEPTH = 2  # helpers of helpers, as record reads follow them


def age_subscripts(
    fn: ast.AST, ages: set[str], roots: dict[str, str], facts: ModuleFacts, depth: int
) -> Iterator[tuple[ast.expr, dict[str, str], bool]]:
    """Expressions `fn` indexes by an age (`mt.qx` of `mt.qx[x]`; `tbl` of `tbl.get(round(d))`,
    a mapping: True), with `roots`: which of the caller's parameters each name of `fn` stands
    for."""
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Subscript)
            and not isinstance(node.slice, ast.Slice)
            and mentions_input(node.slice, ages)
        ):
            yield node.value, roots, False
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and mentions_input(node.args[0], ages)
        ):
            yield node.func.value, roots, True
        if depth and isinstance(node, ast.Call):
            yield from helper_subscripts(fn, node, ages, roots, facts, depth)


def helper_subscripts(
    fn: ast.AST,
    call: ast.Call,
    ages: set[str],
    roots: dict[str, str],
    facts: ModuleFacts,
    depth: int,
) -> Iterator[tuple[ast.expr, dict[str, str], bool]]:
    """What a helper `fn` calls with an age indexes by it: `qx(mt, x + n)` whose `qx` reads
    `mt.qx[x]` indexes the caller's `mt.qx`."""
    called = called_function(call, facts.functions)
    if called is None or called[0] is fn:
        return
    bindings = call_bindings(called[0], call, called[1])
    callee_ages = {param for param, arg in bindings if mentions_input(arg, ages)}
    callee_roots = {param: roots[arg.id] for param, arg in bindings if is_input(arg, roots.keys())}
    if callee_ages and callee_roots:
        yield from age_subscripts(called[0], callee_ages, callee_roots, facts, depth - 1)
