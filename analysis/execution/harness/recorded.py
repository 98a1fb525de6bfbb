"""Recorded calls replayed: each argument as the project's own run made it, with one leaf set.

A value `{"__cb__": "recorded", "call": "c12", "param": 0 | "name", "set": [[steps, V]...]}`
is the argument `param` (a position, or a keyword) of recorded call `c12`, whose pickle the
host keeps in the evidence folder the sandbox sees read-only (load's "evidence"). The pickle
is read once per session and loaded afresh for every call, so no call sees what an earlier
one changed, and arguments of one call that shared an object still share it. Then each leaf
is set along its steps, rebuilding what cannot be changed in place:

  ["key", k]       an item of a mapping
  ["attr", name]   an attribute: a plain or frozen dataclass (set on this fresh copy), a
                   NamedTuple (`_replace`), a pydantic model (`model_copy(update=...)` when
                   frozen), attrs
  ["index", i]     an item of a list or tuple; i == "*" sets every item
  ["rows", r]      the rows of a pandas or polars column (after ["key", column] on a
                   DataFrame, or on a Series, or a numpy array): r == "*" sets every row
                   (the peers alike), r == 0 the first row alone (against its peers); a
                   polars frame, immutable, is made again with the column replaced

On an OpenFisca population (harness/describe.py) ["key", variable] sets what the population
answers for that variable: its simulation's values in every period it holds, so that the
formula's `person("age", period)` reads the value tried; ["key", "members"] is a group's people.

A value set where an enum member was recorded may name a member of the same enum; a date
where a datetime was, keeps its time. The index file (`index.json`, written by the host) says, per
call, which import roots the recording run added (test modules' classes load through them),
which program ran as `__main__` (a demo's classes load from that file again, without
running its `__main__` block) and which environment variables the run had set (set again
before the call's values load: the session's later calls keep them).

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import datetime
import enum
import io
import json
import os
import pickle
import re
import runpy
import sys
from typing import Any

if __name__ != "__main__":
    # Imported, as the tests drive the replay in-process; in the sandbox the parts arrive
    # as one script (analysis.execution.process.HARNESS_SOURCE) and nothing is imported.
    from analysis.execution.harness.callcopy import PICKLED_HELPERS
    from analysis.execution.harness.namedfiles import FILES, is_named_file
    from analysis.execution.harness.openfisca import is_numpy_vector, is_population, set_answers

CALL_ID = re.compile(r"c[0-9]{1,6}")
MAX_RECORDED_BYTES = 16 << 20


class RecordedCalls:
    """The recorded calls of one session: read lazily, loaded afresh for every call."""

    def __init__(self) -> None:
        self.folder: str | None = None
        self.repo = ""
        self.blobs: dict[str, bytes] = {}
        self.fresh: dict[str, dict[str, Any]] = {}
        self.index: dict[str, Any] | None = None
        self.mains: dict[str, Any] = {}

    def configure(self, folder: Any, repo: Any) -> None:
        """A session's evidence folder and project folder (as the child sees them)."""
        self.__init__()  # type: ignore[misc]
        self.folder = folder if isinstance(folder, str) and folder else None
        self.repo = repo if isinstance(repo, str) else ""

    def preload(self, calls: Any) -> None:
        """Load each of `calls` once: what unpickling imports (pandas...) is imported now."""
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, str) and CALL_ID.fullmatch(call):
                self.load(call)

    def begin_call(self) -> None:
        """A new call starts from fresh copies of the recorded values."""
        self.fresh.clear()

    def value(self, spec: dict[str, Any], decode: Any) -> Any:
        call = spec.get("call")
        if not isinstance(call, str) or not CALL_ID.fullmatch(call):
            raise ValueError(f"no recorded call {call!r}")
        if call not in self.fresh:
            self.fresh[call] = self.load(call)
        arguments = self.fresh[call]
        param = spec.get("param")
        if isinstance(param, int) and not isinstance(param, bool):
            value = arguments["args"][param]
        else:
            value = arguments["kwargs"][str(param)]
        for steps, new in spec.get("set", []):
            value = set_leaf(value, [tuple(s) for s in steps], decode(new))
        if is_named_file(value):  # the data file it named, written again (harness/namedfiles.py)
            value = FILES.write(value, param)
        if isinstance(param, int) and not isinstance(param, bool):
            arguments["args"][param] = value
        else:
            arguments["kwargs"][str(param)] = value
        return value

    def load(self, call: str) -> dict[str, Any]:
        if self.folder is None:
            raise ValueError("no evidence folder in this session")
        info = self.info(call)
        for relative in info.get("paths", []):
            if isinstance(relative, str):
                root = os.path.normpath(os.path.join(self.repo, relative))
                if root not in sys.path:
                    sys.path.append(root)
        environ = info.get("environ")
        for name, value in environ.items() if isinstance(environ, dict) else ():
            if isinstance(name, str) and isinstance(value, str):
                os.environ[name] = value  # as the run had it (A207_CALLER its test set)
        if call not in self.blobs:
            with open(os.path.join(self.folder, call + ".pickle"), "rb") as handle:
                self.blobs[call] = handle.read(MAX_RECORDED_BYTES)
        loaded = RecordedUnpickler(io.BytesIO(self.blobs[call]), self, info.get("main")).load()
        if not isinstance(loaded, dict):
            raise ValueError(f"recorded call {call} holds no arguments")
        return {"args": list(loaded.get("args", [])), "kwargs": dict(loaded.get("kwargs", {}))}

    def info(self, call: str) -> dict[str, Any]:
        if self.index is None:
            assert self.folder is not None
            try:
                with open(os.path.join(self.folder, "index.json"), encoding="utf-8") as handle:
                    self.index = json.load(handle)
            except (OSError, ValueError):
                self.index = {}
        found = self.index.get(call) if isinstance(self.index, dict) else None
        return found if isinstance(found, dict) else {}

    def main_module(self, main: Any) -> Any:
        """The module a recorded program ran as `__main__`, for the classes it defined: the
        target's own module when it is that file, else the file run again under another
        name (its `if __name__ == "__main__":` block stays still)."""
        if not isinstance(main, dict):
            return None
        if isinstance(main.get("module"), str):
            import importlib

            return importlib.import_module(main["module"])
        path = main.get("path")
        if not isinstance(path, str):
            return None
        path = os.path.join(self.repo, path)
        if path not in self.mains:
            same = [
                m
                for m in list(sys.modules.values())
                if os.path.normpath(str(getattr(m, "__file__", "") or "")) == os.path.normpath(path)
            ]
            if same:
                self.mains[path] = same[0]
            else:
                namespace = runpy.run_path(path, run_name="codebias_recorded_main")
                module = type(sys)("codebias_recorded_main")
                module.__dict__.update(namespace)
                self.mains[path] = module
        return self.mains[path]


class RecordedUnpickler(pickle.Unpickler):
    """Classes a demo defined in its `__main__` are found in that demo's file again."""

    def __init__(self, data: Any, calls: RecordedCalls, main: Any) -> None:
        super().__init__(data)
        self.calls = calls
        self.main = main

    def find_class(self, module: str, name: str) -> Any:
        if module == "__main__" and name in PICKLED_HELPERS:
            return globals()[name]  # the harness's own (harness/callcopy.py)
        if module == "__main__" and self.main is not None:
            found = self.calls.main_module(self.main)
            if found is not None:
                value: Any = found
                for part in name.split("."):
                    value = getattr(value, part)
                return value
        return super().find_class(module, name)


def set_leaf(obj: Any, steps: list[tuple[Any, ...]], value: Any) -> Any:
    """`obj` with the leaf at `steps` set to `value` (in place where it can be): the new obj."""
    if not steps:
        return as_recorded(obj, value)
    (kind, key), rest = steps[0], steps[1:]
    if kind == "rows":
        if is_polars(obj, "Series"):
            return polars_rows(obj, key, value)
        return set_rows(obj, key, value)
    if kind == "key" and is_population(obj):
        if key == "members":  # a group's people
            set_leaf(obj.members, rest, value)
        else:
            set_answers(obj, key, lambda values: set_leaf(values, rest, value))
        return obj
    if kind == "key":
        if is_pandas(obj, "DataFrame") and rest and rest[0][0] == "rows":
            set_column(obj, key, rest[0][1], value)
            return obj
        if is_polars(obj, "DataFrame"):  # immutable: a new frame with the column replaced
            return obj.with_columns(set_leaf(obj.get_column(key), rest or [("rows", "*")], value))
        new = set_leaf(obj[key], rest, value)
        try:
            obj[key] = new
        except TypeError:  # a read-only mapping: a dict of its items instead
            obj = {**obj, key: new}
        return obj
    if kind == "attr":
        new = set_leaf(getattr(obj, key), rest, value)
        return set_attribute(obj, key, new)
    if kind == "index":
        indices = range(len(obj)) if key == "*" else [int(key)]
        items = list(obj)
        for i in indices:
            items[i] = set_leaf(items[i], rest, value)
        if isinstance(obj, list):
            obj[:] = items
            return obj
        if isinstance(obj, tuple):
            make = getattr(type(obj), "_make", None)  # a NamedTuple
            return make(items) if make is not None else type(obj)(items)
        for i in indices:
            obj[i] = items[i]
        return obj
    raise ValueError(f"unknown step {kind!r}")


def set_attribute(obj: Any, name: str, value: Any) -> Any:
    if isinstance(obj, tuple) and hasattr(obj, "_replace"):
        return obj._replace(**{name: value})
    config = getattr(type(obj), "model_config", None)
    if isinstance(config, dict) and config.get("frozen") and hasattr(obj, "model_copy"):
        return obj.model_copy(update={name: value})
    try:
        setattr(obj, name, value)  # validated where the class validates assignments
    except (AttributeError, TypeError):
        # A frozen dataclass, a read-only attrs class: this copy is ours alone.
        object.__setattr__(obj, name, value)
    return obj


def set_column(frame: Any, column: Any, rows: Any, value: Any) -> None:
    """A DataFrame's column set in every row, or in its first row alone."""
    old = frame[column].iloc[0] if len(frame) else None
    value = as_recorded(old, value)
    for attempt in range(2):
        try:
            if rows == "*":
                frame[column] = [value] * len(frame)
            else:
                frame.iloc[int(rows), frame.columns.get_loc(column)] = value
            return
        except (TypeError, ValueError):
            if attempt:
                raise
            frame[column] = frame[column].astype(object)  # a category the column lacks


def set_rows(series: Any, rows: Any, value: Any) -> Any:
    """A Series (or a list or numpy array of one value per person) set in every row, or its
    first."""
    if isinstance(series, list) or is_numpy_vector(series):
        indices = range(len(series)) if rows == "*" else [int(rows)]
        for i in indices:
            series[i] = as_recorded(series[i], value)
        return series
    old = series.iloc[0] if len(series) else None
    value = as_recorded(old, value)
    try:
        if rows == "*":
            series[:] = value
        else:
            series.iloc[int(rows)] = value
    except (TypeError, ValueError):
        series = series.astype(object)
        if rows == "*":
            series[:] = value
        else:
            series.iloc[int(rows)] = value
    return series


def polars_rows(series: Any, rows: Any, value: Any) -> Any:
    """A polars Series (immutable) made again with every row, or its first, set; of the
    type the values take when the column's own cannot hold the value tried."""
    values = series.to_list()
    for i in range(len(values)) if rows == "*" else [int(rows)]:
        values[i] = as_recorded(values[i], value)
    try:
        return type(series)(series.name, values, dtype=series.dtype)
    except (TypeError, ValueError, OverflowError):
        return type(series)(series.name, values, strict=False)


def as_recorded(old: Any, new: Any) -> Any:
    """`new` in the form the recorded value had: an enum member by name, a datetime."""
    if isinstance(old, enum.Enum) and isinstance(new, str):
        members = type(old).__members__
        if new in members:
            return members[new]
        return type(old)(new)
    if isinstance(old, datetime.datetime) and type(new) is datetime.date:
        return datetime.datetime.combine(new, old.timetz())
    return new


def is_pandas(obj: Any, name: str) -> bool:
    cls = type(obj)
    return cls.__name__ == name and cls.__module__.split(".")[0] == "pandas"


def is_polars(obj: Any, name: str) -> bool:
    cls = type(obj)
    return cls.__name__ == name and cls.__module__.split(".")[0] == "polars"


RECORDED = RecordedCalls()
