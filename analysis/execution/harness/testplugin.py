"""The recorder's pytest plugin: each test names the calls it makes, is timed, and is left
out when nothing more can be learnt from it (harness/recorder.py runs pytest with it).

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only (pytest is the project's).
"""

import importlib.util
import re
from typing import Any

if __name__ != "__main__":
    # Imported, as the tests drive the recorder in-process; in the sandbox the parts arrive
    # as one script (analysis.execution.process.HARNESS_SOURCE) and nothing is imported.
    from analysis.execution.harness.clock import EntryOutcome, Timer
    from analysis.execution.harness.stubs import MAX_STUBBED, STUBS, UNINSTALLED

MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")
# What importlib.metadata raises for a distribution not installed (harness/stubs.py).
NO_METADATA = re.compile(r"No package metadata was found for ([\w.-]+)")
# Tests of one file in a row that kept no new call, after which the rest of it is left out.
PATIENCE = 25
# Test files in a row that kept no new call, after which the rest of the suite is left out:
# a general library's suite of hundreds of files (networkx's 262) reaches the few functions
# recorded here, if at all, by chance, and ran to the recording's time limit.
FILE_PATIENCE = 10


class FileRun:
    """The test file running, whether it kept a call, and the files before it in a row that
    kept none."""

    def __init__(self) -> None:
        self.current = ""
        self.kept = False
        self.barren = 0

    def enter(self, file: str) -> None:
        if file != self.current:
            self.barren = self.barren + 1 if self.current and not self.kept else 0
            self.current, self.kept = file, False


def source_file(source: str) -> str:
    """The file (or program) a call's source names: a test's node id up to its `::`."""
    return source.split("::")[0]


def recording_plugin(
    pytest: Any,
    recorder: Any,  # a CallRecorder (harness/recorder.py, which imports this part)
    clock: Timer,
    outcome: EntryOutcome,
) -> Any:
    """A pytest plugin object: names each test as the source of the calls it makes, times
    each test, and counts the tests run and the test files that failed to import."""

    stale: dict[str, int] = {}  # by test file: tests in a row that kept no new call
    files = FileRun()

    class RecordingPlugin:
        @pytest.hookimpl(hookwrapper=True)  # type: ignore[untyped-decorator]
        def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> Any:
            # Each test is recorded from its setup (fixtures build inputs) to its teardown;
            # collection, imports above all, runs without the hook and its cost.
            file = source_file(str(item.nodeid))
            files.enter(file)
            if recorder.done or stale.get(file, 0) >= PATIENCE or files.barren >= FILE_PATIENCE:
                # What is left teaches nothing: every function has its calls, this file's
                # last tests (a parametrised one, run by the hundred) kept none, or the
                # last FILE_PATIENCE files kept none.
                item.add_marker(pytest.mark.skip(reason="codebias: nothing more to record"))
                outcome.left_out += 1
                yield
                return
            recorder.source = test_source(item)[:300]
            with recorder.lock:  # if this test kills the child, the rest run without it
                recorder.harness.send({"test": str(item.nodeid)[:300]})
            kept = recorder.counts["kept"]
            clock.start_test()
            recorder.install()
            try:
                yield
            finally:
                recorder.uninstall()
                clock.end_test()
                new = recorder.counts["kept"] > kept
                stale[file] = 0 if new else stale.get(file, 0) + 1
                files.kept = files.kept or new

        def pytest_runtest_logreport(self, report: Any) -> None:
            if report.when == "call":
                outcome.tests += 1

        @pytest.hookimpl(tryfirst=True)  # type: ignore[untyped-decorator]
        def pytest_make_collect_report(self, collector: Any) -> None:
            if isinstance(collector, pytest.Module):
                import_with_stubs(collector)
            # pytest's own collection goes on: the module is imported, or fails as it did.

        def pytest_collectreport(self, report: Any) -> None:
            if report.failed:
                outcome.failed_imports += 1

    return RecordingPlugin()


def import_with_stubs(module: Any) -> None:
    """Import a test file that fails to import for want of a module not installed here (a
    browser driver, a test extra, a dependency the bare run lacks) with that module
    stubbed, as the functions' own loader does (harness/stubs.py): its tests still call
    the project's functions, and a call handed a stub proves nothing. A project not
    installed, which asks for its own version at import, is answered (`Uninstalled`)."""
    for _ in range(MAX_STUBBED):
        try:
            module.obj  # noqa: B018 - imports the file, kept by pytest when it succeeds
            return
        except Exception as exc:  # noqa: BLE001 - pytest reports the failure itself
            uninstalled = NO_METADATA.search(str(exc))
            if uninstalled is not None:
                if not UNINSTALLED.adopt(uninstalled.group(1)):  # type: ignore[no-untyped-call]
                    return
                continue
            found = MISSING_MODULE.search(str(exc))
            if found is None or not absent(name := found.group(1).split(".")[0]):
                return
            if not STUBS.adopt(name, needed=True):  # type: ignore[no-untyped-call]
                return


def absent(name: str) -> bool:
    """Whether no module of that top-level name exists here (not one of the project's
    whose submodule is missing: that is the project's own error)."""
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):
        return False


def test_source(item: Any) -> str:
    """A test as a finding names it: its node id; an OpenFisca YAML case, whose node id
    ends with an empty name until it runs, by its file and the case's own name."""
    nodeid = str(item.nodeid)
    case = getattr(getattr(item, "test", None), "name", None)
    if nodeid.endswith("::") and isinstance(case, str) and case:
        return nodeid + case
    return nodeid
