"""The recording run, host side: once per project per scan, before the functions it records
for are tested.

The project's own entry points (entrypoints.py) run in one sandbox session under the
recorder (harness/recorder.py), in the sandbox's writable scratch view of the project, thrown
away with the session. The child streams each recorded call as it happens; each is read as
untrusted input (calls.read_call: bounded, checked), and its pickle is written, never read,
into a fresh evidence folder of the host's own making, with names the host chooses. Later
sessions of the scan see that folder read-only. When the child dies (a test that kills its
interpreter, a hang past the time), the calls streamed so far are kept and a new session
runs the entries not yet reached, while time is left. The run ends early once no function it
records for wants more: each has its calls, or was settled meanwhile by the search over
made-up inputs (analysis/engine.py: a function biased for every category it tests).
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from analysis.errors import ExecutionError, InvalidEvidence, SessionDied
from analysis.evidence.bases import holds_person
from analysis.evidence.calls import EntryResult, Evidence, FunctionKey, RecordedCall, read_call
from analysis.evidence.entrypoints import EntryPoint
from analysis.evidence.lentpytest import lend_pytest, lendable
from analysis.execution.process import Executor, Limits, Session, Target
from analysis.sandbox.snapshot import copy_base, snapshot
from analysis.scan.project import Project
from config.policy import Policy

log = logging.getLogger(__name__)

MAX_PICKLE_BYTES = 2 << 20  # one recorded call's arguments, pickled
MAX_RESUMES = 5  # test runs resumed past a test that killed its session, per recording
# An entry followed by others gets this share of the time left, so that one that hangs
# leaves time to the rest; past it (and a grace for the child to stop it itself) the
# session is killed, as it is past a test's own time.
ENTRY_SHARE = 0.75
GRACE = 5.0
# A test run that has given no call holding a person for this long, or for as long as it
# ran before its last such call when that is longer, has stopped teaching anything: it ends
# there, and the entries after it run (a web framework's suite calls
# `get_authenticated_user` with request objects for a whole run: the scan waited 12 s).
# When no function recorded has a protected input of its own, the run is a gamble on a
# person sitting inside an input no rule sees into, and gets less (tornado's suite, none).
PATIENCE = 5.0
SPECULATIVE_PATIENCE = 2.0
# A program (a demo, a server's `__main__`) is watched from its start, with more patience (it
# may read its data or fit a model before its first call): finworth's MCP server read a
# closed stdin in a loop for its entry's whole share, 90 s of a 92 s scan.
PROGRAM_PATIENCE = 15.0
TEST_RUNS = frozenset({"pytest", "openfisca", "examples"})  # an example block is a test
MAX_EVIDENCE_BYTES = 256 << 20  # every pickle of one recording
SECONDS_PER_TEST = 10.0
MB = 1 << 20
COUNTS = ("repeated", "unpicklable", "oversized", "unloadable")
POLL = 0.25  # seconds between looks at whether a function recorded for still wants calls


@dataclass(frozen=True)
class RecordingTarget:
    """A function to record: its key, and how the child knows its code object (the code's
    name and first line: the `def`'s, or its first decorator's)."""

    key: FunctionKey
    name: str
    lines: tuple[int, ...]
    # No protected input of its own: its calls teach something only when a person's
    # protected value sits inside them (a table of applicants), not by being made.
    speculative: bool = False


class Recording:
    """One project's recording run (see the module doc)."""

    def __init__(
        self,
        executor: Executor,
        project: Project,
        policy: Policy,
        settled: Callable[[FunctionKey], bool] = lambda key: False,
    ) -> None:
        """`settled`: whether a function's verdict is already known (no call of it is
        wanted any more); asked while the run goes on."""
        self.executor = executor
        self.project = project
        self.policy = policy
        self.settings = policy.evidence
        self.written = 0
        self.call_ids = 0
        self.lent_pytest: str | None = None  # pytest's copy in the evidence folder (lentpytest.py)
        self.settled = settled
        # The first session, opened before the functions and entries are chosen (open_early),
        # with the run's start and folder.
        self.early: Session | None = None
        self.started: float | None = None
        self.evidence: Evidence | None = None

    def open_early(self, shared: str) -> None:
        """Open the first session now, while the scan still chooses what to record and run
        (store.py): the sandbox starts and sets the project up beside that choice, not after
        it. Only where each session writes to a scratch view of its own (`shared` is then
        the project it sees). It is shown the evidence folder, still empty: a pytest lent
        to a project without one is copied in there once the entries are known to want it.
        A session that fails to open here is opened again, as usual, by the run."""
        if not self.executor.private_writes:
            return
        self.started = time.monotonic()
        self.evidence = Evidence(evidence_folder())
        try:
            self.early = self.executor.open(
                self.setup(shared, self.evidence.folder), recording_limits(self.settings.seconds)
            )
        except (ExecutionError, OSError) as exc:
            log.info("recording: the first session did not open early: %s", exc)

    def discard(self) -> None:
        """An early session the scan found nothing to record with: closed, its folder gone."""
        if self.early is not None:
            self.early.close()
            self.early = None
        if self.evidence is not None:
            self.evidence.close()
            self.evidence = None

    def setup(self, copy: str, evidence: str | None) -> Target:
        """A recording session's target: no function, the project set up in `copy`, with
        the evidence folder shown when pytest is lent from it."""
        return Target(
            "",
            "",
            "",  # no function: the recorder only sets the project up
            repo=copy,
            paths=self.project.roots,
            stub=self.policy.python.stub,
            stub_missing=False,  # only what a test file cannot import without (testplugin.py)
            evidence=evidence,
        )

    def run(
        self, targets: list[RecordingTarget], entries: list[EntryPoint], shared: str
    ) -> Evidence:
        """`shared`: the folder sessions are given as the project (Engine.shared)."""
        started = self.started or time.monotonic()
        evidence = self.evidence or Evidence(evidence_folder())
        # Where the project's environment has none; not for a gamble (every function
        # recorded without a protected input of its own).
        roots = [str(self.project.root / root) for root in self.project.roots]
        has_pytest = self.executor.interpreter.finds("pytest", roots)
        if not has_pytest and lendable(targets, entries):
            self.lent_pytest = lend_pytest(evidence.folder)
        deadline = started + self.settings.seconds
        functions = {i: t.key for i, t in enumerate(targets)}
        try:
            with self.writable(shared) as copy:
                pending = list(entries)
                resumes = 0
                while pending and time.monotonic() < deadline:
                    done, resume = self.session(
                        copy, targets, pending, functions, evidence, deadline
                    )
                    pending = pending[done:]
                    if resume is not None and resumes < MAX_RESUMES:
                        pending.insert(0, resume)
                        resumes += 1
                for entry in pending:
                    evidence.stats.entries.append(EntryResult(entry.label, "not run: no time left"))
        finally:
            if self.early is not None:  # not taken up: the run ended before its first session
                self.early.close()
                self.early = None
            evidence.fill(self.settings.calls_per_function)
            evidence.write_index()
            evidence.stats.seconds = time.monotonic() - started
        return evidence

    @contextmanager
    def writable(self, shared: str) -> Iterator[str]:
        """The project the recording session may write to: the shared snapshot, where the
        sandbox gives each session a scratch view of its own (thrown away with it); else a
        copy of ours (rlimits only: its tests would write into the checkout)."""
        if self.executor.private_writes:
            yield shared
            return
        with snapshot(Path(shared), os.geteuid() == 0) as (copy, _):
            yield copy

    def session(
        self,
        copy: str,
        targets: list[RecordingTarget],
        entries: list[EntryPoint],
        functions: dict[int, FunctionKey],
        evidence: Evidence,
        deadline: float,
    ) -> tuple[int, EntryPoint | None]:
        """Run `entries` in one session; how many of them it got through (at least one: an
        entry that killed its session is not run again), and, when a test killed it, the
        test run to resume without the tests already started."""
        remaining = deadline - time.monotonic()
        target = self.setup(copy, evidence.folder if self.lent_pytest else None)
        limits = recording_limits(remaining)
        speculative = {i for i, t in enumerate(targets) if t.speculative}
        gamble = len(speculative) == len(targets)
        watch = Watch(deadline, entries, SPECULATIVE_PATIENCE if gamble else PATIENCE)
        reported = 0
        started: list[str] = []  # tests of the current entry, in the order they started
        try:
            with self.opened(target, limits) as session:
                if session.load_error:
                    raise SessionDied(f"the project could not be set up: {session.load_error}")
                view = self.executor.repo_view(target) or copy
                message = {
                    "op": "record",
                    "targets": [
                        {
                            "id": i,
                            "file": f"{view}/{t.key.file}",
                            "name": t.name,
                            "lines": list(t.lines),
                        }
                        for i, t in enumerate(targets)
                    ],  # fmt: skip
                    "entries": [e.wire(view) for e in entries],
                    "calls_per_function": self.settings.calls_per_function,
                    "seconds": remaining,
                    "entry_share": ENTRY_SHARE,
                    "seconds_per_test": SECONDS_PER_TEST,
                    "max_pickle_bytes": MAX_PICKLE_BYTES,
                    "repo": view,
                }
                shown = self.executor.evidence_view(target)
                if self.lent_pytest and shown:
                    message["pytest_lent"] = f"{shown}/{self.lent_pytest}"
                watch.entry(0)
                session.send(message, session.request_deadline(watch.until() - time.monotonic()))
                while True:
                    reply = self.next_reply(session, watch, targets, evidence)
                    if "call" in reply:
                        call = self.keep(reply, functions, evidence, view)
                        if call is not None and (
                            reply["call"].get("target") not in speculative
                            or holds_person(call, self.policy)
                        ):
                            watch.learned()
                    elif "test" in reply:
                        started.append(str(reply["test"])[:500])
                        watch.test()
                    elif "entry" in reply:
                        reported = max(reported, self.entry(reply, entries, evidence))
                        started = []
                        watch.entry(reported)
                    elif reply.get("recorded") is True:
                        self.counts(reply.get("counts"), evidence)
                        return len(entries), None
                    if watch.bored():
                        raise Bored(watch.patience())
        except (Bored, Needless, SessionDied, ExecutionError, OSError) as exc:
            if reported >= len(entries):
                return reported, None
            entry = entries[reported]
            if isinstance(exc, Needless):
                status = "ended: every function recorded for has its calls or its verdict"
                evidence.stats.entries.append(EntryResult(entry.label, status, tests=len(started)))
                evidence.stats.entries += [
                    EntryResult(e.label, "not run: nothing more to record")
                    for e in entries[reported + 1 :]
                ]  # fmt: skip
                log.info("recording: %s %s", entry.label, status)
                return len(entries), None
            # The child counts an entry's tests when it ends; one the host ends keeps the
            # tests it had started.
            if watch.bored():
                status = f"ended: no call holding a person for {watch.patience():.0f}s"
                evidence.stats.entries.append(EntryResult(entry.label, status, tests=len(started)))
                log.info("recording: %s %s", entry.label, status)
                return reported + 1, None
            killer = f" in {started[-1]}" if started else ""
            evidence.stats.entries.append(
                EntryResult(entry.label, f"stopped{killer}: {exc}"[:300], tests=len(started))
            )
            log.info("recording: %s stopped the session%s: %s", entry.label, killer, exc)
            if entry.kind in ("pytest", "openfisca") and started:
                skip = [arg for test in started for arg in ("--deselect", test)]
                return reported + 1, replace(entry, args=(*entry.args, *skip))
            return reported + 1, None
        return len(entries), None

    @contextmanager
    def opened(self, target: Target, limits: Limits) -> Iterator[Session]:
        """The session opened early, if any (once), else a new one; closed after."""
        session = self.early or self.executor.open(target, limits)
        self.early = None
        try:
            yield session
        finally:
            session.close()

    def next_reply(
        self,
        session: Session,
        watch: Watch,
        targets: list[RecordingTarget],
        evidence: Evidence,
    ) -> dict[str, Any]:
        """The child's next message, read by its time (`watch`); Needless when, meanwhile,
        some function recorded for was settled and each other one has its calls, counting
        those past their source's share (the child, which spreads a function's calls over
        its sources, ends the run itself when none was settled)."""
        while True:
            settled = [self.settled(t.key) for t in targets]
            enough = self.settings.calls_per_function
            if any(settled) and all(
                done or len(evidence.of(t.key)) + len(evidence.reserve.get(t.key, [])) >= enough
                for t, done in zip(targets, settled, strict=True)
            ):
                raise Needless()
            left = watch.until() - time.monotonic()
            if left <= 0 or session.has_reply(min(POLL, left)):
                return session.read_reply(watch.until())

    def keep(
        self,
        reply: dict[str, Any],
        functions: dict[int, FunctionKey],
        evidence: Evidence,
        view: str,
    ) -> RecordedCall | None:
        """Keep one streamed call; it, when kept."""
        if self.written >= MAX_EVIDENCE_BYTES:
            evidence.stats.drop("over the recording's size limit")
            return None
        self.call_ids += 1
        try:
            call, data, replaying = read_call(
                reply, f"c{self.call_ids}", functions, MAX_PICKLE_BYTES, view
            )
        except InvalidEvidence as exc:
            evidence.stats.drop("invalid")
            log.info("recording: a call was dropped: %s", exc)
            return None
        evidence.keep(call, data, replaying, reserve=reply.get("reserve") is True)
        self.written += len(data)
        return call

    def entry(self, reply: dict[str, Any], entries: list[EntryPoint], evidence: Evidence) -> int:
        """Record one entry's outcome; how many entries are reported so far."""
        index = reply.get("entry")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(entries):
            return 0
        evidence.stats.entries.append(
            EntryResult(
                entries[index].label,
                str(reply.get("status", ""))[:300],
                number(reply.get("seconds"), float),
                int(number(reply.get("tests"), int)),
                int(number(reply.get("failed_imports"), int)),
            )
        )
        return index + 1

    def counts(self, counts: Any, evidence: Evidence) -> None:
        if not isinstance(counts, dict):
            return
        for why in COUNTS:
            count = number(counts.get(why), int)
            if count:
                evidence.stats.drop(why, int(count))


class Bored(Exception):
    """A test run gave no call holding a person for its patience (Watch.bored)."""


class Needless(Exception):
    """No function recorded for wants another call (Recording.next_reply)."""


class Watch:
    """The host's clock over one session's entries and tests: when the current entry's or
    test's time is up (as the child's clock has it, harness/clock.py Timer) and the child
    has not moved on within a grace, the session is killed; so is a test run that has
    stopped teaching anything (PATIENCE), or a program (PROGRAM_PATIENCE), and the entries
    after it run in a new session."""

    def __init__(
        self, deadline: float, entries: list[EntryPoint], least_patience: float = PATIENCE
    ) -> None:
        self.deadline = deadline
        self.entries = entries
        self.least_patience = least_patience
        self.entry_end = deadline
        self.test_end: float | None = None
        self.index = 0
        self.tests = 0  # started in the current entry
        # The current test run's second test (a program's start), and its last call holding
        # a person (or second test): the patience counts from there.
        self.began: float | None = None
        self.last: float | None = None
        self.least = least_patience  # the current entry's

    def entry(self, index: int) -> None:
        now = time.monotonic()
        left = self.deadline - now
        self.entry_end = now + (left * ENTRY_SHARE if index < len(self.entries) - 1 else left)
        self.test_end = None
        self.index = index
        self.began = self.last = None
        self.least = self.least_patience
        self.tests = 0
        if index < len(self.entries) and self.entries[index].kind not in TEST_RUNS:
            self.began = self.last = now
            self.least = max(PROGRAM_PATIENCE, self.least_patience)

    def test(self) -> None:
        now = time.monotonic()
        self.test_end = now + SECONDS_PER_TEST
        self.tests += 1
        # The patience counts from the second test: the first one's call may come late on a
        # loaded machine (its fixtures, its data read), and a hanging one has its own bound.
        if self.began is None and self.tests > 1 and self.index < len(self.entries):
            if self.entries[self.index].kind in TEST_RUNS:
                self.began = self.last = now

    def learned(self) -> None:
        if self.began is not None:
            self.last = time.monotonic()

    def patience(self) -> float:
        """How long the current test run may go on without a call holding a person."""
        if self.began is None or self.last is None:
            return math.inf
        return max(self.least, (self.last - self.began))

    def bored(self) -> bool:
        return self.last is not None and time.monotonic() >= self.last + self.patience()

    def until(self) -> float:
        ends = [self.deadline + GRACE, self.entry_end + GRACE]
        if self.test_end is not None:
            ends.append(self.test_end + GRACE)
        if self.last is not None:
            ends.append(self.last + self.patience())
        return min(ends)


def recording_limits(seconds: float) -> Limits:
    """The recording session's limits: its whole time, room for a test suite's imports."""
    return Limits(
        load_timeout=30.0,
        session_timeout=seconds + 10.0,
        cpu_seconds=int(seconds) + 10,
        open_files=256,
        file_size_mb=64,
        max_reply_bytes=(MAX_PICKLE_BYTES * 4) // 3 + MB,
    )


def evidence_folder() -> str:
    """A fresh folder for the pickles, where the sandboxes' uids can read it (where the
    project snapshots go: away from the /tmp the staging namespace covers, as root)."""
    folder = tempfile.mkdtemp(prefix="codebias-evidence-", dir=copy_base(os.geteuid() == 0))
    os.chmod(folder, 0o755)
    return folder


def number(value: Any, kind: type[int] | type[float]) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return kind(value)
    return 0
