"""A recorded call's arguments, as its frame holds them at its start, pickled so that another
process loads them (harness/recorder.py keeps them, harness/recorded.py replays them).

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import importlib
import io
import marshal
import pickle
import sys
import types
from typing import Any

if __name__ != "__main__":
    # Imported, as the tests drive the recorder in-process; in the sandbox the parts arrive
    # as one script (analysis.execution.process.HARNESS_SOURCE) and nothing is imported.
    from analysis.execution.harness.openfisca import OpenFiscaReferences

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08


def bound_arguments(frame: Any) -> tuple[list[Any], dict[str, Any], list[tuple[str, str]]] | None:
    """The call's arguments as its frame holds them at its start: the positional ones in
    order (then the `*args` items), the keyword-only ones and the `**kwargs`, with their
    names and how each is passed."""
    code = frame.f_code
    names = code.co_varnames
    local = frame.f_locals
    count, kwonly = code.co_argcount, code.co_kwonlyargcount
    try:
        args = [local[names[i]] for i in range(count)]
        kwargs = {names[count + j]: local[names[count + j]] for j in range(kwonly)}
        how = [(names[i], "arg") for i in range(count)] + [(n, "kw") for n in kwargs]
        position = count + kwonly
        if code.co_flags & CO_VARARGS:
            extra = list(local[names[position]])
            how[count:count] = [(f"{names[position]}[{i}]", "star") for i in range(len(extra))]
            args += extra
            position += 1
        if code.co_flags & CO_VARKEYWORDS:
            more = local[names[position]]
            for key, value in more.items():
                if isinstance(key, str) and key not in kwargs:
                    kwargs[key] = value
                    how.append((key, "kw"))
    except (KeyError, IndexError, TypeError):
        return None  # an argument deleted or rebound before its first line: not a call's
    return args, kwargs, how


class CallPickler(pickle.Pickler):
    """Pickles a recorded call's arguments so that another process loads them: an object
    whose class answers unknown attributes through `__getattr__` (an OpenFisca population:
    `person.household`) by its instance dictionary, set back without looking anything up
    (the default way asks the fresh, empty object for `__setstate__`, and its `__getattr__`
    recurses on fields it does not have yet); an OpenFisca system, its variables and enums
    by reference (harness/openfisca.py)."""

    def __init__(self, buffer: Any, references: "OpenFiscaReferences") -> None:
        super().__init__(buffer, protocol=4)
        self.references = references

    def reducer_override(self, obj: Any) -> Any:
        reference = self.references.reduce(obj)
        if reference is not None:
            return reference
        if type(obj) is types.FunctionType and by_value(obj):
            return function_by_value(obj)
        cls = type(obj)
        if (
            isinstance(obj, type)
            or not hasattr(cls, "__getattr__")
            or any(name in vars(k) for k in cls.__mro__[:-1] for name in OWN_PICKLING)
            or any("__slots__" in vars(k) for k in cls.__mro__[:-1])  # fields beside __dict__
            or not isinstance(getattr(obj, "__dict__", None), dict)
        ):
            return NotImplemented
        return new_object, (cls,), dict(obj.__dict__), None, None, restore_fields


OWN_PICKLING = ("__reduce_ex__", "__reduce__", "__getstate__", "__setstate__")
# What a pickle of a recorded call names of the harness itself: found in the harness when a
# replay's unpickler looks in a demo's `__main__` (harness/recorded.py).
PICKLED_HELPERS = ("new_object", "restore_fields", "function_skeleton", "fill_function")
EMPTY_CELL = "<codebias: empty cell>"


def by_value(function: Any) -> bool:
    """A function pickle cannot name (a lambda, a function defined inside another: a mortality
    law kept on a table, a callback a test passes), of a module a replay imports again."""
    qualname = getattr(function, "__qualname__", "")
    module = getattr(function, "__module__", None)
    local = "<locals>" in qualname or "<lambda>" in qualname
    return local and isinstance(module, str) and module != "__main__" and module in sys.modules


def function_by_value(function: Any) -> Any:
    """A function pickled as its code, its module's name (its globals, imported again), and,
    set once it exists (so that a closure that holds the function itself pickles), its
    closure's values, defaults and attributes."""
    cells = function.__closure__ or ()
    values = []
    for cell in cells:
        try:
            values.append(cell.cell_contents)
        except ValueError:  # a cell not yet filled
            values.append(EMPTY_CELL)
    code = marshal.dumps(function.__code__)
    skeleton = (code, function.__module__, function.__name__, len(cells))
    state = (function.__defaults__, function.__kwdefaults__, values, dict(function.__dict__))
    return function_skeleton, skeleton, state, None, None, fill_function


def function_skeleton(code: bytes, module: str, name: str, cells: int) -> Any:
    globals_ = vars(importlib.import_module(module))
    closure = tuple(types.CellType() for _ in range(cells)) or None
    return types.FunctionType(marshal.loads(code), globals_, name, None, closure)


def fill_function(function: Any, state: Any) -> None:
    defaults, kwdefaults, values, attributes = state
    function.__defaults__, function.__kwdefaults__ = defaults, kwdefaults
    for cell, value in zip(function.__closure__ or (), values, strict=True):
        if not (isinstance(value, str) and value == EMPTY_CELL):
            cell.cell_contents = value
    function.__dict__.update(attributes)


def new_object(cls: Any) -> Any:
    return object.__new__(cls)


def restore_fields(obj: Any, state: dict[str, Any]) -> None:
    obj.__dict__.update(state)


class Oversized(Exception):
    """A call's arguments pickle to more bytes than a call may keep."""


class BoundedBuffer(io.BytesIO):
    """Takes at most `limit` bytes, then raises Oversized: the pickler writes a frame at a
    time, so an argument of a hundred megabytes (a loaded table, a model) stops costing at
    the limit, not after its whole copy (drgpy's README examples: 24 s of pickling, 1 s
    without it)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def write(self, data: Any) -> int:
        if self.tell() + memoryview(data).nbytes > self.limit:
            raise Oversized
        return super().write(data)


def dumps_call(arguments: dict[str, Any], limit: int) -> bytes:
    """The arguments pickled, or Oversized past `limit` bytes."""
    buffer = BoundedBuffer(limit)
    values = [*arguments["args"], *arguments["kwargs"].values()]
    CallPickler(buffer, OpenFiscaReferences(values)).dump(arguments)
    return buffer.getvalue()
