"""A function's budget counts the time it could run (analysis/execution/waiting.py): on a
machine busy with other work, the session's clock runs behind the wall clock by the time
its child waited for a processor, and its deadline moves on by as much.

Reproducer: the real-world corpus scanned four packages at once on two cores; functions of
rcpchgrowth and cvd-risk that settle within their ten seconds alone ran out of them ("the
budget ran out before settling sex") and lost their proofs, a different verdict for the same
code by how busy the machine was.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import SANDBOX, open_session

from analysis.execution.process import Call, Limits
from analysis.execution.waiting import waited
from analysis.sandbox import BwrapExecutor

pytestmark = SANDBOX

# Half a second of the processor's time, however fast the interpreter.
SPIN = """
import time


def spin(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return seconds
"""


def schedstat(proc: Path, pid: int, tid: int, wait_ns: int, children: str = "") -> None:
    task = proc / str(pid) / "task" / str(tid)
    task.mkdir(parents=True)
    (task / "schedstat").write_text(f"123 {wait_ns} 4\n")
    (task / "children").write_text(children)


def test_a_process_tree_s_wait_is_summed_over_its_threads_and_descendants(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    schedstat(proc, 10, 10, 2_000_000_000, children="11 ")
    schedstat(proc, 10, 12, 500_000_000)  # a second thread of the sandbox's bwrap
    schedstat(proc, 11, 11, 1_000_000_000, children="13")
    schedstat(proc, 13, 13, 250_000_000)  # the interpreter, two levels down
    schedstat(proc, 99, 99, 7_000_000_000)  # another process: not counted
    assert waited(10, proc) == pytest.approx(3.75)
    assert waited(42, proc) == 0.0  # gone: nothing counted, nothing raised


@pytest.fixture
def one_crowded_core() -> Iterator[None]:
    """This process and whatever it starts pinned to one core, with a busy loop on it. One
    loop: the child's share of the core is a half whether or not the kernel groups the
    sandbox's session apart (autogroups); with three, it is a half or a quarter."""
    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        hog.kill()
        hog.wait()
        os.sched_setaffinity(0, before)


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="no schedstat here")
@pytest.mark.usefixtures("one_crowded_core")
def test_on_a_crowded_core_the_session_s_clock_runs_behind_and_its_deadline_moves_on(
    executor: BwrapExecutor,
) -> None:
    session = open_session(executor, SPIN, "spin", Limits(call_timeout=10.0, session_timeout=30.0))
    try:
        assert session.load_error is None, session.load_error
        first_deadline = session.deadline - session.waits.stolen
        (outcome,) = session.run([Call((0.5,))])
        assert outcome.ok, outcome.error
        session.count_waits()
        # The child shared its core with a busy loop: for its half second of the processor
        # it waited about as long.
        assert session.waits.stolen > 0.2
        assert session.deadline == pytest.approx(first_deadline + session.waits.stolen)
    finally:
        session.close()


def wall_per_processor_second(executor: BwrapExecutor) -> float:
    """Seconds of the wall clock a second of the processor's time takes in the sandbox now:
    two on a core shared with one busy loop, more when the machine runs other work too
    (another test suite beside this one)."""
    session = open_session(executor, SPIN, "spin", Limits(call_timeout=30.0, session_timeout=60.0))
    try:
        session.run([Call((0.01,))])
        start = time.monotonic()
        (outcome,) = session.run([Call((0.2,))])
        assert outcome.ok, outcome.error
        return (time.monotonic() - start) / 0.2
    finally:
        session.close()


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="no schedstat here")
@pytest.mark.usefixtures("one_crowded_core")
def test_on_a_crowded_core_a_call_keeps_the_time_it_could_run(executor: BwrapExecutor) -> None:
    # Half a second of the processor's time under a limit it needs 1.4 times of the wall
    # clock to get, sharing its core with a busy loop (and whatever else runs): its alarm,
    # due by the wall clock, is set again for the time it waited. The limit follows the
    # share the call gets (a half beside one loop, a quarter with another suite running).
    limit = max(0.3, 0.5 * wall_per_processor_second(executor) / 1.4)
    session = open_session(executor, SPIN, "spin", Limits(call_timeout=limit, session_timeout=60.0))
    try:
        assert session.load_error is None, session.load_error
        (first,) = session.run([Call((0.01,))])  # answered: no more time for a first call
        assert first.ok, first.error
        start = time.monotonic()
        (outcome,) = session.run([Call((0.5,))])
        assert outcome.ok, outcome.error
        assert time.monotonic() - start > limit  # the wall clock alone would have ended it
        session.count_waits()
        assert session.waits.stolen > 0.25
    finally:
        session.close()
