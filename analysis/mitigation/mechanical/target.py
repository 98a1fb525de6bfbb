"""The function a rule rewrites, as one pass sees it: its text and tree, where it reads the
biased attributes, and what those reads and the locals made from them are worth for the
reference group (the policy's first value of each category: the base the search used)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from analysis.mitigation.mechanical.edits import Edit, Source
from analysis.mitigation.mechanical.values import Scope, Undetermined, literal
from analysis.shapes import InputPath, Leaf
from analysis.source.functions import FunctionInfo, FunctionNode, find_function
from analysis.source.reads_input import constant_key
from analysis.static.taint import Tainter, leaf_matches

# Calls that give back their argument as it was, only written otherwise: `str(sex).lower()`.
NORMALISERS = frozenset({"str", "int", "float", "round"})
TEXT_NORMALISERS = frozenset({"lower", "upper", "strip", "casefold", "title", "capitalize"})
# Calls whose arguments are shown, not decided on.
SHOWN_BY = frozenset({"print", "format", "join", "debug", "info", "warning", "error", "append"})


class NotApplicable(Exception):
    """The function is not one the rules can rewrite (not found, no readable attribute)."""


@dataclass
class Target:
    source: Source
    info: FunctionInfo
    scope: Scope
    reads: list[ast.expr]  # the attribute read, or a local holding what a read gave
    parents: dict[int, ast.AST] = field(default_factory=dict)
    blocks: dict[int, list[ast.stmt]] = field(default_factory=dict)  # statement -> its block
    # Reads of a data frame's column: every row's value at once, so a test on them decides
    # rows (a mask), never one value to write in their place.
    columns: set[int] = field(default_factory=set)

    @property
    def fn(self) -> FunctionNode:
        return self.info.node

    def walk(self) -> Iterator[ast.AST]:
        """The function's nodes, outer before inner (decorators and defaults left out)."""
        todo: list[ast.AST] = list(reversed(self.fn.body))
        while todo:
            node = todo.pop()
            yield node
            todo.extend(reversed(list(ast.iter_child_nodes(node))))

    def tainted(self, node: ast.AST) -> bool:
        """Whether `node` reads the attribute (or a local made from it)."""
        ids = {id(r) for r in self.reads}
        return any(id(n) in ids for n in ast.walk(node))

    def only_attribute(self, node: ast.AST) -> bool:
        """Whether `node` decides with the attribute alone: it reads it, and otherwise only
        constants (`c["sex"] == "f"`, `p.age >= MIN_AGE`)."""
        if not self.tainted(node):
            return False
        ids = {id(r) for r in self.reads}
        inside = {id(n) for r in self.reads for n in ast.walk(r)}
        for sub in ast.walk(node):
            if id(sub) in inside:
                continue
            if isinstance(sub, ast.Name) and id(sub) not in ids:
                if sub.id in self.scope.shadowed or sub.id not in self.scope.constants:
                    if sub.id not in ("True", "False", "None"):
                        return False
            if isinstance(sub, ast.Call):
                func = sub.func
                method = isinstance(func, ast.Attribute) and func.attr in TEXT_NORMALISERS
                if not method and not (isinstance(func, ast.Name) and func.id in NORMALISERS):
                    return False
        return True

    def truth(self, test: ast.expr) -> bool | None:
        return self.scope.truth(test)

    def value_text(self, node: ast.expr) -> str | None:
        """The literal `node` is worth for the reference group, or None."""
        try:
            text = literal(self.scope.value(node))
        except (Undetermined, TypeError, ValueError):
            return None
        if text is not None and text.startswith("-"):
            text = f"({text})"
        return text

    def shown(self, read: ast.expr) -> bool:
        """Whether a read only shows the value (returned, stored, printed, formatted) rather
        than decides with it: such a read is an echo and is never replaced."""
        node: ast.AST = read
        parent = self.parents.get(id(node))
        while parent is not None and normalises(parent, node):
            node, parent = parent, self.parents.get(id(parent))
        if isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom, ast.FormattedValue)):
            return True
        if isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.keyword)):
            return True
        if isinstance(parent, ast.Dict) and any(v is node for v in parent.values):
            return True
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return any(not isinstance(t, ast.Name) for t in targets)
        if isinstance(parent, ast.Call) and node is not parent.func:
            func = parent.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            return name in SHOWN_BY or name[:1].isupper()
        return False

    def grouped_span(self, node: ast.expr) -> tuple[int, int]:
        """The node's span widened to the parentheses around it when they only group it
        (not a call's, and not before an attribute, where `(1).real` needs them):
        `base * (0.8 if ...)` becomes `base * 0.8`."""
        start, end = self.source.span(node)
        parent = self.parents.get(id(node))
        if isinstance(parent, (ast.Call, ast.Attribute, ast.keyword, ast.Tuple, ast.arguments)):
            return start, end
        text = self.source.text
        before = len(text[:start].rstrip())
        after = end + (len(text[end:]) - len(text[end:].lstrip()))
        if before and text[before - 1] == "(" and text[after : after + 1] == ")":
            return before - 1, after + 1
        return start, end

    def removal(self, stmt: ast.stmt) -> Edit | None:
        """Removing a statement: its lines, or `pass` when it is the only one in its block."""
        if not self.source.own_lines(stmt):
            return None
        start, end = self.source.whole_lines(stmt.lineno, stmt.end_lineno or stmt.lineno)
        block = self.blocks.get(id(stmt), [])
        if len(block) == 1:
            return Edit(start, end, self.source.indent_of(stmt.lineno) + "pass\n")
        return Edit(start, end, "")

    def replacement(self, stmt: ast.stmt, lines: str) -> Edit | None:
        """Putting `lines` (already indented) where the statement's lines are."""
        if not lines:
            return self.removal(stmt)
        if not self.source.own_lines(stmt):
            return None
        start, end = self.source.whole_lines(stmt.lineno, stmt.end_lineno or stmt.lineno)
        return Edit(start, end, lines)


def normalises(parent: ast.AST, node: ast.AST) -> bool:
    """Whether `parent` only writes `node` otherwise (`str(node)`, `node.lower()`)."""
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
        return isinstance(parent.func, ast.Name) and parent.func.id in NORMALISERS
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return parent.attr in TEXT_NORMALISERS
    if isinstance(parent, ast.Call) and parent.func is node:
        return isinstance(node, ast.Attribute) and node.attr in TEXT_NORMALISERS
    return False


def build_target(
    text: str,
    qualname: str,
    leaves: list[Leaf],
    constants: Mapping[str, Any],
    frames: frozenset[str] = frozenset(),
) -> Target:
    """The function `qualname` of the module `text`, with the reads of `leaves` (each standing
    for its reference value, `leaf.pool[leaf.typical]`). `frames`: parameters that are data
    frames, whose column (`df["AGEP"]`) is read whole, every row's value at once."""
    # Whole: one pass per leaf fills the indexes and reads that Target holds together.
    source = Source(text)
    info = find_function(source.tree, qualname)
    if info is None:
        raise NotApplicable(f"no function {qualname}")
    fn = info.node
    parents: dict[int, ast.AST] = {}
    blocks: dict[int, list[ast.stmt]] = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                for stmt in block:
                    blocks[id(stmt)] = block
    scope = Scope(constants=constants, shadowed=frozenset(bound_names(fn)))
    reads: list[ast.expr] = []
    columns: set[int] = set()
    for leaf in leaves:
        value = leaf.pool[leaf.typical] if leaf.pool else None
        writable = literal(value) is not None
        element = Tainter(fn, leaf) if any(s == "index" for s, _ in leaf.path) else None
        path = leaf.path
        if path[0][1] in frames:
            path = tuple(step for step in path if step[0] != "index")  # the column
        for node in ast.walk(fn):
            if not isinstance(node, ast.expr) or isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            if reads_leaf(node, path) or (
                element is not None and element.loop_vars and element.reads_element(node)
            ):
                if any(node is r or _contains(r, node) for r in reads):
                    continue
                reads.append(node)
                if writable:
                    scope.reads[id(node)] = value
                if path is not leaf.path:
                    columns.add(id(node))
    if not reads:
        raise NotApplicable("the attribute is not read in a way the rules know")
    reads += known_locals(fn, scope, reads)
    return Target(source, info, scope, reads, parents, blocks, columns)


def reads_leaf(node: ast.AST, path: InputPath) -> bool:
    """Whether `node` reads the leaf at `path` itself: `p["age"]`, `p.get("age")`, a field
    of an item of a list through whatever name holds the item (`key=lambda c: c["age"]`), and
    the item of a measurement, `p["age"][0]` (for which leaf_matches takes any name, as the
    static review wants; a rewrite must not)."""
    step, value = path[-1]
    if step == "index":
        return (
            isinstance(node, ast.Subscript)
            and constant_key(node) == value
            and reads_leaf(node.value, path[:-1])
        )
    return leaf_matches(node, path)


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(n is inner for n in ast.walk(outer))


def known_locals(fn: FunctionNode, scope: Scope, reads: list[ast.expr]) -> list[ast.Name]:
    """Locals assigned once, from the attribute, to a value known for the reference group
    (`age = p.get("age", 30)`, `remaining = 68 - age`): their uses count as reads."""
    # A fixed-point loop whose skips each say why a local is not known.
    assigned: dict[str, list[ast.AST]] = {}
    for node in ast.walk(fn):
        for name in [] if node is fn else bound_by(node):
            assigned.setdefault(name, []).append(node)
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    uses: list[ast.Name] = []
    ids = {id(r) for r in reads}
    changed = True
    while changed:
        changed = False
        for name, binders in assigned.items():
            if name in scope.locals or name in params or len(binders) != 1:
                continue
            binder = binders[0]
            if not (isinstance(binder, ast.Assign) and len(binder.targets) == 1):
                continue
            if not any(id(n) in ids for n in ast.walk(binder.value)):
                continue
            try:
                value = scope.value(binder.value)
            except (Undetermined, TypeError, ValueError):
                continue
            if literal(value) is None:
                continue
            scope.locals[name] = value
            for node in ast.walk(fn):
                if isinstance(node, ast.Name) and node.id == name and loads(node):
                    uses.append(node)
                    ids.add(id(node))
            changed = True
    return uses


def loads(node: ast.Name) -> bool:
    return isinstance(node.ctx, ast.Load)


def bound_by(node: ast.AST) -> list[str]:
    """Names a node binds in the function's scope."""
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, ast.NamedExpr):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    elif isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    elif isinstance(node, ast.comprehension):
        targets = [node.target]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def bound_names(fn: FunctionNode) -> set[str]:
    names = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    for extra in (fn.args.vararg, fn.args.kwarg):
        if extra is not None:
            names.add(extra.arg)
    for node in ast.walk(fn):
        if node is not fn:
            names.update(bound_by(node))
    return names
