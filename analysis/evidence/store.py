"""The recordings of one scan, by project: made in a thread of their own while the functions
are tested from made-up inputs, read by the sessions of the functions recorded (which wait
for them when those inputs left their verdict open), removed when the engine closes."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.errors import ExecutionError
from analysis.evidence.calls import Evidence, FunctionKey, RecordedCall
from analysis.evidence.datafiles import (
    NAMES_READ,
    DataFiles,
    Reader,
    data_entries,
    data_files,
    reader,
)
from analysis.evidence.entrypoints import EntryPoint, entry_points
from analysis.evidence.madecalls import LABEL, Caller, made_calls
from analysis.evidence.recording import Recording
from analysis.evidence.scope import recording_target, wanted
from analysis.execution.process import Executor
from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.scan.project import ModuleLocation, Project
from analysis.source.functions import FunctionInfo
from config.policy import Policy

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Candidate:
    """A function of a project's module the scan will test."""

    project: Project
    location: ModuleLocation
    info: FunctionInfo
    facts: ModuleFacts


# Per project: the functions to record and the entry points to run.
Plans = list[tuple[Project, list[Candidate], list[Any]]]


def key(candidate: Candidate) -> tuple[Path, str, str]:
    return (candidate.project.root, candidate.location.file, candidate.info.qualname)


class EvidenceStore:
    """One engine's recordings (thread-safe to read once recorded)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.recordings: dict[Path, Evidence] = {}
        self.warnings: list[str] = []
        self.summaries: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.waiting: set[tuple[Path, str, str]] = set()
        self.speculative: set[tuple[Path, str, str]] = set()  # no protected input of their own
        # Judged already from made-up inputs, biased for every category they test: their
        # calls are wanted no more (a recording with nothing else to record ends).
        self.settled: set[tuple[Path, str, str]] = set()

    def start(
        self,
        candidates: list[Candidate],
        executor: Callable[[], Executor],
        shared: Callable[[Project], str],
    ) -> None:
        """Choose the functions worth recording and what to run, now; record in a thread of
        its own, while the functions that need no recording are tested (`pending`, `wait`).
        In a scan of one project, the thread starts first and opens the recording's first
        session while the choice is made (Recording.open_early): the sandbox's start and
        the project's set-up no longer wait for it (a quarter of a second of a small
        package's scan, before its demo could start). The session is the thread's own: a
        sandboxed child dies with the thread that started it."""
        if not self.policy.evidence.enabled:
            return
        projects = {c.project.root: c.project for c in candidates}
        early = next(iter(projects.values())) if len(projects) == 1 else None
        if early is not None and early.root in self.recordings:
            early = None
        planned: Future[Plans] = Future()
        thread = threading.Thread(
            target=self.record, args=(planned, executor, shared, early), name="codebias-recording"
        )
        if early is not None:
            thread.start()
        plans: Plans = []
        try:
            plans = self.plan(candidates)
        finally:
            self.waiting = {key(c) for plan in plans for c in plan[1]}
            planned.set_result(plans)
            if early is not None or plans:
                self.thread = thread
            if early is None and plans:
                thread.start()

    def settled_in(self, project: Project) -> Callable[[FunctionKey], bool]:
        """Whether a function of `project` is settled (its calls are wanted no more)."""

        def settled(function: FunctionKey) -> bool:
            return (project.root, function.file, function.qualname) in self.settled

        return settled

    def plan(self, candidates: list[Candidate]) -> Plans:
        """Per project not yet recorded: the functions to record and the entry points to run.
        A function the scope does not want is recorded too when a data file of people (a
        protected column) is driven through it (datafiles.py)."""
        # One pass over the candidates: by project, and their data readers where files exist.
        by_project: dict[Path, list[Candidate]] = {}
        callers: dict[Path, list[Caller]] = {}
        readers: dict[Path, list[tuple[Reader, Candidate]]] = {}
        files: dict[Path, DataFiles] = {}
        for candidate in candidates:
            root = candidate.project.root
            if root in self.recordings:
                continue
            model = InputBuilder(candidate.facts, self.policy).build(candidate.info)
            chosen = wanted(candidate.info, model, candidate.facts, self.policy)
            if not model.protected:
                self.speculative.add(key(candidate))
            else:
                caller = Caller(candidate.location.name, candidate.info, model)
                callers.setdefault(root, []).append(caller)
            if chosen:
                by_project.setdefault(root, []).append(candidate)
            if not self.policy.evidence.data:
                continue
            if root not in files:
                files[root] = data_files(candidate.project)
            if not files[root].files:
                continue  # nothing to call it with: what it reads is not worked out
            found_reader = reader(
                candidate.location.name, candidate.info, model, candidate.facts.functions,
                chosen, candidate.facts.caches[NAMES_READ],
            )  # fmt: skip
            if found_reader:
                readers.setdefault(root, []).append((found_reader, candidate))
        plans = []
        for root in {**by_project, **readers}:
            group = by_project.get(root, [])
            project = (group or [c for _, c in readers[root]])[0].project
            data = data_entries(
                files.get(root, DataFiles([], [])), [r for r, _ in readers.get(root, [])],
                self.policy,
            )  # fmt: skip
            driven = {(d.module, d.qualname) for entry in data.entries for d in entry.drives}
            group += [
                c for r, c in readers.get(root, [])
                if (r.module, r.qualname) in driven and c not in group
            ]  # fmt: skip
            if not group:
                continue
            found = entry_points(
                project, {c.location.name for c in group}, self.policy.evidence.run,
                {c.info.name for c in group},
            )  # fmt: skip
            found.entries += data.entries  # after the tests and demos
            needy = {c.info.name for c in group if key(c) in self.speculative}
            made = made_calls({c.info.name for c in group}, callers.get(root, []), needy)
            if made:
                found.entries.append(EntryPoint("made", LABEL, calls=made))  # last
            self.warnings += found.warnings + data.warnings
            if found.entries:
                plans.append((project, group, found.entries))
        return plans

    def record(
        self,
        planned: Future[Plans],
        executor: Callable[[], Executor],
        shared: Callable[[Project], str],
        early: Project | None,
    ) -> None:
        """The recordings of the projects planned; `early`: the project whose first session
        opens before the plan is made."""
        opened = None
        if early is not None:
            try:
                opened = Recording(executor(), early, self.policy, self.settled_in(early))
                opened.open_early(shared(early))
            except Exception:  # noqa: BLE001 - the recording opens its session as usual
                log.exception("internal error opening the recording's first session")
        for project, group, entries in planned.result():
            targets = [
                recording_target(c.location.file, c.info, key(c) in self.speculative)
                for c in group
            ]
            if opened is not None and opened.project.root == project.root:
                recording, opened = opened, None
            else:
                recording = Recording(executor(), project, self.policy, self.settled_in(project))
            try:
                evidence = recording.run(targets, entries, shared(project))
            except (OSError, ExecutionError) as exc:
                self.warnings.append(f"recording the project's own calls failed: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - a recording's internal error loses no verdict
                log.exception("internal error recording %s", project.root)
                self.warnings.append(f"recording failed: internal error in codebias: {exc}")
                continue
            with self.lock:
                self.recordings[project.root] = evidence
            self.report(project, evidence)
        if opened is not None:
            opened.discard()

    def pending(
        self, project: Project | None, location: ModuleLocation | None, info: FunctionInfo
    ) -> bool:
        """Whether this function's calls are being recorded (test it after the others)."""
        if project is None or location is None:
            return False
        return (project.root, location.file, info.qualname) in self.waiting

    def settle(self, project: Project, location: ModuleLocation, info: FunctionInfo) -> None:
        """The function's verdict is known: its calls are wanted no more."""
        with self.lock:
            self.settled.add((project.root, location.file, info.qualname))

    def over(self) -> bool:
        """Whether no recording is running (none started, or done)."""
        return self.thread is None or not self.thread.is_alive()

    def wait(self) -> None:
        """Until the recordings are done."""
        if self.thread is not None:
            self.thread.join()

    def report(self, project: Project, evidence: Evidence) -> None:
        stats = evidence.stats
        self.summaries.append(
            {
                "project": project.root.name,
                "seconds": round(stats.seconds, 3),
                "calls": stats.kept,
                "functions": len(evidence.calls),
                "tests": stats.tests,
                "failed_imports": stats.failed_imports,
                "dropped": dict(stats.dropped),
                "entries": [
                    {
                        "label": e.label,
                        "status": e.status,
                        "seconds": round(e.seconds, 3),
                        "tests": e.tests,
                        "failed_imports": e.failed_imports,
                    }
                    for e in stats.entries
                ],  # fmt: skip
            }
        )
        if stats.failed_imports:
            self.warnings.append(
                f"recording: {stats.failed_imports} test file(s) could not be imported here "
                "and were skipped"
            )
        log.info(
            "recording %s: %d call(s) of %d function(s) in %.1fs (%d tests)",
            project.root.name, stats.kept, len(evidence.calls), stats.seconds, stats.tests,
        )  # fmt: skip
        for key, calls in evidence.calls.items():
            log.debug("recorded %d call(s) of %s::%s", len(calls), key.file, key.qualname)

    def calls(self, project: Project | None, location: ModuleLocation | None,
              info: FunctionInfo) -> list[RecordedCall]:  # fmt: skip
        """The recorded calls of one function (none outside a project)."""
        if project is None or location is None:
            return []
        evidence = self.recordings.get(project.root)
        if evidence is None:
            return []
        return evidence.of(FunctionKey(location.file, info.qualname))

    def project_calls(self, project: Project | None) -> list[RecordedCall]:
        """Every recorded call of the project's functions, in the order they were kept."""
        evidence = self.recordings.get(project.root) if project is not None else None
        if evidence is None:
            return []
        return [call for calls in evidence.calls.values() for call in calls]

    def environ(self, project: Project | None) -> tuple[tuple[str, str], ...]:
        """The environment the project's recorded run set (none before it is over)."""
        evidence = self.recordings.get(project.root) if project is not None else None
        return evidence.environ() if evidence is not None else ()

    def folder(self, project: Project) -> str | None:
        """The folder of the project's recorded calls, shown to the sessions that use them."""
        evidence = self.recordings.get(project.root)
        return evidence.folder if evidence is not None else None

    def close(self) -> None:
        self.wait()
        with self.lock:
            for evidence in self.recordings.values():
                evidence.close()
            self.recordings.clear()
