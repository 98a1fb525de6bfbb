"""The inputs a function changes in place, when that is how it answers: a function that
fills in the record it is given (`customer["discount"] = rate`), a frame it adds a column to.
What it leaves on them is its output (the harness shows them after the call in place of its
None), so two people it treats differently show it.

A method's own instance is not among them, nor a constructor's: what an object stores on
itself (`self.table`, `self.tax`) is judged where it is read, by the method or property that
returns it. The object answers with what it returns, prints or raises, as the real-world
labels do (tests/realworld/README.md, "Constructors and methods that return None").
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from analysis.source.functions import FunctionNode, own_nodes

# Methods that change the container or object they are called on.
CHANGING_METHODS = frozenset(
    {"append", "extend", "insert", "update", "setdefault", "add", "discard", "remove", "pop",
     "clear", "sort", "reverse", "__setitem__"}
)  # fmt: skip


def changed_in_place(fn: FunctionNode, instance: str = "") -> tuple[str, ...]:
    """The parameters `fn` changes in place, in order, when it returns no value (a
    generator's items are its output), other than `instance`, the name a method gives its
    own object."""
    if fn.name == "__init__" or not returns_nothing(fn):
        return ()
    params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
    changed = {root for root in changed_roots(fn)}
    return tuple(p for p in params if p in changed and p != instance)


def returns_nothing(fn: FunctionNode) -> bool:
    for node in own_nodes(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                return False
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return False
    return True


def changed_roots(fn: FunctionNode) -> Iterator[str]:
    """The names whose attribute or item the function sets, deletes or changes by a method:
    `self.table = ...`, `record["risk"] += 1`, `self.history.append(x)`."""
    for node in own_nodes(fn):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in unpacked(target)]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in CHANGING_METHODS
        ):
            targets = [node.func]
        for target in targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)):
                root = root_name(target)
                if root is not None:
                    yield root


def unpacked(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for elt in target.elts for t in unpacked(elt)]
    return [target.value] if isinstance(target, ast.Starred) else [target]


def root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
