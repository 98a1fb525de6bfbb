"""Tables looked up by age (`mt.qx[x]`, `rates.get(age)`, `lt.query(f"x=={x}")["lx"]`): an
input indexed by an age gets a life-table-like list to index (a DataFrame with a row per year
of age, where it is queried), so the lookup neither fails nor reads one character."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from analysis.facts.frame_reads import FRAME_API, FRAME_METHODS
from analysis.facts.module import ModuleFacts
from analysis.shapes import Leaf
from analysis.source.functions import call_bindings, called_function
from analysis.source.reads_input import is_input, mentions_input
from analysis.static.taint import leaf_matches
from analysis.values import AgeFrame

# The column a query string compares with the age: `f"x=={x}"`.
QUERIED_BEFORE = re.compile(r"([A-Za-z_]\w*)\s*==\s*$")


@dataclass(frozen=True)
class FrameLookup:
    """A DataFrame queried by an age: the column compared with it, the columns read from the
    rows found."""

    age: str
    read: tuple[str, ...]


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
            table: object = age_table(len(tabled))
            if isinstance(keyed, FrameLookup):
                columns = [(c, tuple(age_table(len(tabled) + i))) for i, c in enumerate(keyed.read)]
                table = AgeFrame(keyed.age, tuple(columns))
            elif keyed:
                table = dict(enumerate(age_table(len(tabled))))
            leaf.pool.insert(0, table)
            leaf.from_code += 1
            leaf.typical = 0
            tabled.append(leaf)


HELPER_DEPTH = 2  # helpers of helpers, as record reads follow them


def age_subscripts(
    fn: ast.AST, ages: set[str], roots: dict[str, str], facts: ModuleFacts, depth: int
) -> Iterator[tuple[ast.expr, dict[str, str], bool | FrameLookup]]:
    """Expressions `fn` indexes by an age (`mt.qx` of `mt.qx[x]`; `tbl` of `tbl.get(round(d))`,
    a mapping: True; `lt` of `lt.query(f"x=={x}")["lx"]`, a frame), with `roots`: which of
    the caller's parameters each name of `fn` stands for."""
    for node in ast.walk(fn):
        lookup = queried_by_age(fn, node, ages)
        if lookup is not None and isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Attribute)
            yield node.func.value, roots, lookup
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
) -> Iterator[tuple[ast.expr, dict[str, str], bool | FrameLookup]]:
    """What a helper `fn` calls with an age indexes by it: `qx(mt, x + n)` whose `qx` reads
    `mt.qx[x]` indexes the caller's `mt.qx`, as `self.LX(x)` does its `self`'s tables."""
    called = called_function(call, facts.functions)
    if called is None or called[0] is fn:
        return
    bindings = call_bindings(called[0], call, called[1])
    callee_ages = {param for param, arg in bindings if mentions_input(arg, ages)}
    callee_roots = {param: roots[arg.id] for param, arg in bindings if is_input(arg, roots.keys())}
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    params = called[0].args.posonlyargs + called[0].args.args
    if called[1] and params and isinstance(receiver, ast.Name) and receiver.id in roots:
        # `self.LX(x)`: the method's own `self` is the caller's, tables and all
        callee_roots[params[0].arg] = roots[receiver.id]
    if callee_ages and callee_roots:
        yield from age_subscripts(called[0], callee_ages, callee_roots, facts, depth - 1)


def queried_by_age(fn: ast.AST, node: ast.AST, ages: set[str]) -> FrameLookup | None:
    """`table.query(f"x=={x}")` with `x` an age, whose rows `fn` reads a column of (`["lx"]`,
    `.lx`): the lookup; None for anything else."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "query"
        and node.args
    ):
        return None
    column = queried_column(node.args[0], ages)
    if column is None:
        return None
    table = ast.dump(node.func.value)
    read: list[str] = []
    for found in ast.walk(fn):
        if isinstance(found, ast.Subscript) and query_of(found.value, table):
            key = found.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                read.append(key.value)
        elif isinstance(found, ast.Attribute) and query_of(found.value, table):
            if found.attr not in FRAME_API and found.attr not in FRAME_METHODS:
                read.append(found.attr)
    read = [c for c in dict.fromkeys(read) if c != column]
    return FrameLookup(column, tuple(read)) if read else None


def queried_column(text: ast.expr, ages: set[str]) -> str | None:
    """The column a query string compares with an age, if it does."""
    if not isinstance(text, ast.JoinedStr):
        return None
    before = ""
    for part in text.values:
        if isinstance(part, ast.Constant):
            before += str(part.value)
            continue
        found = QUERIED_BEFORE.search(before)
        if found and isinstance(part, ast.FormattedValue) and mentions_input(part.value, ages):
            return found.group(1)
        before = ""
    return None


def query_of(node: ast.AST, table: str) -> bool:
    """Whether `node` is a query of the table dumped as `table`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "query"
        and ast.dump(node.func.value) == table
    )
