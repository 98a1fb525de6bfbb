"""Memory a sandbox can pin outside RLIMIT_AS is bounded (issue 11, item 2).

Reproducers: each hostile function below holds memory that no mapping of its own accounts
for, in chunks small enough that RLIMIT_AS (here 256 MB) never trips, and returns how much it
pinned. Before the fix each pinned what it asked for (384 MB of SysV shared memory through
shmget/shmat/memset/shmdt, 384 MB of memfds through memfd_create/write, 64 MB of SysV message
queues), all of it held by the kernel until the sandbox's IPC namespace died; and the sandbox
could raise its IPC namespace's limits itself by writing /proc/sys/kernel/shm*.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from sandbox_helpers import HOSTILE_LIMITS, SANDBOX, open_session

from analysis.execution.process import Call
from analysis.sandbox import BwrapExecutor

pytestmark = SANDBOX

# The abuse suite's limits (256 MB of address space, 8 MB files, 64 descriptors, 32
# processes), with time enough to write a few hundred MB.
LIMITS = replace(HOSTILE_LIMITS, call_timeout=20.0, session_timeout=40.0, cpu_seconds=20)
ASK_MB = 384  # more than RLIMIT_AS allows any one process to map

SYSV_SHM = """
import ctypes

def pin(total_mb, chunk_mb):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    pinned = 0
    while pinned < total_mb:
        shmid = libc.shmget(0, chunk_mb << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if shmid < 0:
            break
        addr = libc.shmat(shmid, None, 0)
        if addr is None or addr == ctypes.c_void_p(-1).value:
            break
        ctypes.memset(addr, 1, chunk_mb << 20)  # touch every page: now they are real
        libc.shmdt(ctypes.c_void_p(addr))  # unmapped: RLIMIT_AS no longer sees them
        pinned += chunk_mb
    return pinned
"""

MEMFD = """
import os

def pin(total_mb, chunk_mb):
    held, pinned = [], 0
    block = b"x" * (1 << 20)
    try:
        while pinned < total_mb:
            fd = os.memfd_create("pin")
            for _ in range(chunk_mb):
                os.write(fd, block)
            held.append(fd)
            pinned += chunk_mb
    except OSError:
        pass
    return pinned
"""

SYSV_MSG = """
import ctypes

def pin(total_mb, chunk_mb):
    libc = ctypes.CDLL(None, use_errno=True)

    class Message(ctypes.Structure):
        _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 8192)]

    message = Message(1, b"x" * 8192)
    pinned_kb = 0
    while pinned_kb < total_mb * 1024:
        queue = libc.msgget(0, 0o1600)
        if queue < 0:
            break
        for _ in range(2):  # 2 x 8 KiB: the default 16 KiB a queue may hold
            if libc.msgsnd(queue, ctypes.byref(message), 8192, 0o4000) != 0:  # IPC_NOWAIT
                return pinned_kb // 1024
            pinned_kb += 8
    return pinned_kb // 1024
"""


@pytest.mark.parametrize(
    ("source", "ask_mb", "chunk_mb", "bound_mb"),
    [
        pytest.param(SYSV_SHM, ASK_MB, 4, 16, id="sysv-shared-memory"),
        pytest.param(MEMFD, ASK_MB, 8, 0, id="memfd"),
        pytest.param(SYSV_MSG, 64, 1, 1, id="sysv-message-queues"),
    ],
)
def test_memory_pinned_outside_rlimit_as_stays_within_the_sandbox_bound(
    executor: BwrapExecutor, source: str, ask_mb: int, chunk_mb: int, bound_mb: int
) -> None:
    with open_session(executor, source, "pin", LIMITS) as session:
        assert session.load_error is None
        [outcome] = session.run([Call((ask_mb, chunk_mb))])
    assert outcome.ok, outcome.error
    assert int(outcome.value) <= bound_mb, f"pinned {outcome.value} MB outside RLIMIT_AS"


RAISE_LIMITS = """
def raise_limits():
    said = {}
    for name, value in (("kernel/shmmax", "68719476736"), ("kernel/shmall", "16777216"),
                        ("kernel/msgmni", "32000"), ("fs/mqueue/queues_max", "1024")):
        try:
            with open("/proc/sys/" + name, "w") as f:
                f.write(value)
            said[name] = "raised"
        except OSError as exc:
            said[name] = type(exc).__name__
    with open("/proc/sys/kernel/shmmax") as f:
        said["shmmax now"] = f.read().strip()
    return said
"""


def test_sandbox_cannot_raise_its_own_ipc_namespace_limits(executor: BwrapExecutor) -> None:
    with open_session(executor, RAISE_LIMITS, "raise_limits", LIMITS) as session:
        [outcome] = session.run([Call()])
    assert outcome.ok, outcome.error
    assert "raised" not in outcome.value, outcome.value
    assert f"'shmmax now': '{executor.shm_mb << 20}'" in outcome.value


def test_self_test_names_the_memory_bound_that_holds_a_whole_sandbox(
    executor: BwrapExecutor,
) -> None:
    if executor.cgroups is None:
        assert executor.memory_bound.startswith("no cgroup: "), executor.memory_bound
    else:
        assert executor.memory_bound.startswith("cgroup v2 per sandbox under ")


FORKED_HOGS = """
import os, time

def hog(children, mb_each):
    pids = []
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            try:
                block = bytearray(mb_each << 20)  # zero-filled: every page is touched
                block[::4096] = b"x" * len(block[::4096])
                os.write(1, b"")
                time.sleep(30)
            finally:
                os._exit(0)
        pids.append(pid)
    time.sleep(3)
    alive = sum(1 for pid in pids if os.waitpid(pid, os.WNOHANG) == (0, 0))
    return alive * mb_each
"""


def test_cgroup_bounds_the_sandbox_as_a_whole_where_one_is_delegated(
    executor: BwrapExecutor,
) -> None:
    """Eight processes of 200 MB each stay under RLIMIT_AS one by one; memory.max stops them."""
    if executor.cgroups is None:
        pytest.skip(f"this host delegates none ({executor.memory_bound})")
    with open_session(executor, FORKED_HOGS, "hog", LIMITS) as session:
        [outcome] = session.run([Call((8, 200))])
    held = int(outcome.value) if outcome.ok else 0
    assert held <= LIMITS.memory_mb + executor.tmp_mb + executor.shm_mb
