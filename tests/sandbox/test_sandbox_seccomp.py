"""The seccomp filter inside the sandbox (issue 11, item 9).

Reproducer: before the filter, a function under test could open an AF_VSOCK socket, use the
kernel keyrings (keyctl, add_key, request_key), set up io_uring, userfaultfd, perf events and
BPF programs, and ptrace its own harness; each call below then failed (if at all) with the
kernel's ordinary errors (EINVAL, EFAULT, ESRCH, EAFNOSUPPORT), never with the filter's EPERM.
Ordinary system calls (sockets on the sandbox's own loopback, threads, fork, ctypes
callbacks) keep working. Without libseccomp the sandbox is unavailable (fails closed).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyseccomp
import pytest
from sandbox_helpers import ORDINARY_LIMITS, SANDBOX, open_session

from analysis.errors import SandboxUnavailable
from analysis.execution.process import Call
from analysis.sandbox import BwrapExecutor, seccomp, verify

pytestmark = SANDBOX

CALL = """
import ctypes, errno

def call(number, args):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    if result == -1:
        return errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())
    return "allowed"
"""

# Arguments that make each call fail harmlessly (or do nothing) when it is allowed.
DENIED_CALLS = [
    ("ptrace", (16, 999999, 0, 0)),  # PTRACE_ATTACH to no such pid: ESRCH when allowed
    ("process_vm_writev", (999999, 0, 0, 0, 0, 0)),
    ("keyctl", (0, 0, 0, 0, 0)),  # KEYCTL_GET_KEYRING_ID
    ("add_key", (0, 0, 0, 0, 0)),
    ("request_key", (0, 0, 0, 0)),
    ("io_uring_setup", (0, 0)),
    ("io_uring_enter", (-1, 0, 0, 0, 0, 0)),
    ("io_uring_register", (-1, 0, 0, 0)),
    ("userfaultfd", (0x80000,)),  # O_CLOEXEC
    ("perf_event_open", (0, 0, -1, -1, 0)),
    ("bpf", (0, 0, 0)),
    ("memfd_create", (0, 0)),
    ("memfd_secret", (0,)),
]


@pytest.mark.parametrize(("name", "args"), DENIED_CALLS, ids=[n for n, _ in DENIED_CALLS])
def test_sandbox_denies_system_call(executor: BwrapExecutor, name: str, args: tuple[int]) -> None:
    number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name)
    with open_session(executor, CALL, "call", ORDINARY_LIMITS) as session:
        [outcome] = session.run([Call((number, list(args)))])
    assert outcome.ok, outcome.error
    assert outcome.value == "'EPERM'", f"{name}: {outcome.value}"


SOCKETS = """
import socket

def open_socket(family, kind):
    try:
        socket.socket(family, kind).close()
        return "opened"
    except OSError as exc:
        return type(exc).__name__
"""


@pytest.mark.parametrize(
    ("family", "answer"),
    [(40, "PermissionError"), (1, "opened"), (2, "opened")],  # AF_VSOCK, AF_UNIX, AF_INET
    ids=["vsock-denied", "unix-allowed", "inet-allowed"],
)
def test_sandbox_denies_vsock_sockets_only(
    executor: BwrapExecutor, family: int, answer: str
) -> None:
    with open_session(executor, SOCKETS, "open_socket", ORDINARY_LIMITS) as session:
        [outcome] = session.run([Call((family, 1))])  # SOCK_STREAM
    assert outcome.value == repr(answer)


ORDINARY_WORK = """
import ctypes, os, threading

def work():
    done = []
    thread = threading.Thread(target=lambda: done.append("thread"))
    thread.start()
    thread.join()
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    done.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(
        lambda a, b: 0)  # a libffi closure: allocates executable trampolines
    done.append(compare(None, None))
    return done
"""


def test_ordinary_threads_fork_and_ctypes_callbacks_still_work(executor: BwrapExecutor) -> None:
    with open_session(executor, ORDINARY_WORK, "work", ORDINARY_LIMITS) as session:
        [outcome] = session.run([Call()])
    assert outcome.ok, outcome.error
    assert outcome.value == "['thread', 7, 0]"


def test_sandbox_is_unavailable_when_the_filter_cannot_be_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyseccomp", None)  # as if not installed
    monkeypatch.setattr(seccomp, "_program", None)  # not compiled yet in this process
    with pytest.raises(SandboxUnavailable, match="seccomp filter cannot be built"):
        verify(BwrapExecutor(slot_dir=str(tmp_path / "slots")))
