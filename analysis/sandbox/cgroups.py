"""A cgroup v2 per sandbox slot (memory.max, pids.max), where the host delegates one to us.

rlimits bound each process; only a cgroup bounds a sandbox as a whole: every process of it,
the memory it pins in the kernel (page cache, tmpfs, SysV segments, socket buffers, page
tables) and its process count. We use one only where it is ours to use:
- a cgroup marked delegated by systemd (`Delegate=yes`: the `trusted.delegate` or
  `user.delegate` extended attribute), or
- the root of our cgroup namespace when it is not the hierarchy's root: what a container
  runtime hands a container;
and only if it is writable and offers the `memory` and `pids` controllers. Elsewhere (a login
shell's scope, a read-only /sys/fs/cgroup, cgroup v1) nothing is touched and the reason is
reported by the self-test.

Layout, following the cgroup v2 rule that only leaves hold processes:
    <delegated>/codebias-worker/   the worker processes (moved there once)
    <delegated>/codebias-slot-N/   sandbox slot N: memory.max, memory.swap.max, pids.max
The launcher (bounds.py) writes its own pid into the slot's cgroup.procs before it execs bwrap,
so that every process of the sandbox starts inside it.
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass

WORKER_LEAF = "codebias-worker"
SLOT_PREFIX = "codebias-slot-"
CONTROLLERS = ("memory", "pids")
DELEGATION_MARKS = ("trusted.delegate", "user.delegate")


class NotDelegated(Exception):
    """No cgroup of ours to bound sandboxes with; the message says why."""


@dataclass(frozen=True)
class SlotCgroups:
    base: str  # the delegated cgroup: its children have the memory and pids controllers

    def prepare(self, index: int, memory_bytes: int, processes: int) -> str:
        """Set slot `index`'s limits for the next sandbox; the cgroup.procs file to join."""
        path = os.path.join(self.base, f"{SLOT_PREFIX}{index}")
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            pass
        write(os.path.join(path, "memory.max"), str(memory_bytes))
        write(os.path.join(path, "pids.max"), str(processes))
        # Swapping out would let a sandbox hold more than memory.max; one OOM kills it all.
        for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
            if os.path.exists(os.path.join(path, name)):
                write(os.path.join(path, name), value)
        return os.path.join(path, "cgroup.procs")


def write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def read(path: str) -> str:
    with open(path, encoding="ascii") as f:
        return f.read()


def unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as octal (\\040)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def own_directory(self_cgroup: str, mountinfo: str) -> tuple[str, str]:
    """Our cgroup v2 directory, and its path inside our cgroup namespace."""
    path = next((line[3:] for line in self_cgroup.splitlines() if line.startswith("0::")), None)
    if path is None:
        raise NotDelegated("no cgroup v2 hierarchy here (cgroup v1 only)")
    for line in mountinfo.splitlines():
        fields = line.split(" ")
        if " - cgroup2 " not in line or len(fields) < 5:
            continue
        root, mountpoint = unescape(fields[3]), unescape(fields[4])
        if path == root or path.startswith(root.rstrip("/") + "/"):
            return os.path.normpath(mountpoint + "/" + path[len(root) :]), path
    raise NotDelegated(f"our cgroup {path} is not under a mounted cgroup v2 hierarchy")


def delegated(directory: str, namespace_path: str) -> bool:
    if namespace_path == "/" and os.path.exists(os.path.join(directory, "cgroup.type")):
        return True  # the root of our cgroup namespace, and not the hierarchy's (no cgroup.type)
    for mark in DELEGATION_MARKS:
        try:
            if os.getxattr(directory, mark) == b"1":
                return True
        except OSError:
            continue
    return False


def take(directory: str, namespace_path: str) -> SlotCgroups:
    """Slot cgroups under `directory` (our own cgroup), or NotDelegated with the reason."""
    base, path = directory, namespace_path
    if os.path.basename(directory) == WORKER_LEAF:  # moved there earlier, or inherited
        base, path = os.path.dirname(directory), os.path.dirname(namespace_path)
    if not os.path.exists(os.path.join(base, "cgroup.type")):
        raise NotDelegated(
            f"the worker runs in the root cgroup ({base}): start it in a delegated cgroup"
        )
    if not delegated(base, path):
        raise NotDelegated(
            f"{base} is not delegated to the worker (systemd Delegate=yes, or a container's "
            "own cgroup namespace)"
        )
    available = read(os.path.join(base, "cgroup.controllers")).split()
    missing = [c for c in CONTROLLERS if c not in available]
    if missing:
        raise NotDelegated(f"{base} does not offer the {' and '.join(missing)} controller")
    for name in ("cgroup.procs", "cgroup.subtree_control"):
        if not os.access(os.path.join(base, name), os.W_OK):
            raise NotDelegated(f"{base}/{name} is not writable by uid {os.geteuid()}")
    if not set(CONTROLLERS) <= set(read(os.path.join(base, "cgroup.subtree_control")).split()):
        enable(base)
    return SlotCgroups(base)


def enable(base: str) -> None:
    """Give `base`'s children the controllers; its processes move to a leaf first (v2 rule)."""
    leaf = os.path.join(base, WORKER_LEAF)
    try:
        os.mkdir(leaf, 0o755)
    except FileExistsError:
        pass
    for _attempt in range(3):
        for pid in read(os.path.join(base, "cgroup.procs")).split():
            try:
                write(os.path.join(leaf, "cgroup.procs"), pid)
            except ProcessLookupError:
                continue  # exited meanwhile
        try:
            write(os.path.join(base, "cgroup.subtree_control"), "+memory +pids")
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:  # EBUSY: a process arrived meanwhile; move it too
                raise
    raise NotDelegated(f"{base} keeps gaining processes; cannot enable its controllers")


def detect() -> tuple[SlotCgroups | None, str]:
    """The slot cgroups to use, or None; and in words, which bound this is or why none."""
    try:
        directory, path = own_directory(read("/proc/self/cgroup"), read("/proc/self/mountinfo"))
        cgroups = take(directory, path)
    except NotDelegated as exc:
        return None, f"no cgroup: {exc}"
    except OSError as exc:
        return None, f"no cgroup: {exc.filename or ''}: {exc.strerror}"
    return cgroups, f"cgroup v2 per sandbox under {cgroups.base} (memory.max, pids.max)"
