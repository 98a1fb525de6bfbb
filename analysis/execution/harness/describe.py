"""What a recorded argument holds, as bounded JSON the host may read: the description.

The host never unpickles what the recorder kept (the pickles stay on the sandbox side); it
reads this tree instead, to find the protected leaves inside a recorded call by the same
naming rules as everywhere (parameter names, keys, attributes, fields, columns) and to show
the inputs of a counterexample. Every node is `{"t": kind, ...}`:

  scalar  {"kind": "int"|"float"|"bool"|"str"|"none"|"date"|"datetime", "v": value}
          (text cut to MAX_TEXT characters, "cut": true; floats that JSON cannot hold as text;
          a field of a record class declared `Literal[...]` adds "choices": [values])
  enum    {"type": class name, "member": name, "members": [names]}
  map     {"type": class name, "items": [[key, node]...], "len": n}   (str or int keys)
  seq     {"type": class name, "items": [node...], "len": n}          (the first few items)
  object  {"type": class name, "how": "dataclass"|"pydantic"|"namedtuple"|"attrs"|"object",
           "fields": [[name, node]...]}
  frame   {"type": class name, "rows": n, "columns": [[name, {"dtype": str,
           "values": [scalar...]}]...]}                               (a pandas DataFrame)
  series  {"type": class name, "name": str|null, "dtype": str, "len": n, "values": [scalar...]}
  opaque  {"type": class name}

An OpenFisca population (the `person` or `household` a formula gets) is a map from the
variables its simulation holds to their values, one per member: what `person("age", period)`
answers (harness/openfisca.py); a group's `members` are its people's population. A numpy
array is a series of its first values.

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only, and no code of the value's own
runs but plain attribute reads of its declared fields.
"""

import datetime
import enum
import math
import typing
from typing import Any

if __name__ != "__main__":
    # Imported, as the tests drive the recorder in-process; in the sandbox the parts arrive
    # as one script (analysis.execution.process.HARNESS_SOURCE) and nothing is imported.
    from analysis.execution.harness.namedfiles import is_named_file
    from analysis.execution.harness.openfisca import is_numpy_vector, is_population, known_answer

DESCRIBE_DEPTH = 6
DESCRIBE_NODES = 400  # nodes of one call's description, at most, shared by its arguments
MIN_SHARE = 60  # nodes each argument gets at least
DESCRIBE_ITEMS = 5  # items of a list, values of a column, shown
DESCRIBE_KEYS = 40  # keys of a mapping, fields of an object, columns of a frame, shown
MAX_TEXT = 200
# The libraries whose DataFrame and Series are described by their columns and values.
FRAME_LIBRARIES = ("pandas", "polars")


class Describer:
    """Describes one argument of a call within its share of the call's node budget (one of
    `arguments`): a deep first argument (a dict of fitted pipelines) leaves the next (the
    patient's DataFrame) its own."""

    def __init__(self, arguments: int = 1) -> None:
        self.left = max(DESCRIBE_NODES // max(arguments, 1), MIN_SHARE)

    def describe(self, value: Any, depth: int = 0) -> dict[str, Any]:
        # One branch per kind of value described, in the order they must be tried.
        self.left -= 1
        name = type(value).__name__[:100]
        scalar = describe_scalar(value)
        if scalar is not None:
            return scalar
        if isinstance(value, enum.Enum):
            members = [m.name for m in list(type(value))[:DESCRIBE_KEYS]]
            qualified = type(value).__qualname__[:200]  # `Applicant.Sex`: found by its path
            return {"t": "enum", "type": qualified, "member": value.name[:100], "members": members}
        if self.left <= 0 or depth >= DESCRIBE_DEPTH:
            return {"t": "opaque", "type": name}
        frame = describe_frame(value)
        if frame is not None:
            return frame
        if is_population(value):
            return self.population(value, depth)
        if is_numpy_vector(value):
            return describe_array(value)
        if is_named_file(value):  # a data file's content (harness/namedfiles.py)
            content = self.describe(value["content"], depth + 1)
            return {"t": "map", "type": "file", "items": [["content", content]], "len": 1}
        if isinstance(value, dict):
            items: list[list[Any]] = [
                [key if isinstance(key, str) else int(key), self.describe(item, depth + 1)]
                for key, item in list(value.items())[:DESCRIBE_KEYS]
                if isinstance(key, (str, int)) and not isinstance(key, bool)
            ]
            return {"t": "map", "type": name, "items": items, "len": len(value)}
        fields = declared_fields(value)
        if fields is not None:
            how, names = fields
            choices = declared_choices(type(value)) if how != "object" else {}
            described: list[list[Any]] = []
            for field in names[:DESCRIBE_KEYS]:
                try:
                    item = object.__getattribute__(value, field)
                except AttributeError:
                    continue
                node = self.describe(item, depth + 1)
                if field in choices and node["t"] == "scalar":
                    node["choices"] = choices[field]
                described.append([field, node])
            return {"t": "object", "type": name, "how": how, "fields": described}
        if isinstance(value, (list, tuple)):
            first = [self.describe(item, depth + 1) for item in value[:DESCRIBE_ITEMS]]
            return {"t": "seq", "type": name, "items": first, "len": len(value)}
        return {"t": "opaque", "type": name}

    def population(self, value: Any, depth: int) -> dict[str, Any]:
        items: list[list[Any]] = []
        for name in list(value._holders)[:DESCRIBE_KEYS]:
            answer = known_answer(value, name)
            if answer is not None and isinstance(name, str):
                items.append([name, describe_array(answer)])
        members = getattr(value, "members", None)
        if members is not None and members is not value:
            items.append(["members", self.describe(members, depth + 1)])
        return {"t": "map", "type": type(value).__name__, "items": items, "len": len(items)}


def describe_array(value: Any) -> dict[str, Any]:
    values = []
    for item in list(value[:DESCRIBE_ITEMS]):
        scalar = describe_scalar(item)
        values.append(scalar if scalar is not None else {"t": "opaque", "type": "object"})
    return {"t": "series", "type": type(value).__name__, "name": None, "len": int(len(value)),
            "dtype": str(value.dtype)[:40], "values": values}  # fmt: skip


def describe_scalar(value: Any) -> dict[str, Any] | None:
    """A scalar's node, or None. numpy's scalars count as the numbers they are."""
    if value is None:
        return {"t": "scalar", "kind": "none", "v": None}
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return {"t": "scalar", "kind": "bool", "v": bool(value)}
    if isinstance(value, int) or type(value).__name__.startswith(("int", "uint")):
        try:
            return {"t": "scalar", "kind": "int", "v": int(value)}
        except (TypeError, ValueError, OverflowError):
            return None
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
        shown: Any = number if math.isfinite(number) else repr(number)
        return {"t": "scalar", "kind": "float", "v": shown}
    if isinstance(value, str):
        node: dict[str, Any] = {"t": "scalar", "kind": "str", "v": value[:MAX_TEXT]}
        if len(value) > MAX_TEXT:
            node["cut"] = True
        return node
    if isinstance(value, datetime.datetime):
        return {"t": "scalar", "kind": "datetime", "v": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"t": "scalar", "kind": "date", "v": value.isoformat()}
    return None


def declared_fields(value: Any) -> tuple[str, list[str]] | None:
    """How an object declares its fields, and their names: a dataclass, a pydantic model,
    a NamedTuple, an attrs class, or a plain object's instance dictionary."""
    # One test per way a class declares fields, in the order that tells them apart.
    cls = type(value)
    if isinstance(value, type):
        return None
    dataclass_fields = getattr(cls, "__dataclass_fields__", None)
    if isinstance(dataclass_fields, dict):
        return "dataclass", [str(f) for f in dataclass_fields]
    pydantic_fields = getattr(cls, "model_fields", None)
    if isinstance(pydantic_fields, dict) and hasattr(value, "model_copy"):
        return "pydantic", [str(f) for f in pydantic_fields]
    if isinstance(value, tuple) and isinstance(getattr(cls, "_fields", None), tuple):
        return "namedtuple", [str(f) for f in cls._fields]
    attrs_fields = getattr(cls, "__attrs_attrs__", None)
    if attrs_fields is not None:
        try:
            return "attrs", [str(a.name) for a in attrs_fields]
        except (TypeError, AttributeError):
            return None
    if isinstance(value, (list, tuple, dict, set, frozenset, bytes, bytearray)):
        return None
    try:
        own = object.__getattribute__(value, "__dict__")
    except AttributeError:
        return None
    if not isinstance(own, dict) or type(value).__module__ in ("builtins", "types"):
        return None
    return "object", [k for k in own if isinstance(k, str) and not k.startswith("__")]


CHOICES: dict[type, dict[str, list[Any]]] = {}


def declared_choices(cls: type) -> dict[str, list[Any]]:
    """The values a record class's `Literal[...]` fields declare (set outside them, a value
    is one the class itself refuses). Annotations are evaluated once per class."""
    if cls not in CHOICES:
        found: dict[str, list[Any]] = {}
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # noqa: BLE001 - annotations that do not evaluate say nothing
            hints = {}
        for field, hint in hints.items():
            if typing.get_origin(hint) is typing.Literal:
                nodes = [describe_scalar(v) for v in typing.get_args(hint)]
                found[field] = [n["v"] for n in nodes if n is not None][:DESCRIBE_KEYS]
        CHOICES[cls] = found
    return CHOICES[cls]


def describe_frame(value: Any) -> dict[str, Any] | None:
    """A pandas or polars DataFrame by its columns, or a Series by its values; None for
    anything else. Recognised by its class's module, so neither is ever imported here."""
    cls = type(value)
    if cls.__module__.split(".")[0] not in FRAME_LIBRARIES:
        return None
    try:
        if cls.__name__ == "DataFrame":
            columns = []
            for column in list(value.columns)[:DESCRIBE_KEYS]:
                if not isinstance(column, str):
                    continue
                series = value[column]
                if getattr(series, "ndim", 1) != 1:
                    continue  # a repeated column name gives a frame back
                columns.append([column, column_node(series)])
            return {"t": "frame", "type": cls.__name__, "rows": int(len(value)), "columns": columns}
        if cls.__name__ == "Series":
            name = value.name if isinstance(value.name, str) else None
            node = column_node(value)
            return {
                "t": "series",
                "type": cls.__name__,
                "name": name,
                "len": int(len(value)),
                **node,
            }
    except Exception:  # noqa: BLE001 - an odd frame is described as opaque, not a failure
        return {"t": "opaque", "type": cls.__name__}
    return None


def column_node(series: Any) -> dict[str, Any]:
    values = []
    # pandas' rows by position; polars' Series has no index, its head is its first rows
    first = series.iloc[:DESCRIBE_ITEMS] if hasattr(series, "iloc") else series.head(DESCRIBE_ITEMS)
    for item in list(first):
        scalar = describe_scalar(item)
        values.append(
            scalar if scalar is not None else {"t": "opaque", "type": type(item).__name__}
        )
    return {"dtype": str(series.dtype)[:40], "values": values}
