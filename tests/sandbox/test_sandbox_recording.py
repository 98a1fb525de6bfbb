"""The recording run through the real sandbox (analysis/evidence/recording.py): the project's
tests run in a writable scratch that nothing outside sees, the host keeps only what it
validated, and a hostile test suite (writes outside, floods its output, forks, sleeps
forever, plants links, forges replies, kills its interpreter) is bounded and loses nothing
else."""

from __future__ import annotations

import os
import stat
import textwrap
import time
from pathlib import Path

import pytest
from sandbox_helpers import SANDBOX

from analysis.evidence.calls import Evidence, FunctionKey
from analysis.evidence.entrypoints import EntryPoint
from analysis.evidence.recording import Recording, RecordingTarget
from analysis.sandbox import BwrapExecutor
from analysis.scan.project import Project
from config.policy import build_policy

pytestmark = SANDBOX

PRICING = """\
def quote(applicant, base=100.0):
    return base * (1.1 if applicant["sex"] == "female" else 1.0)
"""

# Every test calls `quote` with a person: a run that teaches on for all 24 (7 s).
PEOPLE_SUITE = {
    "pkg/__init__.py": "",
    "pkg/pricing.py": PRICING,
    "tests/test_people.py": """\
        import time
        import pytest
        from pkg.pricing import quote
        @pytest.mark.parametrize("n", range(24))
        def test_person(n):
            time.sleep(0.3)
            quote({"id": n, "sex": "female" if n % 2 else "male"})
    """,
}


def write(root: Path, files: dict[str, str]) -> Project:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    (root / ".git").mkdir(exist_ok=True)
    return Project.discover(root)


def record(
    executor: BwrapExecutor, project: Project, entries: list[EntryPoint], seconds: float = 60
) -> Evidence:
    policy = build_policy([{"evidence": {"seconds": seconds}}])
    target = RecordingTarget(FunctionKey("pkg/pricing.py", "quote"), "quote", (1,))
    with executor.share(str(project.root)) as shared:
        return Recording(executor, project, policy).run([target], entries, shared.path)


def pytest_run(*files: str) -> EntryPoint:
    return EntryPoint("pytest", "pytest", args=files)


def test_a_test_s_calls_are_recorded_into_a_folder_only_the_host_wrote(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    project = write(tmp_path / "repo", {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_pricing.py": """\
            from pathlib import Path
            from pkg.pricing import quote
            def test_quote():
                Path("written_by_the_test.txt").write_text("x")  # the scratch takes it
                assert quote({"sex": "male", "age": 70}) == 100.0
                assert quote({"sex": "female", "age": 30}) > 100.0
        """,
    })  # fmt: skip
    evidence = record(executor, project, [pytest_run("tests/test_pricing.py")])
    try:
        (key,) = evidence.calls
        assert [c.source for c in evidence.of(key)] == ["tests/test_pricing.py::test_quote"] * 2
        assert evidence.stats.tests == 1 and evidence.stats.kept == 2
        names = sorted(os.listdir(evidence.folder))
        assert names == ["c1.pickle", "c2.pickle", "index.json"]
        for name in names:
            info = os.lstat(os.path.join(evidence.folder, name))
            assert stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid()
        assert not (project.root / "written_by_the_test.txt").exists()
    finally:
        evidence.close()
    assert not os.path.exists(evidence.folder)


PRICED = {
    "pkg/__init__.py": "",
    "pkg/pricing.py": PRICING,
    "tests/test_pricing.py": """\
        from pkg.pricing import quote
        def test_quote():
            assert quote({"sex": "female", "age": 30}) > 100.0
    """,
}


def test_the_session_opened_early_is_the_one_the_run_records_in(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    # Opened before the functions and entries are chosen (store.py), it waits for them.
    project = write(tmp_path / "repo", PRICED)
    target = RecordingTarget(FunctionKey("pkg/pricing.py", "quote"), "quote", (1,))
    recording = Recording(executor, project, build_policy([]))
    with executor.share(str(project.root)) as shared:
        recording.open_early(shared.path)
        early, folder = recording.early, recording.evidence
        assert early is not None and early.proc.poll() is None and folder is not None
        time.sleep(0.5)  # the plan takes its time: the session waits, alive
        evidence = recording.run([target], [pytest_run("tests/test_pricing.py")], shared.path)
    try:
        assert evidence.stats.kept == 1 and evidence is folder
        assert recording.early is None and early.proc.poll() is not None
    finally:
        evidence.close()


def test_a_session_opened_early_for_nothing_is_closed_and_its_folder_removed(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    project = write(tmp_path / "repo", PRICED)
    recording = Recording(executor, project, build_policy([]))
    with executor.share(str(project.root)) as shared:
        recording.open_early(shared.path)
        early, evidence = recording.early, recording.evidence
        assert early is not None and evidence is not None
        recording.discard()
    assert early.proc.poll() is not None and not os.path.exists(evidence.folder)


HOSTILE = {
    "pkg/__init__.py": "",
    "pkg/pricing.py": PRICING,
    "tests/test_hostile.py": """\
        import os, sys, time
        from pkg.pricing import quote

        def test_a_writes_outside():
            for path in ("/tmp/codebias-recorded-escape", "/etc/escape", "/evidence/x",
                         "/repo-source/escape"):
                try:
                    open(path, "w").write("x")
                except OSError:
                    pass
            os.symlink("/etc/passwd", "link_in_scratch")
            quote({"sex": "male"})

        def test_b_floods_its_output():
            for _ in range(2000):
                print("x" * 10_000)
                sys.stderr.write("y" * 10_000)
            quote({"sex": "female"})

        def test_c_forks():
            for _ in range(200):
                try:
                    if os.fork() == 0:
                        while True:
                            time.sleep(1)
                except OSError:
                    break

        def test_d_forges_replies():
            for fd in range(3, 40):
                try:
                    os.write(fd, b'{"call": {"target": 0, "params": []}, "pickle": "!!"}\\n')
                except OSError:
                    pass
            quote({"sex": "non-binary"})

        def test_e_sleeps_forever():
            while True:
                try:
                    time.sleep(60)
                except BaseException:
                    pass
    """,
    "tests/test_zz_after.py": """\
        from pkg.pricing import quote
        def test_after():
            quote({"sex": "male", "after": True})
    """,
}


def test_a_hostile_suite_is_bounded_and_loses_nothing_else(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    project = write(tmp_path / "repo", HOSTILE)
    started = time.monotonic()
    runs = [pytest_run("tests/test_hostile.py"), pytest_run("tests/test_zz_after.py")]
    evidence = record(executor, project, runs, seconds=45)
    try:
        assert time.monotonic() - started < 45 + 25  # the recording's time, and slack
        sources = {c.source for calls in evidence.calls.values() for c in calls}
        # Each test ran to its end or was killed; the one after it still ran.
        assert "tests/test_zz_after.py::test_after" in sources
        assert "tests/test_hostile.py::test_a_writes_outside" in sources
        assert sorted(os.listdir(evidence.folder)) == sorted(
            [f"{c.id}.pickle" for calls in evidence.calls.values() for c in calls] + ["index.json"]
        )
        assert not os.path.exists("/tmp/codebias-recorded-escape")
        assert not (project.root / "link_in_scratch").exists()
    finally:
        evidence.close()


def test_a_test_that_kills_its_interpreter_is_skipped_and_the_rest_of_the_run_resumes(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    project = write(tmp_path / "repo", {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_kill.py": """\
            import os
            from pkg.pricing import quote
            def test_a_first():
                quote({"sex": "male"})
            def test_b_kills():
                os._exit(3)
            def test_c_after():
                quote({"sex": "female"})
        """,
    })  # fmt: skip
    evidence = record(executor, project, [pytest_run("tests/test_kill.py")])
    try:
        sources = [c.source for calls in evidence.calls.values() for c in calls]
        assert sources == ["tests/test_kill.py::test_a_first", "tests/test_kill.py::test_c_after"]
        statuses = [e.status for e in evidence.stats.entries]
        assert statuses[0].startswith("stopped in tests/test_kill.py::test_b_kills")
    finally:
        evidence.close()


def test_tests_that_cannot_import_here_are_counted_and_skipped(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    # A module of the project that is not there is the project's own error: that file is
    # counted and skipped. A module not installed here (a browser driver the test compares
    # with) is stubbed, and the test's call of the function is recorded.
    project = write(tmp_path / "repo", {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_broken.py": "from pkg.absent_module import quote\n",
        "tests/test_against_browser.py": "from browser_driver_absent import webdriver\n"
                                         "from pkg.pricing import quote\n"
                                         "def test_quote():\n"
                                         "    page = webdriver.Firefox().find('quote').text\n"
                                         "    assert quote({'sex': 'female'}) == float(page)\n",
    })  # fmt: skip
    evidence = record(executor, project, [pytest_run("tests")])
    try:
        assert evidence.stats.failed_imports == 1
        assert evidence.stats.kept == 1
    finally:
        evidence.close()


def test_the_recording_stops_at_its_time_and_a_hanging_entry_leaves_time_to_the_next(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    project = write(tmp_path / "repo", {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "slow.py": "import time\nwhile True:\n    time.sleep(1)\n",
        "after.py": "from pkg.pricing import quote\nquote({'sex': 'male'})\n",
    })  # fmt: skip
    started = time.monotonic()
    entries = [
        EntryPoint("script", "slow.py __main__", path="slow.py"),
        EntryPoint("script", "after.py __main__", path="after.py"),
    ]
    evidence = record(executor, project, entries, seconds=8)
    try:
        assert time.monotonic() - started < 8 + 20
        statuses = [(e.label, e.status) for e in evidence.stats.entries]
        assert statuses == [
            ("slow.py __main__", "stopped: it ran past its time"),
            ("after.py __main__", "ok"),
        ]
        assert evidence.stats.kept == 1
    finally:
        evidence.close()


@pytest.mark.parametrize("unused_speculative, patience", [(False, 5), (True, 2)])
def test_a_test_run_whose_calls_hold_no_person_ends_at_its_patience_and_the_next_entry_runs(
    executor: BwrapExecutor, tmp_path: Path, unused_speculative: bool, patience: int
) -> None:
    # `quote` has no protected input of its own (speculative): the suite calls it with
    # request ids for fifteen seconds, which can teach nothing of how people are treated,
    # while `unused` (never called) keeps the child from calling the run done. When it too
    # has no protected input, the run is a gamble and gets less patience.
    project = write(tmp_path / "repo", {
        "pkg/__init__.py": "",
        "pkg/pricing.py": PRICING + "\n\ndef unused(age):\n    return age\n",
        "tests/test_requests.py": """\
            import time
            import pytest
            from pkg.pricing import quote
            @pytest.mark.parametrize("n", range(30))
            def test_request(n):
                time.sleep(0.5)
                try:
                    quote({"id": n})
                except KeyError:
                    pass
        """,
        "after.py": "from pkg.pricing import quote\nquote({'sex': 'female'})\n",
    })  # fmt: skip
    policy = build_policy([{"evidence": {"seconds": 60}}])
    targets = [
        RecordingTarget(FunctionKey("pkg/pricing.py", "quote"), "quote", (1,), speculative=True),
        RecordingTarget(
            FunctionKey("pkg/pricing.py", "unused"), "unused", (5,), unused_speculative
        ),
    ]
    entries = [pytest_run("tests/test_requests.py"), EntryPoint("script", "after.py __main__",
                                                                path="after.py")]
    with executor.share(str(project.root)) as shared:
        evidence = Recording(executor, project, policy).run(targets, entries, shared.path)
    try:
        statuses = [(e.label, e.status) for e in evidence.stats.entries]
        assert statuses[0] == ("pytest", f"ended: no call holding a person for {patience}s")
        assert evidence.stats.entries[0].tests >= patience  # the tests it reached still count
        assert statuses[1] == ("after.py __main__", "ok")
        sources = [c.source for calls in evidence.calls.values() for c in calls]
        assert "after.py __main__" in sources
    finally:
        evidence.close()


def test_a_test_run_whose_calls_hold_people_runs_past_the_patience(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    project = write(tmp_path / "repo", PEOPLE_SUITE)
    policy = build_policy([{"evidence": {"seconds": 60, "calls_per_function": 30}}])
    target = RecordingTarget(FunctionKey("pkg/pricing.py", "quote"), "quote", (1,), True)
    with executor.share(str(project.root)) as shared:
        evidence = Recording(executor, project, policy).run(
            [target], [pytest_run("tests/test_people.py")], shared.path
        )
    try:
        assert [e.status for e in evidence.stats.entries] == ["pytest exit code 0"]
        assert evidence.stats.kept == 24
    finally:
        evidence.close()


def test_a_run_ends_once_the_function_it_records_for_is_settled_meanwhile(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    # The search over made-up inputs settles `quote` a second into PEOPLE_SUITE (the engine
    # says so through `settled`): the run ends there, and the demo after it is not run.
    project = write(tmp_path / "repo", {
        **PEOPLE_SUITE, "demo.py": "from pkg.pricing import quote\nquote({'sex': 'female'})\n"
    })
    policy = build_policy([{"evidence": {"seconds": 60, "calls_per_function": 30}}])
    key = FunctionKey("pkg/pricing.py", "quote")
    settles_at = time.monotonic() + 1.0

    def settled(function: FunctionKey) -> bool:
        return function == key and time.monotonic() >= settles_at

    entries = [pytest_run("tests/test_people.py"), EntryPoint("script", "demo.py __main__",
                                                              path="demo.py")]
    with executor.share(str(project.root)) as shared:
        evidence = Recording(executor, project, policy, settled).run(
            [RecordingTarget(key, "quote", (1,))], entries, shared.path
        )
    try:
        statuses = [e.status for e in evidence.stats.entries]
        assert statuses == [
            "ended: every function recorded for has its calls or its verdict",
            "not run: nothing more to record",
        ]
        assert evidence.stats.entries[0].tests < 24 and evidence.stats.kept < 24
    finally:
        evidence.close()


@pytest.mark.parametrize(
    "loop, status, seconds",
    [
        # A server's `__main__` sleeps after its one call: it ends once it has made no call
        # holding a person for PROGRAM_PATIENCE, not at its share of a minute.
        ("    time.sleep(0.1)", "ended: no call holding a person for 15s", 60),
        # finworth's MCP server: `sys.stdin.readline()` on a closed stdin in a loop spun for
        # its whole patience (15 s of a 17 s scan). Past a thousand reads at its end, a read
        # raises EOFError, as input() does: the program ends at once.
        ("    line = sys.stdin.readline()",
         "raised EOFError: stdin is closed: read at its end in a loop", 15),
    ],
    ids=["sleeping", "reading a closed stdin"],
)
def test_a_program_that_stops_calling_ends_and_the_next_entry_runs(
    executor: BwrapExecutor, tmp_path: Path, loop: str, status: str, seconds: int
) -> None:
    project = write(tmp_path / "repo", {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "server.py": "import sys, time\nfrom pkg.pricing import quote\nquote({'sex': 'female'})\n"
                     f"while True:\n{loop}\n",
        # the next program reads an empty stdin afresh
        "after.py": "import sys\nfrom pkg.pricing import quote\n"
                    "assert sys.stdin.read() == '' and sys.stdin.readline() == ''\n"
                    "quote({'sex': 'male'})\n",
    })  # fmt: skip
    entries = [
        EntryPoint("script", "server.py __main__", path="server.py"),
        EntryPoint("script", "after.py __main__", path="after.py"),
    ]
    started = time.monotonic()
    evidence = record(executor, project, entries, seconds=90)
    try:
        statuses = [(e.label, e.status) for e in evidence.stats.entries]
        assert statuses == [("server.py __main__", status), ("after.py __main__", "ok")]
        assert evidence.stats.kept == 2
        assert time.monotonic() - started < seconds
    finally:
        evidence.close()
