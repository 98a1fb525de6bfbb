"""What a recorded argument holds, read from the child's description (harness_describe.py).

The description comes from the sandbox, so it is untrusted input: every node is checked
against its kind's shape, every text and list is bounded, and anything else is refused
with `InvalidEvidence` (the call is dropped and counted; nothing else is lost). The nodes
form a closed family of small frozen classes; `shown()` gives one as plain JSON for a
report, shortened, with the one changed leaf written in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, assert_never, cast

from analysis.errors import InvalidEvidence

ScalarKind = Literal["int", "float", "bool", "str", "none", "date", "datetime"]
SCALAR_KINDS: frozenset[str] = frozenset(ScalarKind.__args__)  # type: ignore[attr-defined]
HOWS = frozenset({"dataclass", "pydantic", "namedtuple", "attrs", "object"})
MAX_DEPTH = 8
MAX_NODES = 2000
MAX_TEXT = 300
MAX_ITEMS = 60
SHOWN_ITEMS = 3  # items of a list, values of a column, shown in a report
SHOWN_FIELDS = 8  # keys of a mapping, fields of an object, columns of a frame, shown
Key: TypeAlias = str | int
Steps: TypeAlias = tuple[tuple[str, Any], ...]  # from the argument to a leaf (harness_recorded)
Changes: TypeAlias = tuple[tuple[Steps, Any], ...]  # leaves set in a shown value, and to what


@dataclass(frozen=True)
class Scalar:
    kind: ScalarKind
    value: Any  # int, float, bool, str, None; dates and datetimes as ISO text
    choices: tuple[Any, ...] = ()  # a `Literal[...]` field's declared values


@dataclass(frozen=True)
class EnumValue:
    type_name: str
    member: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class MappingValue:
    type_name: str
    items: tuple[tuple[Key, Described], ...]
    length: int


@dataclass(frozen=True)
class SequenceValue:
    type_name: str
    items: tuple[Described, ...]
    length: int


@dataclass(frozen=True)
class ObjectValue:
    type_name: str
    how: str
    fields: tuple[tuple[str, Described], ...]


@dataclass(frozen=True)
class Column:
    dtype: str
    values: tuple[Described, ...]


@dataclass(frozen=True)
class FrameValue:
    type_name: str
    rows: int
    columns: tuple[tuple[str, Column], ...]


@dataclass(frozen=True)
class SeriesValue:
    type_name: str
    name: str | None
    length: int
    column: Column


@dataclass(frozen=True)
class Opaque:
    type_name: str


Described: TypeAlias = (
    Scalar
    | EnumValue
    | MappingValue
    | SequenceValue
    | ObjectValue
    | FrameValue
    | SeriesValue
    | Opaque
)


def shown(node: Described, changes: Changes = ()) -> Any:
    """`node` as plain JSON for a report, shortened (a few items, fields and rows), with the
    leaf at each change's steps showing the value tried instead of what was recorded."""

    def under(step: tuple[str, Any]) -> Changes:
        return tuple((steps[1:], value) for steps, value in changes if steps[:1] == (step,))

    for steps, value in changes:
        if steps == ():
            return value
    # One case per kind of described value (a closed match), each shortened its way.
    match node:
        case Scalar():
            return node.value
        case EnumValue():
            return f"{node.type_name}.{node.member}"
        case MappingValue():
            keys = keep([k for k, _ in node.items], changes, "key")
            out: dict[str, Any] = {
                str(k): shown(v, under(("key", k))) for k, v in node.items if k in keys
            }
            if node.length > len(out):
                out["…"] = f"{node.length - len(out)} more"
            return out
        case SequenceValue():
            items = [
                shown(item, under(("index", i))) for i, item in enumerate(node.items[:SHOWN_ITEMS])
            ]
            if node.length > len(items):
                items.append(f"… {node.length - len(items)} more")
            return items
        case ObjectValue():
            names = keep([k for k, _ in node.fields], changes, "attr")
            inner = ", ".join(
                f"{k}={short(shown(v, under(('attr', k))))}" for k, v in node.fields if k in names
            )
            more = ", …" if len(names) < len(node.fields) else ""
            return f"{node.type_name}({inner}{more})"
        case FrameValue():
            names = keep([k for k, _ in node.columns], changes, "key")
            cells = {
                k: column_shown(col, under(("key", k))) for k, col in node.columns if k in names
            }
            return {"DataFrame": f"{node.rows} rows", **cells}
        case SeriesValue():
            return {"Series": f"{node.length} rows", "values": column_shown(node.column, changes)}
        case Opaque():
            return f"<{node.type_name}>"
        case _:
            assert_never(node)


def column_shown(column: Column, changes: Changes) -> list[Any]:
    """The first values of a column, the changed rows (`("rows", "*")` or `("rows", 0)`)
    showing the value tried."""
    values = [shown(v) for v in column.values[:SHOWN_ITEMS]]
    for steps, value in changes:
        if steps and steps[0][0] == "rows":
            rows = range(len(values)) if steps[0][1] == "*" else [int(steps[0][1])]
            for row in rows:
                if row < len(values):
                    values[row] = value
    return values


def keep(names: list[Any], changes: Changes, how: str) -> list[Any]:
    """The first SHOWN_FIELDS names, and the changed ones wherever they are."""
    kept = names[:SHOWN_FIELDS]
    for steps, _ in changes:
        if steps and steps[0][0] == how and steps[0][1] in names and steps[0][1] not in kept:
            kept.append(steps[0][1])
    return kept


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


class Reader:
    """Parses one description within a node budget; InvalidEvidence on anything off-shape."""

    def __init__(self) -> None:
        self.left = MAX_NODES

    def node(self, data: Any, depth: int = 0) -> Described:
        # One branch per node kind of the protocol, each checking its untrusted fields.
        self.left -= 1
        if self.left < 0 or depth > MAX_DEPTH:
            raise InvalidEvidence("the description is too large or too deep")
        if not isinstance(data, dict):
            raise InvalidEvidence("a description node is not an object")
        kind = data.get("t")
        name = text(data.get("type", ""), "type")
        if kind == "scalar":
            return self.scalar(data)
        if kind == "enum":
            members = tuple(text(m, "member") for m in items(data.get("members", [])))
            return EnumValue(name, text(data.get("member"), "member"), members)
        if kind == "map":
            pairs = tuple(
                (key(pair[0]), self.node(pair[1], depth + 1))
                for pair in items(data.get("items", []))
                if pair_of(pair)
            )
            return MappingValue(name, pairs, count(data.get("len")))
        if kind == "seq":
            first = tuple(self.node(i, depth + 1) for i in items(data.get("items", [])))
            return SequenceValue(name, first, count(data.get("len")))
        if kind == "object":
            how = data.get("how")
            if not isinstance(how, str) or how not in HOWS:
                raise InvalidEvidence(f"unknown kind of object {how!r}")
            fields = tuple(
                (text(pair[0], "field"), self.node(pair[1], depth + 1))
                for pair in items(data.get("fields", []))
                if pair_of(pair)
            )
            return ObjectValue(name, str(how), fields)
        if kind == "frame":
            columns = tuple(
                (text(pair[0], "column"), self.column(pair[1]))
                for pair in items(data.get("columns", []))
                if pair_of(pair)
            )
            return FrameValue(name, count(data.get("rows")), columns)
        if kind == "series":
            label = data.get("name")
            return SeriesValue(
                name,
                text(label, "name") if label is not None else None,
                count(data.get("len")),
                self.column(data),
            )
        if kind == "opaque":
            return Opaque(name)
        raise InvalidEvidence(f"unknown description node {kind!r}")

    def scalar(self, data: dict[str, Any]) -> Scalar:
        kind = data.get("kind")
        value = data.get("v")
        if not isinstance(kind, str) or kind not in SCALAR_KINDS:
            raise InvalidEvidence(f"unknown scalar kind {kind!r}")
        fine = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": is_float(value),
            "bool": isinstance(value, bool),
            "none": value is None,
        }.get(str(kind), isinstance(value, str))
        if not fine:
            raise InvalidEvidence(f"a {kind} scalar holds {type(value).__name__}")
        if isinstance(value, str):
            value = value[:MAX_TEXT]
        choices = tuple(c for c in items(data.get("choices", [])) if plain_scalar(c))
        return Scalar(cast(ScalarKind, kind), value, choices)

    def column(self, data: Any) -> Column:
        if not isinstance(data, dict):
            raise InvalidEvidence("a column is not an object")
        values = tuple(self.node(v, MAX_DEPTH) for v in items(data.get("values", [])))
        return Column(text(data.get("dtype", ""), "dtype"), values)


def text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidEvidence(f"a {what} is not text")
    return value[:MAX_TEXT]


def items(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidEvidence("a list is not a list")
    return value[:MAX_ITEMS]


def pair_of(value: Any) -> bool:
    if not (isinstance(value, list) and len(value) == 2):
        raise InvalidEvidence("an item is not a [key, value] pair")
    return True


def key(value: Any) -> Key:
    if isinstance(value, str):
        return value[:MAX_TEXT]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidEvidence("a mapping key is neither text nor a whole number")


def count(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 40:
        return value
    raise InvalidEvidence("a length is not a count")


def is_float(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return value in ("inf", "-inf", "nan")  # what JSON cannot hold, as the child writes it


def plain_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, str)) or is_float(value)
