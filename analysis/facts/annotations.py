"""What a type annotation says about the values a parameter takes."""

from __future__ import annotations

import ast
from typing import Any, Protocol

from analysis.values import MISSING, Choices


class Constants(Protocol):
    """What reading an annotation needs of its module (`ModuleFacts` is one): the value of a
    constant expression, names resolved."""

    def const(self, node: ast.expr, local: dict[str, Any] | None = None) -> Any: ...


# Annotations of collections, tried as lists (membership, iteration and `len` work alike),
# and of mappings.
COLLECTIONS = frozenset(
    {"list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection",
     "tuple", "Tuple", "set", "Set", "MutableSet", "frozenset", "FrozenSet", "AbstractSet"}
)  # fmt: skip
MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"})


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
        return subscripted_kind(annotation)
    name = (
        annotation.attr if isinstance(annotation, ast.Attribute) else getattr(annotation, "id", "")
    )
    if name in COLLECTIONS:
        return "list"  # a bare `frozenset`: `"80C" in allowed` works on a list too
    if name in MAPPINGS:
        return "dict"
    return {
        "int": "int",
        "float": "float",
        "str": "str",
        "bool": "bool",
        "Decimal": "float",
        "date": "dateobj",
        "datetime": "dateobj",
    }.get(name)


def declares_decimal(annotation: ast.expr) -> bool:
    """`Decimal`, `Optional[Decimal]`, `decimal.Decimal | None`: a number held as a Decimal."""
    return annotation_kind(annotation) == "float" and any(
        (isinstance(node, ast.Name) and node.id == "Decimal")
        or (isinstance(node, ast.Attribute) and node.attr == "Decimal")
        for node in ast.walk(annotation)
    )


def subscripted_kind(annotation: ast.Subscript) -> str | None:
    """The kind of `X[...]`: what Optional, Annotated or Union hold, a list, a dict, a
    Literal."""
    base = annotation.value
    name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
    if name == "Optional":
        return annotation_kind(annotation.slice)
    if name == "Annotated" and isinstance(annotation.slice, ast.Tuple):
        return annotation_kind(annotation.slice.elts[0])
    if name == "Union" and isinstance(annotation.slice, ast.Tuple):
        # `Union[str, date]`: a date however it is spelt; else the first that says a kind
        kinds = [annotation_kind(member) for member in annotation.slice.elts]
        return "dateobj" if "dateobj" in kinds else next((k for k in kinds if k), None)
    if name in COLLECTIONS:
        return "list"
    if name in MAPPINGS:
        return "dict"
    if name == "Literal":
        return "literal"
    return None


def literal_choices(annotation: ast.expr, facts: Constants) -> list[Any]:
    """The values of a `Literal[...]` annotation (looking through Optional), or of a name
    given to one (`identity: Identity`)."""
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        value = facts.const(annotation)
        return list(value) if isinstance(value, Choices) else []
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
        if name == "Annotated" and isinstance(annotation.slice, ast.Tuple):
            return literal_choices(annotation.slice.elts[0], facts)
    if isinstance(annotation, ast.BinOp):
        return literal_choices(annotation.left, facts) + literal_choices(annotation.right, facts)
    return []


# Keyword limits of annotated_types, pydantic's Field/conint/confloat and similar validators.
LIMIT_KEYWORDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<", "min_value": ">=",
                  "max_value": "<=", "minimum": ">=", "maximum": "<="}  # fmt: skip
LIMIT_CALLS = {"Ge": ">=", "Gt": ">", "Le": "<=", "Lt": "<"}


def annotated_bounds(annotation: ast.expr, facts: Constants) -> list[tuple[str, float]]:
    """Limits a number must keep to, as its annotation declares them: `Annotated[float,
    (30, 90)]`, `Annotated[int, Ge(18), Le(100)]`, `Annotated[int, Field(ge=0, lt=120)]`,
    `Annotated[float, ValueRange(0.1, 20)]`, `conint(ge=18)`. Validators that read them
    refuse every other value: inputs rest within them."""
    if not isinstance(annotation, (ast.Subscript, ast.Call)):
        return []
    if isinstance(annotation, ast.Call):
        return call_bounds(annotation, facts)
    base = annotation.value
    name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
    if name == "Optional":
        return annotated_bounds(annotation.slice, facts)
    if name != "Annotated" or not isinstance(annotation.slice, ast.Tuple):
        return []
    bounds: list[tuple[str, float]] = []
    for meta in annotation.slice.elts[1:]:
        value = facts.const(meta)
        if (
            isinstance(value, (tuple, list))
            and len(value) == 2
            and all(is_plain_number(v) for v in value)
            and value[0] <= value[1]
        ):
            bounds += [(">=", float(value[0])), ("<=", float(value[1]))]
        elif isinstance(meta, ast.Call):
            bounds += call_bounds(meta, facts)
    return bounds


def call_bounds(call: ast.Call, facts: Constants) -> list[tuple[str, float]]:
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    args = [facts.const(a) for a in call.args]
    if called in LIMIT_CALLS and len(args) == 1 and is_plain_number(args[0]):
        return [(LIMIT_CALLS[called], float(args[0]))]
    bounds = []
    for keyword in call.keywords:
        value = facts.const(keyword.value)
        if keyword.arg in LIMIT_KEYWORDS and is_plain_number(value):
            bounds.append((LIMIT_KEYWORDS[keyword.arg], float(value)))
    if not bounds and "range" in called.lower() and len(args) == 2:
        if all(is_plain_number(v) for v in args) and args[0] <= args[1]:
            bounds = [(">=", float(args[0])), ("<=", float(args[1]))]
    return bounds


def is_plain_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
