"""What an expression of the function is worth for the reference group, worked out from the
syntax alone: reads of the attribute stand for the reference value, names for the module's
constants and the function's locals that hold one value.

Only whitelisted operations on literal values are carried out here (comparisons, arithmetic,
a few string methods and builtins), never the code under test; sizes are bounded, so a
`"x" * 10**9` in the code costs nothing.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from analysis.values import EnumMember


class Undetermined(Exception):
    """The expression's value depends on something other than the attribute and constants."""


COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    # `is` between values worked out here: identity for None and booleans, else equality
    # (an enum member is the one object of its name).
    ast.Is: lambda a, b: _same(a, b),
    ast.IsNot: lambda a, b: not _same(a, b),
}
ARITHMETIC: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
# Methods of a text that only read it: `sex.lower() == "f"`, `zip_code.startswith("94")`.
TEXT_METHODS = frozenset(
    {
        "lower", "upper", "strip", "lstrip", "rstrip", "casefold", "title", "capitalize",
        "startswith", "endswith", "isdigit", "isalpha", "split", "replace", "get", "index",
        "count", "keys", "values",
    }
)  # fmt: skip
BUILTINS: dict[str, Callable[..., Any]] = {
    "len": len, "min": min, "max": max, "abs": abs, "round": round, "int": int,
    "float": float, "str": str, "bool": bool, "sorted": sorted, "tuple": tuple,
    "list": list, "set": frozenset, "frozenset": frozenset,
}  # fmt: skip
LARGEST = 10_000  # items or characters of a value worked out here


@dataclass
class Scope:
    """What names and reads stand for."""

    reads: dict[int, Any] = field(default_factory=dict)  # id(node) of a read -> its value
    locals: dict[str, Any] = field(default_factory=dict)  # locals that hold one known value
    constants: Mapping[str, Any] = field(default_factory=dict)  # the module's, by name
    shadowed: frozenset[str] = frozenset()  # names the function assigns: not the module's

    def value(self, node: ast.expr) -> Any:
        """The value of `node`, or Undetermined."""
        return _Evaluator(self).visit(node)

    def decided(self, node: ast.expr) -> bool:
        try:
            self.value(node)
        except Undetermined:
            return False
        return True

    def truth(self, node: ast.expr) -> bool | None:
        """The truth of a test, as far as it is decided; None when it is not."""
        try:
            return bool(self.value(node))
        except (Undetermined, TypeError, ValueError):
            return None


class _Evaluator(ast.NodeVisitor):
    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def visit(self, node: ast.AST) -> Any:
        if id(node) in self.scope.reads:
            return self.scope.reads[id(node)]
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise Undetermined(type(node).__name__)
        try:
            return _bounded(method(node))
        except Undetermined:
            raise
        except (ArithmeticError, TypeError, ValueError, KeyError, IndexError, AttributeError):
            raise Undetermined(ast.unparse(node)) from None

    def visit_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id in self.scope.locals:
            return self.scope.locals[node.id]
        if node.id in self.scope.shadowed or node.id not in self.scope.constants:
            raise Undetermined(node.id)
        return self.scope.constants[node.id]

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name):
            key = f"{node.value.id}.{node.attr}"
            if key in self.scope.constants and node.value.id not in self.scope.locals:
                return self.scope.constants[key]
        raise Undetermined(ast.unparse(node))

    def visit_Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node: ast.List) -> Any:
        return [self.visit(e) for e in node.elts]

    def visit_Set(self, node: ast.Set) -> Any:
        return frozenset(self.visit(e) for e in node.elts)

    def visit_Dict(self, node: ast.Dict) -> Any:
        if any(k is None for k in node.keys):
            raise Undetermined("**")
        pairs = zip(node.keys, node.values, strict=True)
        return {self.visit(k): self.visit(v) for k, v in pairs if k is not None}

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        value: Any = None
        for operand in node.values:
            value = self.visit(operand)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return not value
        if isinstance(node.op, ast.USub) and _number(value):
            return -value
        if isinstance(node.op, ast.UAdd) and _number(value):
            return value
        raise Undetermined("unary")

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        left, right = self.visit(node.left), self.visit(node.right)
        op = ARITHMETIC.get(type(node.op))
        if op is None:
            raise Undetermined("operator")
        if isinstance(node.op, ast.Pow) and (not _number(right) or abs(right) > 64):
            raise Undetermined("power")
        if isinstance(node.op, ast.Mult) and not (_number(left) and _number(right)):
            raise Undetermined("repetition")
        if isinstance(node.op, ast.Mod) and isinstance(left, str):
            raise Undetermined("formatting")
        return op(left, right)

    def visit_Compare(self, node: ast.Compare) -> Any:
        left = self.visit(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.visit(comparator)
            if not COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        return self.visit(node.body) if self.visit(node.test) else self.visit(node.orelse)

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        container = self.visit(node.value)
        if isinstance(node.slice, ast.Slice):
            parts = [None if p is None else self.visit(p) for p in
                     (node.slice.lower, node.slice.upper, node.slice.step)]  # fmt: skip
            return container[slice(*parts)]
        found = container[self.visit(node.slice)]
        if found is None and isinstance(container, dict):
            # ModuleFacts writes None for a table entry that is not a constant.
            raise Undetermined("a table entry that is not a constant")
        return found

    def visit_Call(self, node: ast.Call) -> Any:
        # The calls the evaluator trusts (builtins, text and table methods), in one place.
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise Undetermined("call")
        if isinstance(node.func, ast.Name) and node.func.id in BUILTINS:
            if node.func.id in self.scope.shadowed or node.func.id in self.scope.constants:
                raise Undetermined(node.func.id)
            return BUILTINS[node.func.id](*(self.visit(a) for a in node.args))
        if isinstance(node.func, ast.Attribute) and node.func.attr in TEXT_METHODS:
            owner = self.visit(node.func.value)
            if node.func.attr in ("get", "keys", "values", "index", "count"):
                if not isinstance(owner, (dict, list, tuple, str)):
                    raise Undetermined("method")
            elif not isinstance(owner, str):
                raise Undetermined("method")
            arguments = [self.visit(a) for a in node.args]
            if node.func.attr == "get" and isinstance(owner, dict) and arguments:
                key = arguments[0]
                if owner.get(key) is None and (key in owner or len(arguments) < 2):
                    raise Undetermined("a table entry that is not a constant")
            found = getattr(owner, node.func.attr)(*arguments)
            return list(found) if node.func.attr in ("keys", "values") else found
        raise Undetermined("call")


def _same(a: Any, b: Any) -> bool:
    return a is b if a is None or b is None or isinstance(a, bool) else bool(a == b)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bounded(value: Any) -> Any:
    if isinstance(value, (str, list, tuple, dict, frozenset, set)) and len(value) > LARGEST:
        raise Undetermined("too large")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**18:
        raise Undetermined("too large")
    if isinstance(value, float) and not math.isfinite(value):
        raise Undetermined("not finite")
    return value


def literal(value: Any) -> str | None:
    """Python text for a value worked out here, or None when it has none worth writing."""
    if value is None or isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        return repr(round(value, 10)) if math.isfinite(value) else None
    if isinstance(value, EnumMember):
        return repr(value)
    return None
