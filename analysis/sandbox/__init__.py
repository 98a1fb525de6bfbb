"""Isolated execution of untrusted functions.

    default_executor()                 a BwrapExecutor whose isolation was proven here (cached
                                       self-test), or SandboxUnavailable with the reason
    default_executor(trust_code=True)  rlimits only, for code the user owns; warns loudly
    default_executor(interpreter=...)  the code under test runs with that Python (--python)
    BwrapExecutor(...)                 bubblewrap sandboxes, one uid slot each (bwrap.py)

Modules: bwrap (executor and session), layout (what the sandbox sees), slots (uids per
concurrent sandbox), staging (root only: the interpreter reachable by slot uids), bounds
(memory outside RLIMIT_AS: IPC namespace limits, the launcher), seccomp (the filter), cgroups
(a cgroup per slot where one is delegated), selftest; `python -m analysis.sandbox` checks a
machine.
"""

from __future__ import annotations

import sys
import threading

from analysis.errors import SandboxUnavailable
from analysis.execution.interpreter import Interpreter, current_interpreter
from analysis.execution.process import Executor, ProcessExecutor
from analysis.sandbox.bwrap import BwrapExecutor, BwrapSession
from analysis.sandbox.selftest import CACHE

__all__ = [
    "BwrapExecutor",
    "BwrapSession",
    "SandboxUnavailable",
    "default_executor",
    "verify",
]

TRUST_WARNING = (
    "WARNING: --trust-code: functions run WITHOUT a sandbox (resource limits only). They can "
    "read and write your files, use your network and see your environment. Use this only "
    "for code you wrote yourself; never for pull requests or in the service.\n"
)


def verify(executor: BwrapExecutor) -> BwrapExecutor:
    """Run (once per configuration and process) the isolation self-test, or raise."""
    key = (
        executor.interpreter,
        executor.bwrap,
        executor.privileged,
        executor.pool.uid_base,
        executor.pool.directory,
        executor.tmp_mb,
        executor.shm_mb,
    )
    CACHE.check(key, executor)
    return executor


_shared: dict[Interpreter, BwrapExecutor] = {}
_shared_lock = threading.Lock()


def default_executor(trust_code: bool = False, interpreter: Interpreter | None = None) -> Executor:
    """The executor the engine uses: sandboxed and self-tested, unless trust_code is asked.
    `interpreter`: the Python the code under test runs with (default: codebias's own).

    One BwrapExecutor per interpreter and process, shared by every engine and thread: it is
    thread-safe, and its staging namespace and slot pool are per machine state, not per scan.
    """
    if trust_code:
        sys.stderr.write(TRUST_WARNING)
        sys.stderr.flush()
        return ProcessExecutor(interpreter)
    interpreter = interpreter or current_interpreter()
    with _shared_lock:
        if interpreter not in _shared:
            _shared[interpreter] = BwrapExecutor(interpreter=interpreter)
        executor = _shared[interpreter]
    return verify(executor)
