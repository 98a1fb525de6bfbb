"""Helpers shared by the sandbox suite (a plain module: conftest holds only fixtures)."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time

import pytest

from analysis.execution.process import Limits, Session, Target
from analysis.sandbox import BwrapExecutor
from analysis.sandbox.bwrap import PRELUDE_MARKER

BWRAP = shutil.which("bwrap")
SLOTS = 16
# Test uids start above the engine's default 60000, so that a worker on this machine is not
# mistaken for ours, and come in ranges of two pools of SLOTS (test_sandbox_concurrency.py
# uses the second).
FIRST_UID = 61000
RANGES = 64
_HELD_RANGE: list[int] = []


def claim_uid_base() -> int:
    """A uid range no other test process on this machine holds (another checkout's run, another
    xdist worker), held by an flock for the life of this process; CODEBIAS_TEST_UID_BASE
    chooses one by hand. Survivor checks count every live process on the range, so two runs
    on one range would take each other's sandboxes for survivors."""
    chosen = os.environ.get("CODEBIAS_TEST_UID_BASE")
    if chosen:
        return int(chosen)
    folder = os.path.join(tempfile.gettempdir(), f"codebias-test-uids-{os.geteuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    for k in range(RANGES):
        base = FIRST_UID + 2 * SLOTS * k
        fd = os.open(os.path.join(folder, f"{base}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        _HELD_RANGE.append(fd)
        return base
    raise RuntimeError(f"all {RANGES} test uid ranges under {folder} are held")


UID_BASE = claim_uid_base()
# A daemon that outlives its sandbox carries this in its command line; per range, like the uids.
DAEMON_MARKER = f"codebias-daemon-marker-{UID_BASE}"

SANDBOX = [
    pytest.mark.sandbox,
    pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed on this machine"),
]
HOSTILE_LIMITS = Limits(
    call_timeout=1.0,
    session_timeout=8.0,
    memory_mb=256,
    cpu_seconds=5,
    processes=32,
    file_size_mb=8,
    open_files=64,
)
ORDINARY_LIMITS = Limits(call_timeout=5.0, session_timeout=60.0)


def open_session(
    executor: BwrapExecutor, source: str, qualname: str, limits: Limits = HOSTILE_LIMITS
) -> Session:
    return executor.open(Target(source=source, filename="pr_module.py", qualname=qualname), limits)


def survivors() -> list[str]:
    """Processes started by this suite's sandboxes that are still alive on the host."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                status = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue  # exited while we looked
        uid = int(status.split("\nUid:", 1)[1].split()[0])
        daemon = DAEMON_MARKER.encode() in cmdline
        if os.geteuid() == 0:
            ours = UID_BASE <= uid < UID_BASE + SLOTS or daemon
        else:
            # Without root the sandboxes run under our own uid: recognise them by their
            # command (and not those of another run on the machine, under another uid).
            ours = uid == os.geteuid() and (daemon or PRELUDE_MARKER.encode() in cmdline)
        if ours and "\nState:\tZ" not in status:
            tag = f" {DAEMON_MARKER}" if daemon else ""
            found.append(f"{entry} uid={uid}{tag} {cmdline[:60]!r}")
    return found


def assert_no_survivors() -> None:
    # close() waits for the pid namespace to empty, so there is nothing to wait for; the short
    # grace only absorbs the kernel's reaping of zombies we do not own.
    deadline = time.monotonic() + 2.0
    while (left := survivors()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == [], f"processes outlived their sandbox: {left}"


