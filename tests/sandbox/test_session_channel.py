"""The pipes between the worker and a sandbox: every write and read is bounded by the
session's deadline (issue 25, item 3).

Reproducer: a function that swaps the harness's request pipe for one nobody writes to stops
the child reading; the parent's next batch larger than a pipe's buffer then blocked in a
plain write, which no clock watched (a scan killed at 120 s against a 20 s limit per
function). Now the write is bounded by the same deadline as the read, and the session ends
with the reason.
"""

from __future__ import annotations

import threading
import time

from sandbox_helpers import SANDBOX, assert_no_survivors, open_session

from analysis.errors import SessionDied
from analysis.execution.process import Call, Limits
from analysis.sandbox import BwrapExecutor

pytestmark = SANDBOX

DEAF = """
import fcntl, os, stat


def deaf(text):
    # Every pipe this process reads from is replaced by one nobody writes to.
    quiet, _ = os.pipe()
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY:
            if fd != quiet:
                os.dup2(quiet, fd)
    return len(text)
"""

LIMITS = Limits(call_timeout=1.0, session_timeout=6.0)


def test_a_child_that_stops_reading_cannot_hold_the_worker(executor: BwrapExecutor) -> None:
    session = open_session(executor, DEAF, "deaf", LIMITS)
    assert session.load_error is None, session.load_error
    assert [o.value for o in session.run([Call(("x",))])] == ["1"]
    outcome: list[object] = []

    def second_batch() -> None:
        try:
            session.run([Call(("y" * 400_000,))])  # far more than a pipe holds
            outcome.append("answered")
        except SessionDied as exc:
            outcome.append(exc)

    started = time.monotonic()
    worker = threading.Thread(target=second_batch, daemon=True)
    worker.start()
    worker.join(LIMITS.session_timeout + 5.0)
    try:
        assert not worker.is_alive(), "the parent is stuck writing to a child that stopped reading"
    finally:
        session.close()  # frees a stuck writer (EPIPE) so that the thread ends either way
        worker.join(10.0)
    assert time.monotonic() - started <= LIMITS.session_timeout + 5.0
    [died] = outcome
    assert isinstance(died, SessionDied), died
    assert "wall-clock" in str(died) or "did not" in str(died), died
    assert_no_survivors()


FLOOD = """
import fcntl, os, stat


def flood():
    for fd in range(3, 64):
        try:
            pipe = stat.S_ISFIFO(os.fstat(fd).st_mode)
        except OSError:
            continue
        if pipe and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
            os.write(fd, b"x" * (8 << 20))  # no end of line: one reply that never ends
    return 1
"""


def test_a_reply_over_the_size_limit_ends_the_session(executor: BwrapExecutor) -> None:
    with open_session(executor, FLOOD, "flood", LIMITS) as session:
        try:
            session.run([Call()])
        except SessionDied as exc:
            assert "size limit" in str(exc), exc
        else:
            raise AssertionError("an endless reply was taken")
    assert_no_survivors()
