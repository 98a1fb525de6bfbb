"""Target functions that report their own calls, where the interpreter has no `sys.monitoring`
(3.11 and older).

There the recorder's other hook is `sys.setprofile`, which calls back into Python at every call
and return of every function and builtin while a test runs: a numeric program runs ten times
slower under it (drgpy's README examples: 1.7 s without it, 24 s with it), and a test suite
gets that much less far in its time. Instead, while the recorder runs, each file holding a
function under test is compiled, as it is imported, with one statement first in the body of
each such function (after its docstring) that hands the recorder that function's frame:
`__codebias_recorded_call__()`, a builtin. Every import of a source file goes through
`SourceFileLoader.get_code` (a finder's, `spec_from_file_location`'s, `runpy.run_module`'s,
`importlib.reload`'s), which is where the file is compiled; its bytecode cache is neither read
nor written, so no other run ever sees the statement.

A target whose file was imported before (or is run by `runpy.run_path`, which compiles the
file itself) has no such statement: the recorder falls back to the profile hook then
(harness/recorder.py CallRecorder.install).

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import ast
import importlib.machinery
import os
import sys
from collections.abc import Callable
from typing import Any

CALL_HOOK = "__codebias_recorded_call__"


class ReportCalls(ast.NodeTransformer):
    """Puts the hook's call first in the functions named by (name, line): the line of the
    `def` or of its first decorator, as the host names a target."""

    def __init__(self, wanted: set[tuple[str, int]]) -> None:
        self.wanted = wanted
        self.done: set[tuple[str, int]] = set()

    def visit_FunctionDef(self, node: Any) -> Any:
        self.generic_visit(node)
        lines = [node.lineno, *(d.lineno for d in node.decorator_list[:1])]
        keys = [(node.name, line) for line in lines if (node.name, line) in self.wanted]
        if not keys:
            return node
        self.done.update(keys)
        body = node.body
        first = 1 if body and is_docstring(body[0]) and len(body) > 1 else 0
        call = ast.Expr(ast.Call(ast.Name(CALL_HOOK, ast.Load()), [], []))
        node.body = [*body[:first], ast.copy_location(call, body[first]), *body[first:]]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


class Instrumentation:
    """While in force, the files of `targets` ({(file, name, line): id}) compile with the
    hook's call in each target function. `complete` tells whether every target has it or will
    have it when its file is imported: not when its file was imported before, or when its
    function was not found where the host said (then the profile hook is needed)."""

    def __init__(
        self, targets: dict[tuple[str, str, int], int], on_call: Callable[[Any], None]
    ) -> None:
        self.targets = targets
        self.on_call = on_call  # given the frame of a target that starts
        self.active = False
        self.by_file: dict[str, set[tuple[str, int]]] = {}
        for file, name, line in targets:
            self.by_file.setdefault(file, set()).add((name, line))
        self.uncovered: set[tuple[str, str, int]] = set()
        self.complete = True
        self.original: Any = None

    def __enter__(self) -> "Instrumentation":
        setattr(__import__("builtins"), CALL_HOOK, self.report)
        self.active = True
        loaded = {
            os.path.abspath(file)
            for module in list(sys.modules.values())
            if isinstance(file := getattr(module, "__file__", None), str)
        }
        self.miss({key for key in self.targets if key[0] in loaded})
        loader = importlib.machinery.SourceFileLoader
        self.original = loader.get_code
        instrumentation = self

        def get_code(self: Any, fullname: str) -> Any:
            code = instrumentation.compiled(self, fullname)
            return code if code is not None else instrumentation.original(self, fullname)

        loader.get_code = get_code  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        # The hook stays a builtin: a module compiled with it may be called after this run,
        # when it does nothing.
        self.active = False
        importlib.machinery.SourceFileLoader.get_code = self.original  # type: ignore[method-assign]

    def report(self) -> None:
        """The first statement of an instrumented function."""
        if self.active:
            self.on_call(sys._getframe(1))

    def compiled(self, loader: Any, fullname: str) -> Any:
        try:
            path = os.path.abspath(loader.get_filename(fullname))
        except Exception:  # noqa: BLE001 - the original get_code says what is wrong
            return None
        wanted = self.by_file.get(path)
        if not wanted:
            return None
        try:
            tree = ast.parse(loader.get_data(path), filename=path)
            transformer = ReportCalls(wanted)
            tree = ast.fix_missing_locations(transformer.visit(tree))
            code = compile(tree, path, "exec", dont_inherit=True)
        except Exception:  # noqa: BLE001 - a file that does not compile: the original says why
            return None
        self.miss({(path, name, line) for name, line in wanted - transformer.done})
        return code

    def miss(self, keys: set[tuple[str, str, int]]) -> None:
        """These (file, name, line) have no hook: a target all of whose keys are among them
        needs the profile hook."""
        self.uncovered |= keys
        hooked = {t for key, t in self.targets.items() if key not in self.uncovered}
        self.complete = hooked >= set(self.targets.values())
