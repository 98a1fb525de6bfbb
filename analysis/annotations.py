"""What a type annotation says about the values a parameter takes."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from analysis.values import MISSING

if TYPE_CHECKING:
    from analysis.hints import ModuleFacts

def annotation_kind(annotation: ast.expr) -> str | None:
    """The kind an annotation names, looking through Optional[...] and `X | None`."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        for side in (annotation.left, annotation.right):
            if not (isinstance(side, ast.Constant) and side.value is None):
                return annotation_kind(side)
    if isinstance(annotation, ast.Subscript):
        base = annotation.value
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name == "Optional":
            return annotation_kind(annotation.slice)
        if name in ("list", "List", "Sequence", "Iterable", "tuple", "Tuple", "set", "Set"):
            return "list"
        if name in ("dict", "Dict", "Mapping"):
            return "dict"
        if name == "Literal":
            return "literal"
        return None
    name = (
        annotation.attr if isinstance(annotation, ast.Attribute) else getattr(annotation, "id", "")
    )
    return {
        "int": "int",
        "float": "float",
        "str": "str",
        "bool": "bool",
        "list": "list",
        "dict": "dict",
        "Decimal": "float",
        "date": "dateobj",
        "datetime": "dateobj",
    }.get(name)


def literal_choices(annotation: ast.expr, facts: ModuleFacts) -> list[Any]:
    """The values of a `Literal[...]` annotation (looking through Optional)."""
    if isinstance(annotation, ast.Subscript):
        base = annotation.value
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name == "Literal":
            value = facts.const(annotation.slice)
            if isinstance(value, tuple):
                return list(value)
            return [] if value is MISSING else [value]
        if name == "Optional":
            return literal_choices(annotation.slice, facts)
    if isinstance(annotation, ast.BinOp):
        return literal_choices(annotation.left, facts) + literal_choices(annotation.right, facts)
    return []
