"""Time the machine gave to other work: a function's budget counts only the time it could run.

A function's budget is in seconds (`budget.seconds_per_function`, the session's wall clock).
On a machine shared with other work (a CI runner running two jobs, a scan beside the test
suite, four scans on two cores) the child spends much of that time runnable but not running,
and the same function got fewer calls, and other verdicts, the busier the machine was. The
kernel counts that time per thread: the second field of `/proc/<pid>/task/<tid>/schedstat` is
the time it waited on a run queue. A session adds up that wait over its child's process tree
(the sandbox's bwrap, its init, the interpreter and their threads) and over the host thread
that drives it, and its clock (`Session.now`) runs that much behind the wall clock.

What a child can make itself wait (threads that crowd each other) stretches its time by at
most MAX_STRETCH times its limit; a system without schedstat waits nothing.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

# The most a session's time stretches, as a multiple of its wall-clock limit: bounded, as a
# child that spawns threads to crowd itself raises its own wait.
MAX_STRETCH = 2.0
# Processes of one child's tree read, at most (bwrap, its init, the interpreter, helpers).
MAX_PROCESSES = 16


def waited(pid: int, proc: Path = Path("/proc")) -> float:
    """Seconds the threads of `pid` and of its descendants waited on a run queue, as the
    kernel counted them so far (0.0 where it does not)."""
    total_ns = 0
    pending, seen = [pid], set[int]()
    while pending and len(seen) < MAX_PROCESSES:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            threads = os.listdir(proc / str(current) / "task")
        except OSError:
            continue  # gone, or never there
        for tid in threads:
            task = proc / str(current) / "task" / tid
            total_ns += schedstat_wait(task / "schedstat")
            try:
                children = (task / "children").read_text()
            except OSError:
                children = ""
            pending += [int(child) for child in children.split() if child.isdigit()]
    return total_ns / 1e9


def own_wait(proc: Path = Path("/proc")) -> float:
    """Seconds the calling thread waited on a run queue so far."""
    return schedstat_wait(proc / "thread-self" / "schedstat") / 1e9


def schedstat_wait(path: Path) -> int:
    """The run-queue wait of one thread, in nanoseconds: `<on cpu> <waiting> <slices>`."""
    try:
        fields = path.read_text().split()
    except OSError:
        return 0
    return int(fields[1]) if len(fields) >= 2 and fields[1].isdigit() else 0


class WaitClock:
    """The wait of one session's child tree and of the thread that drives it, since the
    session started, bounded by `limit` seconds."""

    def __init__(self, pid: int, limit: float, proc: Path = Path("/proc")) -> None:
        self.pid, self.limit, self.proc = pid, limit, proc
        self.child_start = waited(pid, proc)
        self.thread = threading.get_ident()  # the thread whose own wait counts
        self.own_start = own_wait(proc)
        self.own_seen = 0.0
        self.child_seen = 0.0  # the child tree's wait, once its processes are gone too
        self.stolen = 0.0

    def update(self) -> float:
        """The wait so far (never less than before: a process that ended keeps its share);
        returns how much it grew since the last update."""
        child = max(waited(self.pid, self.proc) - self.child_start, self.child_seen)
        self.child_seen = child
        if threading.get_ident() == self.thread:
            self.own_seen = own_wait(self.proc) - self.own_start
        own = self.own_seen
        now = min(max(child + own, self.stolen), self.limit)
        grown, self.stolen = now - self.stolen, now
        return grown
