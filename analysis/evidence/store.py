"""The recordings of one scan, by project: made before any function is tested, read by every
later session of the scan, removed when the engine closes."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.builder import InputBuilder
from analysis.errors import ExecutionError
from analysis.evidence.calls import Evidence, FunctionKey, RecordedCall
from analysis.evidence.entrypoints import entry_points
from analysis.evidence.recording import Recording
from analysis.evidence.scope import recording_target, wanted
from analysis.execution import Executor
from analysis.functions import FunctionInfo
from analysis.hints import ModuleFacts
from analysis.project import ModuleLocation, Project
from config.policy import Policy

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Candidate:
    """A function of a project's module the scan will test."""

    project: Project
    location: ModuleLocation
    info: FunctionInfo
    facts: ModuleFacts


class EvidenceStore:
    """One engine's recordings (thread-safe to read once recorded)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.recordings: dict[Path, Evidence] = {}
        self.warnings: list[str] = []
        self.summaries: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def record(
        self,
        candidates: list[Candidate],
        executor: Callable[[], Executor],
        shared: Callable[[Project], str],
    ) -> None:
        """Record the calls of the candidates worth it, once per project not yet recorded."""
        if not self.policy.evidence.enabled:
            return
        by_project: dict[Path, list[Candidate]] = {}
        for candidate in candidates:
            if candidate.project.root in self.recordings:
                continue
            model = InputBuilder(candidate.facts, self.policy).build(candidate.info)
            if wanted(candidate.info, model, candidate.facts, self.policy):
                by_project.setdefault(candidate.project.root, []).append(candidate)
        for root, group in by_project.items():
            project = group[0].project
            modules = {c.location.name for c in group}
            found = entry_points(project, modules, self.policy.evidence.run)
            self.warnings += found.warnings
            if not found.entries:
                continue
            targets = [recording_target(c.location.file, c.info) for c in group]
            try:
                evidence = Recording(executor(), project, self.policy).run(
                    targets, found.entries, shared(project)
                )
            except (OSError, ExecutionError) as exc:
                self.warnings.append(f"recording the project's own calls failed: {exc}")
                continue
            with self.lock:
                self.recordings[root] = evidence
            self.report(project, evidence)

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

    def calls(self, project: Project | None, location: ModuleLocation | None,
              info: FunctionInfo) -> list[RecordedCall]:  # fmt: skip
        """The recorded calls of one function (none outside a project)."""
        if project is None or location is None:
            return []
        evidence = self.recordings.get(project.root)
        if evidence is None:
            return []
        return evidence.of(FunctionKey(location.file, info.qualname))

    def shown(self, project: Project | None, location: ModuleLocation | None,
              info: FunctionInfo) -> tuple[str | None, tuple[str, ...]]:  # fmt: skip
        """The evidence folder a session of this function is shown, and its calls there."""
        calls = self.calls(project, location, info)
        if not calls:
            return None, ()
        assert project is not None
        return self.recordings[project.root].folder, tuple(c.id for c in calls)

    def close(self) -> None:
        with self.lock:
            for evidence in self.recordings.values():
                evidence.close()
            self.recordings.clear()
