"""What the sandbox is started with: the flags that isolate it and a minimal read-only view."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandbox_helpers import (
    DAEMON_MARKER,
    SANDBOX,
    SLOTS,
    UID_BASE,
    assert_no_survivors,
    open_session,
    survivors,
)

from analysis.execution.process import SINGLE_THREADED, Call, Limits
from analysis.sandbox import BwrapExecutor
from analysis.sandbox.slots import Slot

pytestmark = SANDBOX

REPO = Path(__file__).resolve().parents[2]
FORBIDDEN = ["/etc", "/run", "/var", "/home", "/root", "/work", "/usr/local", str(REPO)]


def command(executor: BwrapExecutor) -> list[str]:
    slot = Slot(index=0, uid=UID_BASE, fd=-1, released=True)
    return executor.command(Limits(), slot, info_fd=9, seccomp_fd=10)


def mounts(argv: list[str], flag: str) -> list[tuple[str, str]]:
    return [(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == flag]


@pytest.mark.parametrize(
    "flag",
    ["--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-uts", "--disable-userns",
     "--die-with-parent", "--new-session", "--clearenv", "--seccomp", "--cap-drop"],
)  # fmt: skip
def test_sandbox_starts_with_isolating_flag(executor: BwrapExecutor, flag: str) -> None:
    argv = command(executor)
    assert flag in argv[argv.index(executor.bwrap) :]


def test_sandbox_ipc_namespace_is_the_launchers_own_and_proc_sys_read_only(
    executor: BwrapExecutor,
) -> None:
    argv = command(executor)
    launcher, sandbox = argv[: argv.index(executor.bwrap)], argv[argv.index(executor.bwrap) :]
    assert "--ipc" in launcher and "kernel/shmmax" in launcher
    # bwrap must not unshare IPC again: a new namespace would have the kernel's huge defaults.
    assert "--unshare-ipc" not in sandbox and "--unshare-all" not in sandbox
    assert ("/proc/sys", "/proc/sys") in mounts(sandbox, "--ro-bind")


def test_sandbox_never_shows_host_config_homes_or_the_app(executor: BwrapExecutor) -> None:
    argv = command(executor)
    binds = mounts(argv, "--ro-bind") + mounts(argv, "--bind") + mounts(argv, "--dev-bind")
    assert binds, argv
    for src, dest in binds:
        for place in FORBIDDEN:
            assert not (dest == place or dest.startswith(place + "/")), (src, dest)
        # As root the interpreter comes from the staging namespace; as non-root only the
        # interpreter's own prefix (never its parent, e.g. all of /root) is a source.
        assert not (src == str(REPO) or src.startswith(str(REPO) + "/")), src
        assert src not in ("/", "/root", "/home", "/etc", "/usr"), src
    assert all(dest not in ("/", "/usr") for _, dest in binds)


def test_sandbox_environment_is_only_what_we_set(executor: BwrapExecutor) -> None:
    argv = command(executor)
    names = [argv[i + 1] for i, a in enumerate(argv) if a == "--setenv"]
    ours = {"PATH", "LANG", "HOME", "TMPDIR", "PYTHONHASHSEED", "LD_LIBRARY_PATH"}
    assert set(names) <= ours | set(SINGLE_THREADED)


def test_numeric_libraries_run_one_thread_each_in_the_sandbox(executor: BwrapExecutor) -> None:
    # A thread (and a malloc arena) per core under RLIMIT_AS: an sklearn pipeline's every
    # call raised "can't start new thread" there.
    source = "import os\ndef f(name):\n    return os.environ.get(name)\n"
    with open_session(executor, source, "f") as session:
        assert session.load_error is None, session.load_error
        names = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"]
        outcomes = session.run([Call((name,)) for name in names])
    assert [o.value for o in outcomes] == [repr("1")] * 3


WORKER = """
import sys, time
sys.path.insert(0, {repo!r})
from analysis.execution.process import Call, Limits, Target
from analysis.sandbox import BwrapExecutor
executor = BwrapExecutor(uid_base={uid_base}, slots={slots}, slot_dir={slot_dir!r})
source = '''
import os, sys
def f(marker):
    for _ in range(3):
        if os.fork() == 0:
            os.setsid()
            os.execv(sys.executable, [sys.executable, '-c', 'while True: pass', marker])
    return 'spawned'
'''
session = executor.open(Target(source, 'pr.py', 'f'), Limits(session_timeout=600))
print(session.run([Call(({marker!r},))])[0].value, flush=True)
time.sleep(600)
"""


def test_sandbox_dies_with_a_worker_killed_outright(tmp_path: Path) -> None:
    code = WORKER.format(
        repo=str(REPO),
        uid_base=UID_BASE,
        slots=SLOTS,
        slot_dir=str(tmp_path / "slots"),
        marker=DAEMON_MARKER,
    )
    worker = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == b"'spawned'"
        assert len(survivors()) >= 3
    finally:
        os.kill(worker.pid, signal.SIGKILL)  # no close(), no cleanup of any kind
        worker.wait()
        if worker.stdout is not None:
            worker.stdout.close()
    # --die-with-parent: bwrap and its pid 1 die with the worker, and the kernel empties the
    # pid namespace; give it the moment that takes.
    deadline = time.monotonic() + 5
    while survivors() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert_no_survivors()
