"""The recorder: runs the project's own tests and demos and keeps the calls they make of the
functions under test, arguments copied at the call, before the function can change them.

Request (parent -> child, after a load whose qualname is "" that only sets the project up):
  {"op": "record", "targets": [{"id": int, "file": str, "name": str, "lines": [int]}],
   "entries": [{"kind": "pytest", "args": [str], "label": str}
               | {"kind": "script", "path": str, "argv": [str], "label": str}
               | {"kind": "module", "name": str, "argv": [str], "label": str}
               | {"kind": "openfisca", "args": [str], "country": str, "label": str}
               | {"kind": "data", "path": str, "format": "csv"|"tsv"|"json"|"jsonl",
                  "delimiter": str, "label": str,
                  "drives": [{"module": str, "qualname": str, "param": str}]}
               | {"kind": "made", "label": str,
                  "calls": [{"module": str, "qualname": str, "args": [V], "kwargs": {name: V},
                             "label": str}]}],
   "calls_per_function": int, "seconds": float, "entry_share": float,
   "seconds_per_test": float, "max_pickle_bytes": int, "repo": str}
Replies, streamed while the entries run (one JSON line each):
  {"call": {"target": int, "source": str, "main": {"path": str} | {"module": str} | null,
            "paths": [str], "environ": {name: value},
            "params": [[name, "arg"|"star"|"kw", node]]},
   "pickle": base64 of pickle({"args": [...], "kwargs": {...}})}
  {"test": node id}   (a test starts: a session it kills resumes past it)
  {"entry": int, "status": str, "seconds": float, "tests": int, "failed_imports": int}
  {"recorded": true, "counts": {"kept", "repeated", "unpicklable", "oversized", "unloadable"}}
A target is matched by its code object (file, name, first line), cached per code object; the
hook is `sys.monitoring` where the interpreter has it (3.12+), else `sys.setprofile` and
`threading.setprofile`, installed while a test runs (setup to teardown: collection and its
imports run without its cost) or a program runs. Each call's arguments are pickled at its
start (an OpenFisca formula's as it returns, its population then holding the answers it
asked for: harness/openfisca.py); at most `calls_per_function` distinct ones (by the
pickled bytes) are kept per target, and those that cannot be pickled, or whose pickle is too
large or does not load again, are counted. The host never unpickles: it reads the
description (harness/describe.py) and keeps the bytes for the sessions that replay them
(harness/recorded.py). A test or demo that runs
past its time is interrupted (a test fails and the next one runs; an entry past its own time
ends), stdin is /dev/null and there is no network; a forked child stops recording and loses
the reply pipe.

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only (pytest when it is installed).
"""

import base64
import builtins
import contextlib
import functools
import hashlib
import importlib
import inspect
import os
import pickle
import runpy
import sys
import threading
import time
from typing import Any

if __name__ != "__main__":
    # Imported, as the tests drive the recorder in-process; in the sandbox the parts arrive
    # as one script (analysis.execution.process.HARNESS_SOURCE) and nothing is imported.
    from analysis.execution.harness.callcopy import Oversized, bound_arguments, dumps_call
    from analysis.execution.harness.clock import EntryOutcome, EntryTimeout, TestTimeout, Timer
    from analysis.execution.harness.datarows import (
        SHAPE_TRIES,
        DataTable,
        annotation_of,
        import_function,
        rows_parameter,
        shapes_for,
    )
    from analysis.execution.harness.describe import Describer
    from analysis.execution.harness.instrument import Instrumentation
    from analysis.execution.harness.namedfiles import named_file
    from analysis.execution.harness.openfisca import is_population
    from analysis.execution.harness.testplugin import recording_plugin, source_file

CO_SUSPENDABLE = 0x20 | 0x80 | 0x200  # generator, coroutine, async generator
EXAMPLE_SECONDS = 5.0  # one block of a document's examples, at most
# Calls of one target pickled at most, kept or not: a helper called a million times by a
# test suite costs a million pickles otherwise.
MAX_SEEN = 200
MONITORING_TOOL = 4  # a sys.monitoring tool id not taken by debuggers (0), coverage (1, 2)
PYTEST_OPTIONS = [
    "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:timeout", "-q", "-s",
    "--continue-on-collection-errors",  # a test file that cannot import is skipped, counted
]  # fmt: skip
PYTEST_USAGE_ERROR = 4
# The calls of one target are spread over this many sources (test files, programs) at least:
# the first file of a suite (`test_advisory.py`) often calls a function with one big case
# again and again, and the cases that show a difference come in later files. A source past
# its share sends its calls as reserve, from which the host fills what is left at the end
# (analysis/evidence/calls.py Evidence.fill).
SPREAD = 4


class CallRecorder:
    """Keeps the calls of the target functions while the entry points run."""

    def __init__(self, harness: Any, msg: dict[str, Any]) -> None:
        self.harness = harness
        self.repo = str(msg.get("repo") or "")
        self.keep = int(msg.get("calls_per_function", 5))
        self.max_pickle = int(msg.get("max_pickle_bytes", 1 << 20))
        lent = msg.get("pytest_lent")  # codebias's pytest, for a project without one
        self.lent_pytest = lent if isinstance(lent, str) else ""
        self.targets: dict[tuple[str, str, int], int] = {}
        for target in msg.get("targets", []):
            for line in target.get("lines", []):
                key = (os.path.abspath(str(target["file"])), str(target["name"]), int(line))
                self.targets[key] = int(target["id"])
        self.wanted = set(self.targets.values())
        self.by_code: dict[Any, int | None] = {}
        self.kept: dict[int, set[str]] = {}
        self.share = max(1, self.keep // SPREAD)  # calls of one target kept from one source
        self.from_source: dict[tuple[int, str], int] = {}
        # Digests of the calls of a source past its share, by target (sent as reserve).
        self.reserve: dict[int, list[str]] = {}
        self.seen: dict[int, int] = {}
        self.frames: set[int] = set()  # suspendable frames already captured (generators)
        # Calls whose arguments are kept as they return, by frame: (target, arguments).
        self.deferred: dict[int, tuple[int, Any]] = {}
        self.source = ""
        self.main: dict[str, str] | None = None
        self.busy = False
        self.off = False
        # Without sys.monitoring: the targets' files compiled so that the targets report
        # their own calls (harness/instrument.py), and whether they do now (`install`).
        self.instrumentation: Instrumentation | None = None
        self.hooked = False
        self.unhooked_main = False  # a program run from a target's file, compiled by runpy
        # While a data entry's call runs: the calls it records, sent only if it returns.
        self.held: list[tuple[int, str, dict[str, Any]]] | None = None
        # While a made call runs (run_made), and the target it calls: its own made-up call
        # is not kept.
        self.making = False
        self.driven: int | None = None
        self.lock = threading.Lock()
        self.counts = {"kept": 0, "repeated": 0, "unpicklable": 0, "oversized": 0, "unloadable": 0}
        self.start_paths = list(sys.path)
        self.start_environ = dict(os.environ)

    # -- the hook ------------------------------------------------------------------------
    def match(self, code: Any) -> int | None:
        # A module imported through a relative entry of sys.path ("", ".") has a relative
        # file name: it is the same file, relative to where the program runs.
        key = (os.path.abspath(code.co_filename), code.co_name, code.co_firstlineno)
        return self.targets.get(key)

    def saturated(self, target: int) -> bool:
        return len(self.kept.get(target, ())) >= self.keep or self.seen.get(target, 0) >= MAX_SEEN

    @property
    def done(self) -> bool:
        """Every target has its calls: nothing is left to record."""
        return all(self.saturated(t) for t in self.wanted)

    def on_profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "return" and self.deferred:
            self.returned(frame)
            return
        if event == "call" and not self.hooked:
            self.called(frame)

    def on_call(self, frame: Any) -> None:
        """An instrumented target starts (harness/instrument.py)."""
        if self.hooked:
            self.called(frame)

    def called(self, frame: Any) -> None:
        if self.busy or self.off:
            return
        code = frame.f_code
        target = self.by_code.get(code, -1)
        if target == -1:
            target = self.by_code[code] = self.match(code)
        if target is not None and not self.saturated(target):
            self.capture(target, frame)

    def on_start(self, code: Any, offset: int) -> Any:
        target = self.by_code.get(code, -1)
        if target == -1:
            target = self.by_code[code] = self.match(code)
        monitoring = sys.monitoring  # type: ignore[attr-defined]
        if target is None or self.saturated(target):
            return monitoring.DISABLE
        if not (self.busy or self.off):
            self.capture(target, sys._getframe(1))
        return None

    def on_return(self, code: Any, offset: int, value: Any) -> Any:
        if self.deferred:
            self.returned(sys._getframe(1))
        return None

    def install(self) -> None:
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            try:
                monitoring.use_tool_id(MONITORING_TOOL, "codebias-recorder")
            except ValueError:
                pass  # ours already (a second entry point)
            monitoring.register_callback(MONITORING_TOOL, monitoring.events.PY_START, self.on_start)
            monitoring.register_callback(
                MONITORING_TOOL, monitoring.events.PY_RETURN, self.on_return
            )
            monitoring.set_events(MONITORING_TOOL, monitoring.events.PY_START)
            monitoring.restart_events()
            return
        instrumentation = self.instrumentation
        if instrumentation is not None and instrumentation.complete and not self.unhooked_main:
            self.hooked = True  # the targets call the recorder themselves: no profile's cost
            return
        self.profile()

    def profile(self) -> None:
        sys.setprofile(self.on_profile)
        threading.setprofile(self.on_profile)

    def uninstall(self) -> None:
        self.deferred.clear()  # a call that raised never returns: its arguments are not kept
        self.hooked = False
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            monitoring.set_events(MONITORING_TOOL, 0)
            return
        sys.setprofile(None)
        threading.setprofile(None)

    def forked(self) -> None:
        """In a child the code under test forked: record nothing, answer nothing."""
        self.off = True
        try:
            self.uninstall()
            os.close(self.harness.reply_fd)
        except (OSError, ValueError):
            pass

    # -- one call ------------------------------------------------------------------------
    def capture(self, target: int, frame: Any) -> None:
        if target == self.driven:
            return
        code = frame.f_code
        if code.co_flags & CO_SUSPENDABLE:
            if id(frame) in self.frames:
                return  # a generator resumed: its arguments were taken at its start
            if len(self.frames) > 10_000:
                self.frames.clear()
            self.frames.add(id(frame))
        self.busy = True
        try:
            self.seen[target] = self.seen.get(target, 0) + 1
            params = bound_arguments(frame)
            if params is None:
                return
            args, kwargs, _ = params
            if any(is_population(v) for v in [*args, *kwargs.values()]):
                # An OpenFisca formula: its population is taken as it returns, holding the
                # answers the formula asked for (harness/openfisca.py).
                self.deferred[id(frame)] = (target, params)
                self.on_return_of(code)
                return
            self.keep_call(target, params)
        finally:
            self.busy = False

    def returned(self, frame: Any) -> None:
        """A call whose arguments wait for its return returns: they are kept now."""
        waiting = self.deferred.pop(id(frame), None)
        if waiting is None or self.busy or self.off or self.saturated(waiting[0]):
            return
        self.busy = True
        try:
            self.keep_call(*waiting)
        finally:
            self.busy = False

    def on_return_of(self, code: Any) -> None:
        """Be told when a call of `code` returns (sys.monitoring: only that code's returns)."""
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            monitoring.set_local_events(MONITORING_TOOL, code, monitoring.events.PY_RETURN)
        elif self.hooked and sys.getprofile() is None:
            self.profile()  # an instrumented target has no return hook: the profile's

    def keep_call(self, target: int, params: tuple[list[Any], dict[str, Any], list[Any]]) -> None:
        """Pickle, check, describe and send one call's arguments (or count why not); a call
        from a source past its share goes to the reserve."""
        source = source_file(self.source)
        spare = self.held is None and self.from_source.get((target, source), 0) >= self.share
        reserve = self.reserve.setdefault(target, [])
        if spare and len(reserve) >= self.keep:
            return
        args, kwargs, names = params
        # A path to a data file is kept as the file's content (harness/namedfiles.py).
        args = [named_file(value) or value for value in args]
        kwargs = {key: named_file(value) or value for key, value in kwargs.items()}
        try:
            data = dumps_call({"args": args, "kwargs": kwargs}, self.max_pickle)
        except Oversized:
            self.counts["oversized"] += 1
            return
        except Exception:  # noqa: BLE001 - whatever pickling raises, the call is skipped
            self.counts["unpicklable"] += 1
            return
        digest = hashlib.sha256(data).hexdigest()
        kept = self.kept.setdefault(target, set())
        if digest in kept or digest in reserve:
            self.counts["repeated"] += 1
            return
        try:
            copy = pickle.loads(data)  # described as the replay will see it
        except Exception:  # noqa: BLE001
            self.counts["unloadable"] += 1
            return
        described = []
        try:
            for (name, how), value in zip(
                names, [*copy["args"], *copy["kwargs"].values()], strict=True
            ):
                described.append([name, how, Describer(len(names)).describe(value)])
        except Exception:  # noqa: BLE001 - an object whose fields raise when read
            self.counts["unloadable"] += 1
            return
        call = {
            "target": target,
            "source": self.source,
            "main": self.main,
            "paths": self.added_paths(),
            "environ": self.added_environ(),
            "params": described,
        }
        message: dict[str, Any] = {"call": call, "pickle": base64.b64encode(data).decode()}
        if self.making:
            # codebias's own call (run_made): it fills only what the project's calls left.
            message["reserve"] = True
        if spare:
            # Sent now, marked: the host fills from its reserve what the shares left, so a
            # session it ends early (nothing more to learn) loses none of them.
            reserve.append(digest)
            with self.lock:
                self.harness.send({**message, "reserve": True})
            return
        kept.add(digest)
        self.counts["kept"] += 1
        self.from_source[(target, source)] = self.from_source.get((target, source), 0) + 1
        if self.held is not None:
            self.held.append((target, digest, message))
            return
        with self.lock:
            self.harness.send(message)

    def release(self, returned: bool) -> None:
        """A data entry's call is over: send what it recorded if it returned, else forget
        it (its arguments may be kept from a later call that returns)."""
        held, self.held = self.held or [], None
        for target, digest, message in held:
            if returned:
                with self.lock:
                    self.harness.send(message)
            else:
                self.kept.get(target, set()).discard(digest)
                self.counts["kept"] -= 1
                self.from_source[(target, source_file(message["call"]["source"]))] -= 1

    def added_paths(self) -> list[str]:
        """Import roots inside the project the run added (pytest's rootdir of test files):
        a replay needs them to import the classes of test modules again."""
        before = set(self.start_paths)
        inside = self.repo.rstrip("/") + "/"
        return [
            p[len(inside) :] if p != self.repo else ""
            for p in sys.path
            if isinstance(p, str) and p not in before and (p == self.repo or p.startswith(inside))
        ][:10]

    def added_environ(self) -> dict[str, str]:
        """Environment variables the run set (`os.environ.setdefault("API_ROLE", "doctor")`
        in a test module, a fixture's `monkeypatch.setenv`): the replay sets them again, as
        the calls ran with them. Not pytest's own."""
        return {
            name: value
            for name, value in os.environ.items()
            if self.start_environ.get(name) != value and not name.startswith("PYTEST_")
        }

    # -- entry points --------------------------------------------------------------------
    def run(self, msg: dict[str, Any]) -> None:
        total = time.monotonic() + float(msg.get("seconds", 120.0))
        # An entry followed by others gets this share of the time left: one that hangs
        # leaves some to the rest (analysis/evidence/recording.py keeps the same clock).
        share = float(msg.get("entry_share", 1.0))
        entries = msg.get("entries", [])
        per_test = float(msg.get("seconds_per_test", 10.0))
        cwd = os.getcwd()
        ACTIVE[:] = [self]
        instrumentation = None
        if getattr(sys, "monitoring", None) is None:
            instrumentation = self.instrumentation = Instrumentation(self.targets, self.on_call)
        try:
            with instrumentation or contextlib.nullcontext():
                self.run_entries(entries, total, share, per_test, cwd)
        finally:
            ACTIVE.clear()
            self.instrumentation = None
        self.harness.send({"recorded": True, "counts": self.counts})

    def run_entries(
        self, entries: list[Any], total: float, share: float, per_test: float, cwd: str
    ) -> None:
        for index, entry in enumerate(entries):
            if self.done:
                break
            now = time.monotonic()
            if now >= total:
                self.harness.send({"entry": index, "status": "not run: no time left"})
                continue
            left = total - now
            clock = Timer(
                self, now + (left * share if index < len(entries) - 1 else left), per_test
            )
            outcome = EntryOutcome()
            try:
                try:
                    clock.arm()
                    self.run_entry(entry, clock, outcome)
                finally:
                    clock.disarm()
                    self.uninstall()
            except BaseException as exc:  # noqa: BLE001 - whatever the program does ends here
                clock.disarm()
                self.uninstall()
                outcome.status = entry_status(exc)
            self.source, self.main = "", None
            os.chdir(cwd)
            self.harness.send(
                {
                    "entry": index,
                    "status": outcome.status,
                    "seconds": round(time.monotonic() - now, 3),
                    "tests": outcome.tests,
                    "failed_imports": outcome.failed_imports,
                }
            )

    def run_entry(self, entry: dict[str, Any], clock: "Timer", outcome: "EntryOutcome") -> None:
        kind = entry.get("kind")
        label = str(entry.get("label", ""))
        saved_argv = list(sys.argv)
        rewind = getattr(sys.stdin, "rewind", None)  # each program gets its own empty reads
        if rewind is not None:
            rewind()
        try:
            if kind == "pytest":
                self.run_pytest([str(a) for a in entry.get("args", [])], clock, outcome)
                return
            if kind == "data":
                self.run_data(entry, clock, outcome)
                return
            if kind == "made":
                self.run_made(entry, clock, outcome)
                return
            if kind == "openfisca":
                self.run_openfisca(entry, clock, outcome)
                return
            if kind == "examples":
                self.run_examples(entry, clock, outcome)
                return
            argv = [str(a) for a in entry.get("argv", [])]
            self.source = label
            if kind == "script":
                path = str(entry["path"])
                self.main = {"path": path}
                sys.argv = [path, *argv]
                sys.path.insert(0, os.path.dirname(path))  # as `python path` puts it first
                self.unhooked_main = self.instrumentation is not None and (
                    os.path.abspath(path) in self.instrumentation.by_file
                )
                self.install()  # a program is recorded from its first line
                try:
                    runpy.run_path(path, run_name="__main__")
                finally:
                    sys.path.remove(os.path.dirname(path))
                    self.unhooked_main = False
            elif kind == "module":
                name = str(entry["name"])
                self.main = {"module": name}
                sys.argv = [name, *argv]
                self.install()  # a program is recorded from its first line
                runpy.run_module(name, run_name="__main__", alter_sys=True)
            else:
                outcome.status = f"unknown entry kind {kind!r}"
                return
            outcome.status = "ok"
        finally:
            sys.argv = saved_argv

    def run_pytest(
        self, args: list[str], clock: "Timer", outcome: "EntryOutcome", runner: Any = None
    ) -> None:
        """`runner`: a framework's own pytest plugin that collects its tests (OpenFisca's)."""
        pytest, lent = self.pytest_here()
        if pytest is None:
            outcome.status = "not run: pytest is not installed here"
            return
        plugins = [recording_plugin(pytest, self, clock, outcome)]
        plugins += [runner] if runner is not None else []
        code = pytest.main([*PYTEST_OPTIONS, *args], plugins=plugins)
        if code == PYTEST_USAGE_ERROR:
            # The project's own options (`addopts`) want a plugin that is not here.
            code = pytest.main([*PYTEST_OPTIONS, "-o", "addopts=", *args], plugins=plugins)
        outcome.status = f"pytest exit code {int(code)}"
        if lent:
            outcome.status += " (codebias's pytest: the project's environment has none)"
        if outcome.left_out:
            outcome.status += f"; {outcome.left_out} tests left out (nothing more to record)"

    def pytest_here(self) -> tuple[Any, bool]:
        """The project's pytest, else the one codebias lent (analysis/evidence/lentpytest.py);
        whether it is the lent one."""
        try:
            import pytest

            return pytest, False
        except ImportError:
            pass
        if not self.lent_pytest:
            return None, False
        sys.path.append(self.lent_pytest)  # after the project's own paths
        try:
            import pytest

            return pytest, True
        except Exception:  # noqa: BLE001 - not for this Python: the tests are not run
            return None, False

    def run_openfisca(self, entry: dict[str, Any], clock: "Timer", outcome: "EntryOutcome") -> None:
        """The YAML tests of an OpenFisca country package, as `openfisca test` runs them."""
        try:
            from openfisca_core.scripts import build_tax_benefit_system
            from openfisca_core.tools.test_runner import OpenFiscaPlugin
        except ImportError as exc:
            outcome.status = f"not run: openfisca_core does not import here ({exc})"[:300]
            return
        country = str(entry.get("country") or "") or None  # None: openfisca_core detects it
        system = build_tax_benefit_system(country, [], [])
        runner = OpenFiscaPlugin(system, {})
        self.run_pytest([str(a) for a in entry.get("args", [])], clock, outcome, runner)

    # -- a document's code examples (analysis/evidence/examples.py) ---------------------
    def run_examples(self, entry: dict[str, Any], clock: "Timer", outcome: "EntryOutcome") -> None:
        """A document's blocks in order in one namespace, as a reader runs them: what the
        scanned packages export, pandas and numpy as `pd` and `np`, already there. Each
        block is timed and reported as a test is (one that hangs fails; the host's patience
        with a run that teaches nothing holds)."""
        namespace: dict[str, Any] = {"__name__": "codebias_examples", "__builtins__": builtins}
        for prelude in ("import pandas as pd", "import numpy as np"):
            self.quietly(prelude, namespace)
        for package in entry.get("packages", []):
            if isinstance(package, str) and package.isidentifier():
                self.quietly(f"from {package} import *", namespace)
        ran = raised = 0
        # An example runs in a moment; one that waits (a network call retried, a server)
        # waits for nothing it will get here.
        clock.per_test = min(clock.per_test, EXAMPLE_SECONDS)
        self.install()
        for block in entry.get("blocks", []):
            if self.done:
                break
            self.source = str(block.get("label", ""))[:300]
            with self.lock:
                self.harness.send({"test": self.source})
            clock.start_test()
            try:
                exec(compile(str(block.get("code", "")), self.source, "exec"), namespace)  # noqa: S102
                ran += 1
            except (Exception, SystemExit, TestTimeout):  # noqa: BLE001 - the next block runs
                raised += 1
            finally:
                clock.end_test()
            outcome.tests += 1
        outcome.status = f"ok: {ran} example(s) ran, {raised} raised"

    @staticmethod
    def quietly(statement: str, namespace: dict[str, Any]) -> None:
        try:
            exec(statement, namespace)  # noqa: S102
        except Exception:  # noqa: BLE001 - not importable here: the examples do without it
            pass

    # -- data entries --------------------------------------------------------------------
    def run_data(self, entry: dict[str, Any], clock: "Timer", outcome: "EntryOutcome") -> None:
        path = str(entry["path"])
        label = str(entry.get("label") or path)
        data_format = str(entry.get("format", "csv"))
        delimiter = str(entry.get("delimiter") or ("\t" if data_format == "tsv" else ","))
        table = DataTable(path, data_format, delimiter)
        returned = raised = 0
        unloaded: list[str] = []
        for drive in entry.get("drives", []):
            if self.done:
                break
            try:
                function = import_function(str(drive["module"]), str(drive["qualname"]))
            except Exception as exc:  # noqa: BLE001 - a module or an instance that fails to load
                unloaded.append(f"{drive['qualname']} ({type(exc).__name__}: {str(exc)[:100]})")
                continue
            calls = self.drive(function, str(drive["param"]), table, label, clock)
            returned += calls[0]
            raised += calls[1]
        outcome.status = f"ok: {returned} call(s) returned, {raised} raised"
        if unloaded:
            outcome.status += f"; not loaded: {', '.join(unloaded)}"

    def drive(
        self, function: Any, param: str, table: "DataTable", label: str, clock: "Timer"
    ) -> tuple[int, int]:
        """Call `function` with the table's rows in the first shape that returns: at most
        `keep` calls that return, twice as many tries; (returned, raised)."""
        passing = rows_parameter(function, param)
        target = self.target_of(function)
        if passing is None or self.full(target):
            return 0, 0
        returned = raised = 0
        for shape in shapes_for(annotation_of(function, param), param):
            tries = 0
            for where, build in table.units(shape):
                if returned >= self.keep or tries >= 2 * self.keep or self.full(target):
                    break
                if returned == 0 and tries >= SHAPE_TRIES:
                    break  # this shape does not suit the function: the next one
                tries += 1
                try:
                    value = build()
                except Exception:  # noqa: BLE001 - a row the annotated class refuses
                    raised += 1
                    continue
                self.source = f"{label} {where}"
                arguments = ([value], {}) if passing == "position" else ([], {param: value})
                if self.call_held(function, *arguments, clock):
                    returned += 1
                else:
                    raised += 1
            if returned:
                break
        self.source = ""
        return returned, raised

    def target_of(self, function: Any) -> int | None:
        """The target a function (bound, or wrapped by a decorator) is, if the code is known."""
        if isinstance(function, functools.partial):  # a command's, its defaults given
            function = function.func
        code = getattr(inspect.unwrap(getattr(function, "__func__", function)), "__code__", None)
        return self.match(code) if code is not None else None

    def full(self, target: int | None) -> bool:
        """The function has its calls already (another file's, a test's): calling it again
        records nothing."""
        return target is not None and self.saturated(target)

    def call_held(
        self, function: Any, args: list[Any], kwargs: dict[str, Any], clock: "Timer"
    ) -> bool:
        """One call, recorded only if it returns (a test's time for it)."""
        self.held = []
        returned = False
        clock.start_test()
        self.install()
        try:
            function(*args, **kwargs)
            returned = True
        except (Exception, TestTimeout, SystemExit):  # noqa: BLE001 - it raised: nothing kept
            returned = False
        finally:
            self.uninstall()
            clock.end_test()
            self.release(returned)
        return returned

    # -- codebias's own calls --------------------------------------------------------------
    def run_made(self, entry: dict[str, Any], clock: "Timer", outcome: "EntryOutcome") -> None:
        """Call each caller with its made-up arguments (analysis/evidence/madecalls.py), the
        calls it makes of the targets kept as a data entry's are, and sent as reserve: they
        fill only what the project's own calls left of a function's share."""
        returned = raised = 0
        unloaded: list[str] = []
        for made in entry.get("calls", []):
            if self.done:
                break
            qualname = str(made["qualname"])
            try:
                function, args, kwargs = self.made_call(made)
            except Exception as exc:  # noqa: BLE001 - a module that fails to load, a value refused
                unloaded.append(f"{qualname} ({type(exc).__name__}: {str(exc)[:100]})")
                continue
            self.source = str(made.get("label") or entry.get("label", ""))
            self.making, self.driven = True, self.target_of(function)
            try:
                if self.call_held(function, args, kwargs, clock):
                    returned += 1
                else:
                    raised += 1
            finally:
                self.source, self.making, self.driven = "", False, None
        outcome.status = f"ok: {returned} call(s) returned, {raised} raised"
        if unloaded:
            outcome.status += f"; not made: {', '.join(unloaded[:5])}"

    def made_call(self, made: dict[str, Any]) -> tuple[Any, list[Any], dict[str, Any]]:
        """The function a made call calls (a method as its class holds it: the instance is
        its first argument) and its arguments, decoded as the search's are, in its module."""
        module = importlib.import_module(str(made["module"]))
        function: Any = module
        for part in str(made["qualname"]).split("."):
            function = getattr(function, part)
        harness = self.harness
        saved = harness.module, harness.target
        harness.module, harness.target = module, function
        try:
            args = [harness.decode(value) for value in made.get("args", [])]
            kwargs = {str(k): harness.decode(v) for k, v in made.get("kwargs", {}).items()}
        finally:
            harness.module, harness.target = saved
        return function, args, kwargs


def entry_status(exc: BaseException) -> str:
    if isinstance(exc, EntryTimeout):
        return "stopped: it ran past its time"
    if isinstance(exc, SystemExit):
        return f"exited ({exc.code})"
    return f"raised {type(exc).__name__}: {str(exc)[:200]}"


# The recorder running in this process, if one is: a child the code under test forks stops
# recording and loses the reply pipe (registered once per process: a fork callback cannot be
# taken back, and the harness's tests record in their own process many times).
ACTIVE: list[CallRecorder] = []


def on_fork() -> None:
    if ACTIVE:
        ACTIVE[0].forked()


os.register_at_fork(after_in_child=on_fork)


def record(harness: Any, msg: dict[str, Any]) -> None:
    """The record op: run the entry points, streaming each recorded call (module doc)."""
    CallRecorder(harness, msg).run(msg)
