"""`python -m analysis.sandbox`: run the isolation self-test here; say which bounds hold.

Exit status 0 when the sandbox is usable, 1 (with the reason on stderr) when it is not. Meant
for a machine or an image before it takes work (see deploy/sandbox.md).
"""

from __future__ import annotations

import sys

from analysis.errors import SandboxUnavailable
from analysis.sandbox import BwrapExecutor, default_executor
from analysis.sandbox.bounds import ipc_limits
from analysis.sandbox.seccomp import DENIED


def main() -> int:
    try:
        executor = default_executor()
    except SandboxUnavailable as exc:
        print(f"sandbox unavailable: {exc}", file=sys.stderr)
        return 1
    assert isinstance(executor, BwrapExecutor)
    limits = dict(ipc_limits(executor.shm_mb))
    mode = "root: a host uid per sandbox" if executor.privileged else "unprivileged"
    print(f"sandbox ok ({mode}): the isolation self-test passed")
    print(f"  seccomp filter: on ({', '.join(DENIED)}, AF_VSOCK sockets denied)")
    print(
        f"  IPC namespace limits: {executor.shm_mb} MB of SysV shared memory in "
        f"{limits['kernel/shmmni']} segments, {limits['kernel/msgmni']} message queues"
    )
    print(f"  tmpfs: /tmp {executor.tmp_mb} MB, /dev/shm {executor.shm_mb} MB")
    if executor.writable_projects:
        print(
            f"  projects: a writable scratch view per session at /repo (an overlay on a "
            f"{executor.tmp_mb} MB tmpfs, dropped with the session)"
        )
    else:
        print(f"  projects: read-only at /repo ({executor.scratch_problem})")
    print(f"  memory and processes of a sandbox as a whole: {executor.memory_bound}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
