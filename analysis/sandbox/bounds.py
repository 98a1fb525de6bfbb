"""Memory a sandbox could pin outside RLIMIT_AS, and the bound on each kind.

RLIMIT_AS counts the mappings of one process. What outlives a mapping, or never needs one:
- SysV shared memory, message queues and semaphores, POSIX message queues: they belong to the
  IPC namespace and stay after every process detached (`shmget` + `shmat` + `shmdt` pins the
  pages). Each sandbox gets a fresh IPC namespace whose limits (below) the launcher writes
  before bwrap starts; bwrap then does not unshare IPC again, so the sandbox lives in ours,
  and sees /proc/sys read-only, so it cannot raise them.
- memfd (`memfd_create` + `write`/`ftruncate`): no mapping, no tmpfs mount; only RLIMIT_FSIZE
  per file. Denied by the seccomp filter (seccomp.py).
- files in /tmp and /dev/shm (`O_TMPFILE`, `shm_open`): size-limited tmpfs mounts (bwrap.py).
- everything together, across processes (RLIMIT_AS is per process, times RLIMIT_NPROC), and
  kernel memory (page tables, socket buffers): only a cgroup, where the host delegates one
  (cgroups.py); the launcher moves itself into the slot's cgroup before it execs bwrap.

Who may set an IPC namespace's limits: the uid that is root in the user namespace owning it.
As root, `unshare --ipc` makes one owned by the host's root, whom the sandbox never is. As an
unprivileged worker, `unshare --user --map-root-user --ipc` makes one owned by a user
namespace of our own, mapping root to our uid; bwrap then runs inside it (its own user
namespace nests in ours), and the sandbox's uid is also ours on the host: hence /proc/sys
read-only inside. Either way the writes happen in a process that runs no untrusted code.
"""

from __future__ import annotations

import os
import shutil

MB = 1 << 20
PAGE = os.sysconf("SC_PAGE_SIZE")

# The launcher: join the cgroup (if any), write the limits, exec the rest (nsenter or bwrap).
# `set -e`: any failed write ends it, with the shell's message on stderr, before bwrap runs.
LAUNCHER = """set -e
[ -z "$1" ] || echo $$ >"$1"
shift
while [ "$1" != -- ]; do printf '%s\\n' "$2" >"/proc/sys/$1"; shift 2; done
shift
exec "$@"
"""


def ipc_limits(shm_mb: int) -> tuple[tuple[str, str], ...]:
    """/proc/sys names and values for one sandbox's IPC namespace."""
    return (
        ("kernel/shmmax", str(shm_mb * MB)),  # bytes in one segment
        ("kernel/shmall", str(shm_mb * MB // PAGE)),  # pages in all segments together
        ("kernel/shmmni", "16"),  # segments
        ("kernel/msgmni", "16"),  # message queues (x msgmnb, 16 KiB each by default)
        ("kernel/msgmnb", "16384"),
        ("kernel/sem", "64 256 32 16"),  # per set, in all, per semop, sets
        ("fs/mqueue/queues_max", "4"),
        ("fs/mqueue/msg_max", "10"),
        ("fs/mqueue/msgsize_max", "8192"),
    )


def launcher(
    privileged: bool,
    cgroup_procs: str,
    limits: tuple[tuple[str, str], ...],
    user_namespace: tuple[str, str] | None = None,
) -> list[str]:
    """argv prefix that runs the rest of the command in a fresh, limited IPC namespace.

    `user_namespace` (unprivileged only): the (user, mount) namespace files of the helper
    that holds the sessions' scratch views (staging.py), entered first: we are root there,
    as in a user namespace of our own, and the scratch views are mounted there."""
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    argv = []
    if user_namespace is not None:
        user, mount = user_namespace
        # --preserve-credentials: our uid is root there already; setgroups is denied there.
        argv += [shutil.which("nsenter") or "/usr/bin/nsenter", "--preserve-credentials"]
        argv += [f"--user={user}", f"--mount={mount}", "--"]
    argv += [unshare, "--ipc"]
    if not privileged and user_namespace is None:
        argv += ["--user", "--map-root-user"]
    argv += ["--", "/bin/sh", "-c", LAUNCHER, "codebias-launcher", cgroup_procs]
    for name, value in limits:
        argv += [name, value]
    return argv + ["--"]
