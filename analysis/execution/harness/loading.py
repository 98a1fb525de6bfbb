"""Loading the module under test as its project would: which module is the project's own,
whether a loaded module still holds the source given, the function a command wraps, and
the builtins an interpreter started without -S lacks.

Part of the child script (see runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import io
from types import FunctionType


def command_callback(target, qualname):
    """The function a command-line framework wrapped (click's and typer's `Command` keep it
    as `.callback`): calling the command would parse sys.argv instead."""
    if isinstance(target, (FunctionType, type)):
        return target
    try:
        callback = getattr(target, "callback", None)
    except Exception:  # noqa: BLE001 - any object may answer attributes as it likes
        return target
    name = qualname.rsplit(".", 1)[-1]
    if isinstance(callback, FunctionType) and callback.__name__ == name:
        return callback
    return target


def same_source(module, filename, source):
    """Whether `module` was loaded from `filename` and the file still holds `source`."""
    if getattr(module, "__file__", None) != filename:
        return False
    try:
        with open(filename, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    try:
        encoding = tokenize_encoding(data)
        return data.decode(encoding).removeprefix("\ufeff") == source
    except (LookupError, UnicodeDecodeError, SyntaxError):
        return False


def tokenize_encoding(data):
    import tokenize

    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def of_project(module, roots):
    """Whether a module is the target or one of the project's own (not a dependency)."""
    file = getattr(module, "__file__", None)
    if not isinstance(file, str) or file.startswith("<"):
        return True
    return any(file.startswith(root.rstrip("/") + "/") for root in roots if root)


def refusing_dependency(exc, roots):
    """The top-level package of the dependency that raised `exc` while the project's module
    was imported: the last frame of its traceback outside the project and the standard
    library. None when the project itself raised it."""
    import sysconfig

    stdlib = sysconfig.get_paths()["stdlib"].rstrip("/") + "/"
    found = None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        file = frame.f_code.co_filename
        name = frame.f_globals.get("__name__") or ""
        if any(file.startswith(root.rstrip("/") + "/") for root in roots if root):
            found = None  # the project's own code, past any dependency it called
        elif file.startswith("<") or (file.startswith(stdlib) and "-packages/" not in file):
            pass  # the import machinery, the standard library
        elif name:
            found = name.split(".")[0]
        tb = tb.tb_next
    return found


def site_builtins():
    """`exit`, `quit`, `help`, `copyright`... as every interpreter started without -S has them
    (code under test calls `exit()` and reads `builtins.help`); no .pth file is run for them."""
    import site

    site.setquit()
    site.sethelper()
    site.setcopyright()


MAX_TABLE_KEYS = 40
MAX_KEY_TEXT = 100


def table_keys(module, paths):
    """The keys of the module's tables named by dotted paths (analysis/inputs/loaded_tables.py),
    JSON scalars or Enum members; a path to no mapping is left out."""
    found = {}
    for path in paths[:50]:
        if not isinstance(path, str):
            continue
        root, *attributes = path.split(".")
        try:
            table = vars(module)[root]
            for attribute in attributes:
                table = getattr(table, attribute)
            keys = list(mapping_keys(table))
        except Exception:  # noqa: BLE001 - whatever the module holds there, it tells nothing
            continue
        told = [k if json_scalar(k) else enum_key(k) for k in keys]
        told = [k for k in told if k is not None]
        if told:
            found[path] = told[:MAX_TABLE_KEYS]
    return found


def enum_key(value):
    from enum import Enum

    if isinstance(value, Enum) and isinstance(value.name, str):
        return {"__cb__": "enum", "class": type(value).__qualname__, "member": value.name}
    return None


def mapping_keys(table):
    """A dict's keys, or a pandas table's (a Series' index, a DataFrame's columns)."""
    from collections.abc import Mapping

    pandas = type(table).__module__.startswith("pandas")
    if isinstance(table, Mapping) or (pandas and type(table).__name__ in ("Series", "DataFrame")):
        return table.keys()
    return ()


def json_scalar(value: object) -> bool:
    if isinstance(value, str):
        return len(value) <= MAX_KEY_TEXT
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    return isinstance(value, (bool, int))
