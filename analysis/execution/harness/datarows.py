"""A data entry's rows: a data file's first rows read (numbers as numbers, empty cells None,
True/False as flags; a DataFrame by pandas' own reader, when pandas imports) and given the
shape the driven function's annotation names (a DataFrame, a dict, a list of dicts, a
TypedDict, dataclass, attrs class, NamedTuple or pydantic model built from a row), else one
row as a dict, then a DataFrame of rows, then a list of row dicts. The recorder (recorder.py)
calls the functions with them, the rows going to the one parameter named, by keyword (by
position when it takes no keyword), the first shape that returns kept for the next calls. A
call is recorded by the same hook as a test's, its source the file and its rows
(`data/people.csv row 0`, `rows 0-9`), and only when it returns: the calls a raising call
made are dropped.

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only (pandas when it imports).
"""

import collections.abc
import csv
import dataclasses
import functools
import importlib
import inspect
import json
import os
import pathlib
import re
import types
import typing
from typing import Any

if __name__ != "__main__":
    # Imported, as the tests drive the recorder in-process; in the sandbox the parts arrive
    # as one script (analysis.execution.process.HARNESS_SOURCE) and nothing is imported.
    from analysis.execution.harness.loading import command_callback

DATA_ROWS = 50  # rows of a data file read (analysis/evidence/datafiles.HEAD_ROWS)
FRAME_ROWS = 10  # rows of one DataFrame or list of rows passed
# A shape tried this many times with none returning, the next one is tried.
SHAPE_TRIES = 2
INTEGER = re.compile(r"[+-]?\d+")
DECIMAL = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
PLAIN = (str, bytes, int, float, bool, complex)
FLAGS = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}
TRY_EVERY_SHAPE = ("dict", "frame", "rows")
# Words of a parameter's name that say it names a file: the recording keeps the file's content
# (harness/namedfiles.py), and the recording's scope wants such a parameter (evidence/scope.py).
FILE_WORDS = frozenset({"json", "yaml", "yml", "csv", "file", "path", "filename", "filepath"})


class DataTable:
    """A data file's first rows, as the shapes a function may take them in."""

    def __init__(self, path: str, data_format: str, delimiter: str) -> None:
        self.path = path
        self.format = data_format
        self.delimiter = delimiter
        self.rows = read_rows(path, data_format, delimiter)
        self.frame: Any = None

    def units(self, shape: Any) -> list[tuple[str, Any]]:
        """(where, a builder of the value) for each call of this shape."""
        if shape in ("path", "pathlib"):  # the file itself, named (harness/namedfiles.py)
            path = os.path.abspath(self.path)
            return [("as a path", lambda: pathlib.Path(path) if shape == "pathlib" else path)]
        if shape in ("frame", "rows") or (isinstance(shape, tuple) and shape[0] == "models"):
            return [
                (f"rows {start}-{min(start + FRAME_ROWS, len(self.rows)) - 1}",
                 lambda start=start: self.chunk(shape, start))
                for start in range(0, len(self.rows), FRAME_ROWS)
            ]  # fmt: skip
        return [(f"row {i}", lambda i=i: one_row(shape, dict(self.rows[i])))
                for i in range(len(self.rows))]  # fmt: skip

    def chunk(self, shape: Any, start: int) -> Any:
        rows = self.rows[start : start + FRAME_ROWS]
        if shape == "rows":
            return [dict(row) for row in rows]
        if shape != "frame":
            return [one_row(("model", shape[1]), dict(row)) for row in rows]
        import pandas  # ImportError: no DataFrame here, this shape is not tried

        if self.frame is None:
            if self.format in ("csv", "tsv"):  # as the project's own pandas reads it
                self.frame = pandas.read_csv(self.path, sep=self.delimiter, nrows=DATA_ROWS)
            else:
                self.frame = pandas.DataFrame(self.rows)
        return self.frame.iloc[start : start + FRAME_ROWS].reset_index(drop=True).copy()


def read_rows(path: str, data_format: str, delimiter: str) -> list[dict[str, Any]]:
    """The first DATA_ROWS records of a data file: a table's cells read as numbers where
    they are numbers, empty ones None."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        if data_format in ("csv", "tsv"):
            reader = csv.reader(handle, delimiter=delimiter)
            header = [name.strip() for name in next(reader, [])]
            rows: list[dict[str, Any]] = []
            for row in reader:
                if len(rows) >= DATA_ROWS:
                    break
                if row:
                    rows.append({n: cell(text) for n, text in zip(header, row, strict=False)})
            return rows
        values: list[Any] = []
        if data_format == "jsonl":
            for line in handle:
                if len(values) >= DATA_ROWS:
                    break
                if line.strip():
                    values.append(json.loads(line))
        else:
            loaded = json.load(handle)
            values = [loaded] if isinstance(loaded, dict) else list(loaded or [])
    return [v for v in values if isinstance(v, dict)][:DATA_ROWS]


def cell(text: str) -> Any:
    """A table's cell as pandas reads it: a number, a flag, None when empty, else the text."""
    stripped = text.strip()
    if not stripped:
        return None
    if stripped in FLAGS:
        return FLAGS[stripped]
    if INTEGER.fullmatch(stripped):
        return int(stripped)
    if DECIMAL.fullmatch(stripped):
        return float(stripped)
    return text


def one_row(shape: Any, row: dict[str, Any]) -> Any:
    """A row as a dict, or as the record class the annotation names."""
    if not isinstance(shape, tuple):
        return row
    cls: Any = shape[1]
    if hasattr(cls, "model_validate"):  # pydantic 2
        return cls.model_validate(row)
    if hasattr(cls, "parse_obj"):  # pydantic 1
        return cls.parse_obj(row)
    return cls(**{name: row[name] for name in field_names(cls) if name in row})


def field_names(cls: Any) -> list[str]:
    """The fields a dataclass, an attrs class or a NamedTuple is built with."""
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls) if f.init]
    attributes = getattr(cls, "__attrs_attrs__", None)
    if attributes is not None:
        return [a.name for a in attributes if a.init]
    return [str(name) for name in getattr(cls, "_fields", ())]


def import_function(module: str, qualname: str) -> Any:
    """The function, or the method of an instance of its class built bare (`Model()`)."""
    owner: Any = None
    value: Any = importlib.import_module(module)
    name = qualname.rsplit(".", 1)[-1]
    for part in qualname.split("."):
        owner, value = value, getattr(value, part)
    if isinstance(owner, type) and inspect.isfunction(inspect.getattr_static(owner, name)):
        return getattr(owner(), name)  # neither a staticmethod nor a classmethod
    return with_command_defaults(value, command_callback(value, qualname))  # type: ignore[no-untyped-call]


def with_command_defaults(command: Any, function: Any) -> Any:
    """A command-line command's function (harness/loading.py) with its options' defaults
    given, which click keeps on the command, not the function (`--top`, default 5)."""
    params = getattr(command, "params", None) if function is not command else None
    defaults = {}
    for param in params if isinstance(params, list) else []:
        name, default = getattr(param, "name", None), getattr(param, "default", None)
        if isinstance(name, str) and default is not None and not callable(default):
            defaults[name] = default
    return functools.partial(function, **defaults) if defaults else function


def rows_parameter(function: Any, param: str) -> str | None:
    """How the rows go to `param` ("keyword" or "position"), or None when the function
    cannot be called with only them (another parameter has no default)."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    spread = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    chosen = [p for p in parameters if p.name == param and p.kind not in spread]
    others = [p for p in parameters if p.name != param and p.kind not in spread]
    if not chosen or any(p.default is inspect.Parameter.empty for p in others):
        return None
    if chosen[0].kind is inspect.Parameter.POSITIONAL_ONLY:
        return "position" if parameters[0] is chosen[0] else None
    return "keyword"


def annotation_of(function: Any, param: str) -> Any:
    try:
        return typing.get_type_hints(function).get(param)
    except Exception:  # noqa: BLE001 - a name the annotation uses is not importable here
        raw = inspect.signature(function).parameters[param].annotation
        return None if raw is inspect.Parameter.empty or isinstance(raw, str) else raw


def shapes_for(annotation: Any, param: str = "") -> list[Any]:
    """The shapes to try, in order: the file's path for a parameter that names a file
    (`profile_json`, as text or a path as annotated), then what the annotation names (each
    member of a union), or a row as a dict, a DataFrame, a list of rows."""
    if names_a_file(param):
        pathlike = isinstance(annotation, type) and issubclass(annotation, os.PathLike)
        return ["pathlib" if pathlike else "path", *rows_shapes(annotation)]
    return rows_shapes(annotation)


def names_a_file(param: str) -> bool:
    """Whether a parameter's name says it names a file: a word of it (`profile_json`,
    `configPath`) is one of FILE_WORDS."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", param)
    return bool(FILE_WORDS.intersection(word.lower() for word in words))


def rows_shapes(annotation: Any) -> list[Any]:
    if annotation is None or annotation is Any:
        return list(TRY_EVERY_SHAPE)
    origin = typing.get_origin(annotation)
    union = getattr(types, "UnionType", None)
    if origin is typing.Union or (union is not None and isinstance(annotation, union)):
        shapes: list[Any] = []
        for member in typing.get_args(annotation):
            shapes += [s for s in shape_of(member) if s not in shapes]
        return shapes
    return shape_of(annotation)


def shape_of(annotation: Any) -> list[Any]:
    if annotation is type(None):
        return []
    origin = typing.get_origin(annotation) or annotation
    if origin is typing.Annotated:
        return shape_of(typing.get_args(annotation)[0])
    if not isinstance(origin, type):
        return list(TRY_EVERY_SHAPE)
    if origin.__name__ == "DataFrame":
        return ["frame"]
    if issubclass(origin, PLAIN):
        return []  # a value, not a row
    if issubclass(origin, collections.abc.Mapping) or is_typeddict(origin):
        return ["dict"]
    if record_class(origin):
        return [("model", origin)]
    if issubclass(origin, (list, tuple, collections.abc.Iterable)):
        items = typing.get_args(annotation)
        if items and isinstance(items[0], type) and record_class(items[0]):
            return [("models", items[0])]
        return ["rows"]
    return list(TRY_EVERY_SHAPE)


def record_class(cls: type) -> bool:
    """A dataclass, an attrs class, a NamedTuple or a pydantic model: built from a row by
    its fields."""
    return (
        bool(field_names(cls))
        or callable(getattr(cls, "model_validate", None))
        or callable(getattr(cls, "parse_obj", None))
    )


def is_typeddict(cls: type) -> bool:
    check = getattr(typing, "is_typeddict", None)
    return bool(check(cls)) if check is not None else False
