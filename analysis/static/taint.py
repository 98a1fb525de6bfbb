"""Where an input's value goes inside one function, and which inputs reach an expression.

A `Tainter` follows one leaf: the nodes that read it (`p["age"]`, `p.get("age", 0)`,
`p.age`, an item of a list in a loop, a helper handed the record that reads it) and the
locals its value passes into through assignments (`a = p["age"] + 1; b = [a]`), to a
fixpoint. A `TaintIndex` holds the walks of every leaf of a function at once and answers
"which leaves reach this expression" by looking each node up, so the static questions the
search asks for all of a function's inputs (static.condition_scopes, static.acting_with)
cost the size of the function, not that size times the number of its inputs: a function
that reads thousands of record keys is read in seconds.
"""

from __future__ import annotations

import ast
import copy
import weakref
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from analysis.shapes import InputPath, Leaf
from analysis.source.mentions import Mentions, mentions
from analysis.source.reads_input import (
    FIELD_STEPS,
    field_accesses,
    field_holder,
    is_input,
    mentions_input,
)


def leaf_matches(node: ast.AST, path: InputPath) -> bool:
    """Whether `node` reads exactly the leaf at `path` (param, key, attribute or index steps):
    `p["age"]`, `p.get("age", 0)`, `p.setdefault("age", 0)`, `p.age`, `getattr(p, "age")`,
    `p("age", period)`; a key may be any constant (`p[0]` of a key 0)."""
    steps = list(path)
    current: ast.AST = node
    while len(steps) > 1:
        step, value = steps.pop()
        if step not in FIELD_STEPS:
            # an element of a list parameter: any loop variable over it is accepted
            return isinstance(current, ast.Name)
        holder = field_holder(current, value)
        if holder is None:
            return False
        current = holder
    return is_input(current, {steps[0][1]})


def reads_any_name(path: InputPath) -> bool:
    """Whether every name read is a read of the leaf (an item of a list or a column, whose
    loop variable may be called anything): leaf_matches accepts any `Name` for it."""
    return len(path) > 1 and path[-1][0] not in FIELD_STEPS


def none_check(node: ast.AST) -> bool:
    """`age is None`, `sex != None`: whether a value was given, no decision about it."""
    return (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))
        and any(
            isinstance(c, ast.Constant) and c.value is None for c in [node.left, *node.comparators]
        )
    )


class NoneChecks(ast.NodeTransformer):
    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        return ast.Constant(True) if none_check(node) else self.generic_visit(node)


def without_none_checks(test: ast.expr) -> ast.AST:
    """A test with its None checks taken out: `if age is None or age > 60` still decides."""
    if not any(none_check(n) for n in ast.walk(test)):
        return test
    stripped: ast.AST = NoneChecks().visit(copy.deepcopy(test))
    return stripped


def walk_deciding(test: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a test that decide something: `ast.walk` of it without its None checks
    (what `without_none_checks` leaves, without copying the test)."""
    todo = [test]
    while todo:
        node = todo.pop()
        if none_check(node):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


# Methods that put their arguments into the container they are called on.
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft"})


def call_name(call: ast.Call) -> str:
    """The name a call is made by: `helper(...)`, `self.helper(...)`, `module.helper(...)`."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


@dataclass(frozen=True)
class Binding:
    """A statement or expression that puts a value into names: `a = v`, `a += v`,
    `(a := v)`, `rows.append(v)` (the container holds it)."""

    values: tuple[ast.AST, ...]  # what is put in
    targets: frozenset[str]  # every name of the target (`d[k] = v` binds d and k)


def binding(node: ast.AST) -> Binding | None:
    targets: list[ast.AST] = []
    values: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets, values = list(node.targets), [node.value]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
        targets, values = [node.target], [node.value]
    elif isinstance(node, ast.NamedExpr):
        targets, values = [node.target], [node.value]
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MUTATORS
        and isinstance(node.func.value, ast.Name)
        and node.args
    ):
        # `rows.append(...)`, `by_sex.update({sex: data})`: the container holds it
        targets, values = [node.func.value], list(node.args)
    else:
        return None
    names = frozenset(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return Binding(tuple(values), names)


@dataclass
class Flow:
    """How values pass between the names of one function, built once per function."""

    index: Mentions
    # name -> the names bound from a value that mentions it (`y = x + 1`: x feeds y)
    feeds: dict[str, set[str]] = field(default_factory=dict)
    bindings: dict[int, Binding] = field(default_factory=dict)  # by id of the binding node
    items: dict[str, set[str]] = field(default_factory=dict)  # element_vars, by parameter

    def element_vars(self, param: str) -> set[str]:
        """The loop names that take the items of a list parameter: `for c in param`."""
        if param not in self.items:
            self.items[param] = {
                node.target.id
                for node in self.index.around([param])
                if isinstance(node, (ast.For, ast.comprehension))
                and isinstance(node.iter, ast.Name)
                and node.iter.id == param
                and isinstance(node.target, ast.Name)
            }
        return self.items[param]

    def bound_by(self, source: ast.AST) -> set[str]:
        """The names a binding puts the value of `source` into, directly: every binding that
        holds `source` in what it puts in (a walrus inside an assignment: both)."""
        found: set[str] = set()
        for ancestor, child in self.index.ancestors(source):
            bound = self.bindings.get(id(ancestor))
            if bound is not None and any(child is value for value in bound.values):
                found |= bound.targets
        return found

    def closure(self, names: Iterable[str]) -> set[str]:
        """The names and every name their values pass into, through any chain of bindings."""
        found = set(names)
        todo = list(found)
        while todo:
            for fed in self.feeds.get(todo.pop(), ()):
                if fed not in found:
                    found.add(fed)
                    todo.append(fed)
        return found


_FLOWS: weakref.WeakKeyDictionary[ast.AST, Flow] = weakref.WeakKeyDictionary()


def flow(fn: ast.AST) -> Flow:
    found = _FLOWS.get(fn)
    if found is None:
        found = Flow(mentions(fn))
        for node in ast.walk(fn):
            bound = binding(node)
            if bound is None:
                continue
            found.bindings[id(node)] = bound
            for value in bound.values:
                for name in ast.walk(value):
                    if isinstance(name, ast.Name):
                        found.feeds.setdefault(name.id, set()).update(bound.targets)
        _FLOWS[fn] = found
    return found


class Tainter:
    """Follows one protected leaf through assignments inside one function."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> None:
        self.fn = fn
        self.leaf = leaf
        passes = flow(fn)
        self.loop_vars = (
            passes.element_vars(leaf.path[0][1])
            if any(s == "index" for s, _ in leaf.path)
            else set()
        )
        # Every binding of a value that reads it, then where those names pass: a fixpoint,
        # whatever the order of the statements.
        # (For a leaf that any name reads, `tainted` holds for every name anyway.)
        self.reads = list(self.sources())
        direct = {name for source in self.reads for name in passes.bound_by(source)}
        self.names: AbstractSet[str] = passes.closure(direct)

    def reads_every_name(self) -> bool:
        return reads_any_name(self.leaf.path)

    def is_source(self, node: ast.AST) -> bool:
        """Whether `node` itself reads the leaf (names it flowed into aside)."""
        if leaf_matches(node, self.leaf.path):
            return True
        if self.leaf.read_in and self.hands_record(node):
            return True
        return bool(self.loop_vars) and self.reads_element(node)

    def sources(self) -> Iterator[ast.AST]:
        """The nodes of the function that read the leaf, found around the words they must
        mention (its key or parameter, the helper reading it, a loop name over its list).
        For a leaf that every name reads, the reads besides names."""
        path = self.leaf.path
        words = {self.leaf.read_in} - {""}
        if self.reads_every_name():
            words |= self.loop_vars
        elif isinstance(path[-1][1], str):
            words.add(path[-1][1])
        else:  # a key that is no text: no word to look for
            yield from (node for node in ast.walk(self.fn) if self.is_source(node))
            return
        index = mentions(self.fn)
        # A read holds its word itself (`p.age`, `p`) or as a child (`p["age"]`, `f(p)`).
        mentioned = [node for word in words for node in index.by_word.get(word, ())]
        around = {id(n): n for n in mentioned}
        for node in mentioned:
            parent = index.parent(node)
            if parent is not None:
                around.setdefault(id(parent), parent)
        for node in around.values():
            if self.reads_every_name() and isinstance(node, ast.Name):
                continue
            if self.is_source(node):
                yield node

    def tainted(self, expr: ast.AST) -> bool:
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.id in self.names:
                return True
            if self.is_source(node):
                return True
        return False

    def hands_record(self, node: ast.AST) -> bool:
        """A call of the helper that reads the leaf, given the record that holds it."""
        if not isinstance(node, ast.Call):
            return False
        if call_name(node) != self.leaf.read_in:
            return False
        root = self.leaf.path[0][1]
        arguments = [*node.args, *(k.value for k in node.keywords)]
        return any(mentions_input(argument, {root}) for argument in arguments)

    def hands_helper(self, node: ast.AST) -> bool:
        """A call of a helper that decides with the leaf, given the leaf (or what it became)."""
        if not isinstance(node, ast.Call):
            return False
        if call_name(node) not in self.leaf.passed_to:
            return False
        return any(self.tainted(a) for a in [*node.args, *(k.value for k in node.keywords)])

    def reads_element(self, node: ast.AST) -> bool:
        """`c["age"]` or `c.age` of a loop name `c` over the list the leaf is a field of."""
        if not isinstance(node, (ast.Subscript, ast.Attribute)):
            return False
        field = self.leaf.path[-1][1]
        return any(
            is_input(read.holder, self.loop_vars) and read.name == field
            for read in field_accesses(node)
        )


class TaintIndex:
    """The walks of every leaf of one function, by display, and which leaves reach a node."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, leaves: list[Leaf]) -> None:
        self.walks = {leaf.display: Tainter(fn, leaf) for leaf in leaves}
        # The leaves each name holds, each node reads, and those every name reads.
        self.by_name: dict[str, set[str]] = {}
        self.by_node: dict[int, set[str]] = {}
        self.everywhere: set[str] = set()
        for display, walk in self.walks.items():
            if walk.reads_every_name():
                self.everywhere.add(display)  # any name reads it: no need to list them
            else:
                for name in walk.names:
                    self.by_name.setdefault(name, set()).add(display)
            for node in walk.reads:
                self.by_node.setdefault(id(node), set()).add(display)

    def reading(self, nodes: Iterable[ast.AST]) -> set[str]:
        """The leaves that reach any of `nodes` (each node on its own, not its children)."""
        found: set[str] = set()
        named = False
        for node in nodes:
            if isinstance(node, ast.Name):
                named = True
                found |= self.by_name.get(node.id, set())
            found |= self.by_node.get(id(node), set())
        return found | self.everywhere if named else found


def tainters(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaves: list[Leaf]) -> TaintIndex:
    """Each leaf's walk through `fn`: built once, read by condition_scopes and acting_with
    alike."""
    return TaintIndex(fn, leaves)
