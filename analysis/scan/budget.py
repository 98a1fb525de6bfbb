"""What one scan or review may spend (`budget.*_per_scan` of the policy): functions run,
executions, seconds; and, in the App, the job's deadline. When one is spent, the engine judges
the functions left statically."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from analysis.report import FunctionReport
from config.policy import Budget


@dataclass(frozen=True)
class Deadline:
    """A moment (`time.monotonic()`) after which the scan starts no further function."""

    at: float
    why: str  # said in the warning, e.g. "the review job's time limit (1800 s) is near"


class ScanBudget:
    """What one scan has spent of `budget.*_per_scan`; thread-safe."""

    def __init__(self, budget: Budget, deadline: Deadline | None = None) -> None:
        self.budget = budget
        self.deadline = deadline
        self.started = time.monotonic()
        self.functions = self.executions = self.cut = 0
        self.reason = ""
        self._lock = threading.Lock()

    @property
    def hint(self) -> str:
        """What the user can do about a cut."""
        if self.deadline is not None and self.reason == self.deadline.why:
            return "split the pull request, or run `codebias scan` in CI for the rest"
        return "raise budget.*_per_scan in .codebias.yml"

    def exhausted(self) -> str | None:
        """Why no further function may run, or None."""
        b = self.budget
        with self._lock:
            if self.deadline is not None and time.monotonic() >= self.deadline.at:
                why = self.deadline.why
            elif self.functions >= b.functions_per_scan:
                why = f"the scan's budget of {b.functions_per_scan} functions run was spent"
            elif self.executions >= b.executions_per_scan:
                why = f"the scan's budget of {b.executions_per_scan:,} executions was spent"
            elif time.monotonic() - self.started >= b.seconds_per_scan:
                why = f"the scan's budget of {b.seconds_per_scan:g} s was spent"
            else:
                return None
            self.reason = why
            return why

    def add(self, report: FunctionReport, cut: bool, again: bool = False) -> None:
        """Counts a function the scan ran, or one it `cut` (that had something to run);
        `again`: a function counted already, judged once more (its executions only)."""
        with self._lock:
            if cut:
                self.cut += report.status != "skipped"
            elif report.executions:
                self.functions += not again
                self.executions += report.executions
