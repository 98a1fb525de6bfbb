"""The job timeout: one review job may run at most `JOB_TIMEOUT` seconds, in both modes.

RQ enforces it from outside: the work horse is killed at the timeout. The embedded pool runs
jobs in threads, which cannot be killed, so there the limit is kept from inside, in two steps:
- at `TESTING_SHARE` of the timeout the scan stops starting functions (those left are judged
  statically and reported as cut, as a spent scan budget is) and fix suggestions are skipped,
  so a slow review still posts what it found, in RQ mode too;
- at the timeout a watchdog gives the job up: the queue records it as failed and frees its
  place, and the job's thread raises `JobTimedOut` at its next step, which closes its check run
  as neutral instead of posting late. Every blocking call a job makes has its own bound
  (sandbox sessions, HTTP and model timeouts), so that thread ends soon after.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from analysis.scan.budget import Deadline

# Long enough for a large pull request tested function by function in the sandbox.
JOB_TIMEOUT = 30 * 60
TESTING_SHARE = 0.8


class JobTimedOut(RuntimeError):
    """The job outlived its timeout and was given up; it is not retried."""


@dataclass
class JobDeadline:
    timeout: float
    started: float = field(default_factory=time.monotonic)
    given_up: threading.Event = field(default_factory=threading.Event)

    @property
    def testing(self) -> Deadline:
        """When the scan stops starting functions."""
        return Deadline(
            self.started + self.timeout * TESTING_SHARE,
            f"the review job's time limit ({self.timeout:g} s) is near",
        )

    def testing_over(self) -> bool:
        return time.monotonic() >= self.testing.at

    def check(self) -> None:
        """Raises JobTimedOut once the watchdog has given the job up."""
        if self.given_up.is_set():
            raise JobTimedOut(f"the review job exceeded its timeout of {self.timeout:g} s")


_current: ContextVar[JobDeadline | None] = ContextVar("codebias_job_deadline", default=None)


@contextmanager
def job_deadline(deadline: JobDeadline) -> Iterator[JobDeadline]:
    """Makes `deadline` the running job's (read with `current_deadline`) inside the block."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def current_deadline() -> JobDeadline:
    """The running job's deadline; outside a job, a fresh one of `JOB_TIMEOUT`."""
    return _current.get() or JobDeadline(JOB_TIMEOUT)
