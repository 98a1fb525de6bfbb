"""Static review: where protected inputs reach a branch or the output, without running anything.

Used for functions that cannot run (their findings carry `method: static`), to point a
dynamic finding at the line most responsible, and to prove that a protected parameter is
never read (so no execution is spent on it).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from analysis.caches import Cache, Caches
from analysis.shapes import Leaf
from analysis.source.functions import FunctionNode, call_bindings, called_function
from analysis.source.mentions import mentions
from analysis.source.reads_input import FIELD_STEPS, constant_key
from analysis.static.taint import (
    Tainter,
    TaintIndex,
    call_name,
    none_check,
    tainters,
    walk_deciding,
    without_none_checks,
)
from analysis.values import MISSING

OPAQUE_CALLS = frozenset({"locals", "vars", "eval", "exec", "globals"})


@dataclass(frozen=True)
class Reach:
    leaf: Leaf
    line: int
    how: str  # "branch" | "return" | "lookup" | "match" | "call"


def reaches_of(walk: Tainter) -> list[Reach]:
    """Where the leaf a walk follows reaches a branch, a lookup, a match, the output, or a
    helper that decides with it."""
    found: list[Reach] = []
    for node in ast.walk(walk.fn):
        how = reach_at(walk, node)
        if how is not None:
            # A comprehension clause has no line of its own: take its `if`'s.
            where = node.ifs[0] if isinstance(node, ast.comprehension) else node
            found.append(Reach(walk.leaf, getattr(where, "lineno", walk.fn.lineno), how))
    found.sort(key=lambda r: (r.line, r.how != "branch"))
    return found


def reach_at(walk: Tainter, node: ast.AST) -> str | None:
    """How the leaf a walk follows reaches `node`, if it does: "branch", "match", "return",
    "lookup" or "call" (a helper that decides with it)."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) and walk.tainted(
        without_none_checks(node.test)
    ):
        return "branch"
    if isinstance(node, ast.comprehension) and any(
        walk.tainted(without_none_checks(c)) for c in node.ifs
    ):
        return "branch"
    if isinstance(node, ast.Match) and walk.tainted(node.subject):
        return "match"
    if isinstance(node, (ast.Return, ast.Yield)) and node.value is not None:
        return "return" if walk.tainted(node.value) else None
    if isinstance(node, ast.Subscript) and walk.tainted(node.slice):
        return "lookup"
    if isinstance(node, ast.Compare) and not none_check(node) and walk.tainted(node):
        return "branch"
    if walk.leaf.passed_to and walk.hands_helper(node):
        return "call"
    return None


def reaches(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> list[Reach]:
    return reaches_of(Tainter(fn, leaf))


def reaches_all(fn: FunctionNode, leaves: list[Leaf]) -> dict[str, list[Reach]]:
    """`reaches` of each leaf, by display, in one walk of the function: each place that
    decides asks the leaves' index which of them reach it (a static review of a function
    with a thousand protected inputs reads the function once, not a thousand times)."""
    index = tainters(fn, leaves)
    by_display = {leaf.display: leaf for leaf in leaves}
    found: dict[str, list[Reach]] = {leaf.display: [] for leaf in leaves}
    handed: dict[str, set[str]] = {}  # helper name -> the leaves it decides with
    for leaf in leaves:
        for helper in leaf.passed_to:
            handed.setdefault(helper, set()).add(leaf.display)
    for node in ast.walk(fn):
        how, readers = readers_at(node, index, handed)
        # A comprehension clause has no line of its own: take its `if`'s.
        where = node.ifs[0] if isinstance(node, ast.comprehension) and node.ifs else node
        for display in readers:
            leaf = by_display[display]
            found[display].append(Reach(leaf, getattr(where, "lineno", fn.lineno), how))
    for reached in found.values():
        reached.sort(key=lambda r: (r.line, r.how != "branch"))
    return found


def readers_at(
    node: ast.AST, index: TaintIndex, handed: dict[str, set[str]]
) -> tuple[str, set[str]]:
    """How `node` decides with what it reads ("branch", "match", "return", "lookup", "call":
    a helper in `handed`, by name, decides with the leaves it is handed) and the leaves it
    reads there, by display (none for a node that decides nothing)."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return "branch", index.reading(walk_deciding(node.test))
    if isinstance(node, ast.comprehension):
        return "branch", index.reading(n for test in node.ifs for n in walk_deciding(test))
    if isinstance(node, ast.Match):
        return "match", index.reading(ast.walk(node.subject))
    if isinstance(node, (ast.Return, ast.Yield)) and node.value is not None:
        return "return", index.reading(ast.walk(node.value))
    if isinstance(node, ast.Subscript):
        return "lookup", index.reading(ast.walk(node.slice))
    if isinstance(node, ast.Compare) and not none_check(node):
        return "branch", index.reading(ast.walk(node))
    if isinstance(node, ast.Call) and call_name(node) in handed:
        arguments = [*node.args, *(k.value for k in node.keywords)]
        read = index.reading(n for argument in arguments for n in ast.walk(argument))
        return "call", handed[call_name(node)] & read
    return "", set()


def first_reach(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> Reach | None:
    return most_responsible(reaches(fn, leaf))


def most_responsible(found: list[Reach]) -> Reach | None:
    """The first place a leaf decides something, else the first it reaches the output."""
    branches = [r for r in found if r.how != "return"]
    chosen = branches or found
    return chosen[0] if chosen else None


def never_read(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> bool:
    """True when a parameter leaf is provably unused: no read, no opaque introspection."""
    if leaf.read_in:
        return False  # read by a helper or a method of the instance (`self.total_deductions`)
    if leaf.path[0][1].startswith("<"):
        return False  # what the program reads from its stdin or its command line
    if len(leaf.path) != 1:
        return field_never_read(fn, leaf)
    name = leaf.path[0][1]
    if calls_opaque(fn):
        return False
    # The body of a nested function or lambda is read too, so closures count.
    return not any(
        isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store)
        for node in mentions(fn).by_word.get(name, ())
    )


def calls_opaque(fn: FunctionNode) -> bool:
    """Whether `fn` calls what may read any name (`locals()`, `eval`)."""
    index = mentions(fn)
    for opaque in OPAQUE_CALLS:
        for node in index.by_word.get(opaque, ()):
            parent = index.parent(node)
            if isinstance(node, ast.Name) and isinstance(parent, ast.Call) and parent.func is node:
                return True
    return False


def field_never_read(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> bool:
    """A field of a declared class is unread when its parameter is only ever used for other
    fields: every use of the parameter is `p.other` / `p["other"]`, none is a method call,
    and nothing receives the whole object."""
    root = leaf.path[0][1]
    step, first = leaf.path[1]
    if step not in FIELD_STEPS or calls_opaque(fn):
        return False
    index = mentions(fn)
    for node in index.by_word.get(root, ()):
        if not isinstance(node, ast.Name):
            continue  # an attribute or a text of that name
        parent = index.parent(node)
        if isinstance(parent, ast.Attribute):
            grand = index.parent(parent)
            if isinstance(grand, ast.Call) and grand.func is parent:
                return False  # a method of the object may read anything
            if parent.attr == first or parent.attr in TABLE_INDEXERS:
                return False  # `df.loc[:, FEATURES]` picks columns by what it is given
        elif isinstance(parent, ast.Subscript) and parent.value is node:
            key = constant_key(parent)
            if key is MISSING or key == first:
                return False
        else:
            return False
    return True


# A table's indexers: what they pick is given to them, any column.
TABLE_INDEXERS = frozenset({"loc", "iloc", "at", "iat"})


# How deep the static review follows a protected value into helpers of the project.
HELPER_DEPTH = 2
# function -> the calls it makes of the project's other functions (the function called,
# whether bound).
HELPER_CALLS: Cache[int, list[tuple[ast.Call, FunctionNode, bool]]] = Cache("helper calls")
# (helper, parameter, depth) -> whether the parameter decides something there.
DECIDES: Cache[tuple[int, str, int], bool] = Cache("helper decides with a parameter")


def passed_to_helpers(
    fn: FunctionNode,
    leaf: Leaf,
    functions: dict[str, FunctionNode],
    caches: Caches,
    depth: int = 0,
) -> tuple[str, ...]:
    """Names of the project's helpers `fn` hands the leaf to (as it is or as what it became)
    whose parameter then reaches a branch, a lookup or a match there, or in their helpers."""
    tainter = Tainter(fn, leaf)
    found: list[str] = []
    for node, callee, bound in helper_calls(fn, functions, caches):
        name = call_name(node)
        if name in found:
            continue
        for param, arg in call_bindings(callee, node, bound):
            if tainter.tainted(arg) and decides_with(callee, param, leaf, functions, caches, depth):
                found.append(name)
                break
    return tuple(found)


def helper_calls(
    fn: FunctionNode, functions: dict[str, FunctionNode], caches: Caches
) -> list[tuple[ast.Call, FunctionNode, bool]]:
    """The calls `fn` makes of the project's other functions, each with the function called
    and whether it is bound (a method): found once per function, asked for every input."""
    kept = caches[HELPER_CALLS]
    if id(fn) not in kept:
        calls: list[tuple[ast.Call, FunctionNode, bool]] = []
        for node in ast.walk(fn):
            if isinstance(node, ast.Call):
                called = called_function(node, functions)
                if called is not None and called[0] is not fn:
                    calls.append((node, *called))
        kept[id(fn)] = calls
    return kept[id(fn)]


def decides_with(
    callee: FunctionNode,
    param: str,
    leaf: Leaf,
    functions: dict[str, FunctionNode],
    caches: Caches,
    depth: int,
) -> bool:
    key = (id(callee), param, depth)
    kept = caches[DECIDES]
    if key not in kept:
        kept[key] = False  # a helper that calls itself ends here
        inner = Leaf((("param", param),), param, param, [], leaf.category)
        decided = any(r.how != "return" for r in reaches_of(Tainter(callee, inner)))
        if not decided and depth + 1 < HELPER_DEPTH:
            decided = bool(passed_to_helpers(callee, inner, functions, caches, depth + 1))
        kept[key] = decided
    return kept[key]


# Nodes whose test decides which way the code goes; with the tests nested in their bodies
# they make one scope of conditions.
CONDITIONALS = (ast.If, ast.While, ast.IfExp, ast.Assert, ast.Match)


def condition_scopes(
    fn: FunctionNode, leaves: list[Leaf], walks: TaintIndex | None = None
) -> dict[str, frozenset[int]]:
    """For each leaf the function itself decides with, the conditional scopes it is read in:
    a scope is one `if`/`while`/`match`/conditional expression, its test and every test
    nested in its body. Two inputs and a third can only act together where one scope reads
    all three (`if method == GIRTH and age >= 18 and sex == "female"`). A leaf that may be
    decided on in a helper or a method is left out: nothing is known of it."""
    index = walks if walks is not None else tainters(fn, leaves)
    # The leaves each test reads, once per test (a nested test is in every scope around it).
    reading: dict[int, set[str]] = {}
    scopes_of: dict[str, set[int]] = {}
    for node in ast.walk(fn):
        if isinstance(node, CONDITIONALS):
            tests = [t for inner in ast.walk(node) for t in tests_of(inner)]
        elif isinstance(node, ast.comprehension) and node.ifs:
            tests = list(node.ifs)
        else:
            continue
        for test in tests:
            if id(test) not in reading:
                reading[id(test)] = index.reading(walk_deciding(test))
            for display in reading[id(test)]:
                scopes_of.setdefault(display, set()).add(id(node))
    found: dict[str, frozenset[int]] = {}
    escaping = escaping_roots(fn)
    for leaf in leaves:
        if leaf.passed_to or leaf.read_in or (len(leaf.path) > 1 and leaf.path[0][1] in escaping):
            continue  # it may decide in a helper or a method too: scopes here do not say
        found[leaf.display] = frozenset(scopes_of.get(leaf.display, ()))
    return found


def escaping_roots(fn: FunctionNode) -> set[str]:
    """The names whose object goes where this function's code cannot be read: passed whole
    to a call, or asked to run a method (`self._rate()` reading `self.sex`)."""
    found: set[str] = set()
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            found.add(func.value.id)
        arguments = [*node.args, *(k.value for k in node.keywords)]
        found |= {a.id for a in arguments if isinstance(a, ast.Name)}
    return found


def tests_of(node: ast.AST) -> list[ast.expr]:
    """The expressions a node decides with: a test, a match subject and its guards, the
    `if`s of a comprehension."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return [node.test]
    if isinstance(node, ast.Match):
        return [node.subject, *(case.guard for case in node.cases if case.guard)]
    if isinstance(node, ast.comprehension):
        return list(node.ifs)
    return []


def acting_with(
    fn: FunctionNode, leaves: list[Leaf], walks: TaintIndex | None = None
) -> frozenset[str]:
    """The other inputs the function hands to one call beside a protected input
    (`self._troponin_score(patient.presentation_hstni, patient.sex)`) or reads in a
    conditional that also reads it, in its test or in what it guards (`if reference ==
    UK_WHO: return uk_who_chart(..., sex=sex)`): how far the attribute acts depends on them,
    so the search varies them before the rest (a troponin between the two sexes'
    thresholds)."""
    # One pass over the groups: the three ways a group acts with one share the index.
    protected = {leaf.display for leaf in leaves if leaf.protected}
    if not protected:
        return frozenset()
    index = walks if walks is not None else tainters(fn, leaves)
    # Names and nodes some protected leaf reaches: a group holding one acts with it.
    by_protected = {
        name for name, readers in index.by_name.items() if not readers.isdisjoint(protected)
    }
    everywhere = not index.everywhere.isdisjoint(protected)
    found: set[str] = set()
    merged: set[str] = set()  # names whose leaves are in `found` already
    for parts in groups(fn):
        nodes = [node for part in parts for node in ast.walk(part)]
        names = {node.id for node in nodes if isinstance(node, ast.Name)}
        direct = [index.by_node.get(id(node), set()) for node in nodes]
        if not (
            names & by_protected
            or (everywhere and names)
            or any(not readers.isdisjoint(protected) for readers in direct)
        ):
            continue
        for readers in direct:
            found |= readers
        for name in names - merged:
            found |= index.by_name.get(name, set())
            merged.add(name)
        if names:
            found |= index.everywhere
    return frozenset(found - protected)


def groups(fn: FunctionNode) -> list[list[ast.AST]]:
    """What acts together: the arguments of one call, a conditional with what it guards."""
    found: list[list[ast.AST]] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            arguments: list[ast.AST] = [*node.args, *(k.value for k in node.keywords)]
            if len(arguments) >= 2:
                found.append(arguments)
        elif isinstance(node, CONDITIONALS):
            # A test and what it guards: `if reference == UK_WHO: return uk_who(..., sex)`
            found.append([node])
    return found
