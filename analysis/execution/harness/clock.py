"""The recording run's clock: a test that runs past its time fails (TestTimeout) and the next
one runs; an entry point that runs past its own time ends (EntryTimeout).

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only.
"""

import signal
import time
from typing import Any, Protocol

ALARM_REPEAT = 0.5  # an alarm that found the recorder busy comes again this soon
ENTRY_REPEAT = 2.0  # an entry's end swallowed by the code is raised again this often


class TestTimeout(BaseException):  # noqa: N818 - read as the test's outcome: "TestTimeout"
    """One test ran past its time: it fails, and the next test runs (a BaseException, so
    that a test's own `except Exception` retry loop does not swallow it)."""

    __test__ = False  # not a test class, whatever pytest collects


class EntryTimeout(KeyboardInterrupt):  # noqa: N818
    """An entry point ran past its time: pytest ends its session on a KeyboardInterrupt."""


class EntryOutcome:
    def __init__(self) -> None:
        self.status = "ok"
        self.tests = 0
        self.failed_imports = 0
        self.left_out = 0  # tests not run: nothing more to record from them


class Busy(Protocol):
    busy: bool  # the recorder is capturing a call: no alarm may interrupt it


class Timer:
    """SIGALRM for one entry point: past a test's time the test fails (TestTimeout, once: the
    host ends a test that swallows it), past the entry's time the entry ends (EntryTimeout,
    again every ENTRY_REPEAT seconds for code that swallows it, leaving pytest time to end
    its session); never inside the recorder itself (a busy alarm comes again soon)."""

    def __init__(self, recorder: Busy, deadline: float, per_test: float) -> None:
        self.recorder = recorder
        self.deadline = deadline
        self.per_test = per_test
        self.test_deadline: float | None = None

    def arm(self) -> None:
        signal.signal(signal.SIGALRM, self.fire)
        self.schedule()

    def schedule(self) -> None:
        end = (
            self.deadline if self.test_deadline is None else min(self.deadline, self.test_deadline)
        )
        signal.setitimer(signal.ITIMER_REAL, max(end - time.monotonic(), 0.001), ALARM_REPEAT)

    def start_test(self) -> None:
        self.test_deadline = time.monotonic() + self.per_test
        self.schedule()

    def end_test(self) -> None:
        self.test_deadline = None
        self.schedule()

    def disarm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)

    def fire(self, signum: int, frame: Any) -> None:
        if self.recorder.busy:
            return  # never inside a capture: it would stop the hook; raised again soon
        now = time.monotonic()
        if now >= self.deadline:
            signal.setitimer(signal.ITIMER_REAL, ENTRY_REPEAT, ENTRY_REPEAT)
            raise EntryTimeout()
        if self.test_deadline is not None and now >= self.test_deadline:
            self.test_deadline = None
            self.schedule()
            raise TestTimeout(f"the test ran past {self.per_test:.0f}s while recording")
