"""What a helper's parameter holds, by what the module's own calls hand it.

`_lookup_day(tbl, d)` says nothing of `d`; its one caller passes `days`, worked out from the
child's age, so `d` is an age. A parameter takes the category of its callers' protected
inputs only when every call of the module that binds it passes a value made from inputs of
that one category: a helper also called with a count, a table or a constant holds no
person's attribute.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable, Iterator
from datetime import date

from analysis.caches import Cache
from analysis.facts.module import ModuleFacts
from analysis.shapes import InputModel, InputPath, Leaf
from analysis.source.functions import (
    FunctionInfo,
    FunctionNode,
    call_bindings,
    called_function,
    list_functions,
)
from analysis.source.mentions import mentions
from analysis.source.reads_input import is_input
from analysis.static.taint import Tainter, leaf_matches
from analysis.values import DateValue

# (helper, parameter) -> the calls binding it: the listed function each is in, the argument.
CallSites = dict[tuple[int, str], list[tuple[FunctionInfo, ast.expr]]]
CALL_SITES: Cache[None, CallSites] = Cache("call sites")
# (function, parameter) -> the category every call passes it, if one.
CALLER_CATEGORY: Cache[tuple[int, str], str | None] = Cache("category from callers")
# (caller, record parameter) -> the walk of what calls handed the whole record make.
HANDS_WHOLE: Cache[tuple[int, str], Tainter] = Cache("calls handed a whole record")
# (caller, leaf path) -> whether the input is only handed to accessors after a field's name.
SELECTS_ONLY: Cache[tuple[int, InputPath], bool] = Cache("selects only")
# (caller, leaf object) -> the caller's walk of that input.
CALLER_TAINT: Cache[tuple[int, int], Tainter] = Cache("caller taint")


def call_sites(facts: ModuleFacts) -> CallSites:
    """Every call of the module's (or project's) functions made in this module, by the
    parameter it binds; worked out once per module."""
    return facts.caches.once(CALL_SITES, lambda: module_call_sites(facts))


def module_call_sites(facts: ModuleFacts) -> CallSites:
    sites: CallSites = defaultdict(list)
    for info in list_functions(facts.tree):
        for node in ast.walk(info.node):
            if not isinstance(node, ast.Call):
                continue
            called = called_function(node, facts.functions)
            if called is None or called[0] is info.node:
                continue  # a function calling itself says nothing new of its parameter
            callee, bound = called
            for param, arg in call_bindings(callee, node, bound):
                sites[(id(callee), param)].append((info, arg))
    return dict(sites)


def category_from_callers(
    fn: FunctionNode,
    param: str,
    facts: ModuleFacts,
    model_of: Callable[[FunctionInfo], InputModel],
) -> str | None:
    """The protected category every call of the module passes `fn` as `param`, if one.

    `model_of` gives a caller's inputs as their own names say (never from its callers in
    turn: one step, no cycles)."""
    key = (id(fn), param)
    kept = facts.caches[CALLER_CATEGORY]
    if key in kept:
        return kept[key]
    found: str | None = None
    for info, arg in call_sites(facts).get((id(fn), param), []):
        model = model_of(info)
        categories = {
            leaf.category for leaf in model.protected if tainter(info, leaf, facts).tainted(arg)
        }
        # Worked out with anything but the attribute (a taxable income from the birth year and
        # the salary), it is something else; a reference date goes with a birth date.
        if categories and (
            any(
                not leaf.protected
                and not dated(leaf)
                and not selects_only(info, leaf, model, facts)
                and tainter(info, leaf, facts).tainted(arg)
                for leaf in model.leaves
            )
            or any(whole_record(info, root, facts).tainted(arg) for root in records(model))
            or looked_up(info.node, arg, facts)
        ):
            categories.add(None)
        category = categories.pop() if len(categories) == 1 else None
        if category is None or found not in (None, category):
            found = None  # no category, two, or another than an earlier call's
            break
        found = category
    kept[key] = found
    return found


def category_named_by_callers(
    fn: FunctionNode, param: str, facts: ModuleFacts, category_of: Callable[[str], str | None]
) -> str | None:
    """The category of the name every call of the module hands `fn` as `param` under:
    `Dx(edad, i, tabla)` in a loop `for edad in edades`, `band(row["age"])`. A value is
    what the code calls it, whether or not it came from the caller's own inputs."""
    sites = call_sites(facts).get((id(fn), param), [])
    named = {category_of(word) if (word := value_name(arg)) else None for _, arg in sites}
    return named.pop() if len(named) == 1 else None


def value_name(node: ast.expr) -> str | None:
    """The name a value goes by: a variable's, an attribute's, a key's."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.slice.value
        return key if isinstance(key, str) else None
    return None


def records(model: InputModel) -> set[str]:
    """The parameters that hold records (their leaves are fields)."""
    return {leaf.path[0][1] for leaf in model.leaves if len(leaf.path) > 1}


class HandsWhole(Tainter):
    """What is made by a call handed a whole record (`self._risk_factors(patient)`): the
    other fields it reads go into the result, unseen by the walks of the caller's leaves."""

    def reads_every_name(self) -> bool:
        return False

    def is_source(self, node: ast.AST) -> bool:
        root = self.leaf.path[0][1]
        return isinstance(node, ast.Call) and any(
            is_input(a, {root}) for a in [*node.args, *(k.value for k in node.keywords)]
        )

    def sources(self) -> Iterator[ast.AST]:
        """The calls handed the record: around each mention of its name (the call, or the
        call around its keyword)."""
        index = mentions(self.fn)
        seen: set[int] = set()
        for name in index.by_word.get(self.leaf.path[0][1], ()):
            parent = index.parent(name)
            for node in (parent, index.parent(parent) if parent is not None else None):
                if node is not None and id(node) not in seen and self.is_source(node):
                    seen.add(id(node))
                    yield node


def whole_record(info: FunctionInfo, root: str, facts: ModuleFacts) -> Tainter:
    def walk() -> Tainter:
        return HandsWhole(info.node, Leaf((("param", root),), root, root, []))

    return facts.caches.value(HANDS_WHOLE, (id(info.node), root), walk)


def dated(leaf: Leaf) -> bool:
    """An input the code takes as a date: the day a measurement or a tax year is taken at."""
    return any(isinstance(v, (date, DateValue)) for v in leaf.pool)


def selects_only(info: FunctionInfo, leaf: Leaf, model: InputModel, facts: ModuleFacts) -> bool:
    """An input only ever handed to accessors after the field's name: the `period` of
    `person("age", period)` says which age, it is no part of it."""
    key = (id(info.node), leaf.path)
    kept = facts.caches[SELECTS_ONLY]
    if key not in kept:
        if len(leaf.path) != 1:
            kept[key] = False
            return False
        name = leaf.path[0][1]
        paths = [other.path for other in model.leaves if len(other.path) > 1]
        handed: set[int] = set()
        for node in ast.walk(info.node):
            if isinstance(node, ast.Call) and any(leaf_matches(node, p) for p in paths):
                handed |= {id(a) for a in node.args[1:] if isinstance(a, ast.Name)}
        reads = [n for n in ast.walk(info.node) if is_input(n, {name})]
        kept[key] = bool(handed) and all(id(n) in handed for n in reads)
    return kept[key]


def looked_up(caller: FunctionNode, arg: ast.expr, facts: ModuleFacts) -> bool:
    """Whether `arg` is an item of one of the module's tables, picked by the attribute (and
    maybe more): `ref_data[i]["l"]` after `ref_data = CDC_DATA[sex]`. The table's number for
    that sex is a coefficient, not the sex."""
    root = item_root(arg)
    if root is None:
        return False
    if root in facts.constants:
        return True
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == root for t in node.targets)
        and item_root(node.value) in facts.constants
        for node in ast.walk(caller)
    )


def item_root(node: ast.expr) -> str | None:
    """The name an item is taken from: `rows` of `rows[i]["l"]`; None for anything else."""
    if not isinstance(node, ast.Subscript):
        return None
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def tainter(info: FunctionInfo, leaf: Leaf, facts: ModuleFacts) -> Tainter:
    """One caller's walk of one input, shared by every call it makes."""
    key = (id(info.node), id(leaf))
    return facts.caches.value(CALLER_TAINT, key, lambda: Tainter(info.node, leaf))
