"""What one scan or review may spend (`budget.*_per_scan` of the policy): functions run,
executions, seconds. When one is spent, the engine judges the functions left statically."""

from __future__ import annotations

import threading
import time

from analysis.report import FunctionReport
from config.policy import Budget


class ScanBudget:
    """What one scan has spent of `budget.*_per_scan`; thread-safe."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.started = time.monotonic()
        self.functions = self.executions = self.cut = 0
        self.reason = ""
        self._lock = threading.Lock()

    def exhausted(self) -> str | None:
        """Why no further function may run, or None."""
        b = self.budget
        with self._lock:
            if self.functions >= b.functions_per_scan:
                why = f"the scan's budget of {b.functions_per_scan} functions run was spent"
            elif self.executions >= b.executions_per_scan:
                why = f"the scan's budget of {b.executions_per_scan:,} executions was spent"
            elif time.monotonic() - self.started >= b.seconds_per_scan:
                why = f"the scan's budget of {b.seconds_per_scan:g} s was spent"
            else:
                return None
            self.reason = why
            return why

    def add(self, report: FunctionReport) -> None:
        with self._lock:
            if report.reason and report.reason.startswith("not run: the scan's budget"):
                self.cut += 1
            elif report.executions:
                self.functions += 1
                self.executions += report.executions
