"""A private mount namespace that shows the interpreter at paths any uid can traverse.

When the worker runs as root, the sandbox runs under an unprivileged slot uid, and bwrap then
resolves its bind sources with that uid's permissions. An interpreter installed under a
private home (pyenv in /root, mode 0700) is out of its reach. Rather than open up the host's
directories, a short-lived helper (root) creates a mount namespace once, binds each needed
directory onto a fresh tmpfs there, and leaves; we keep the namespace alive through a file
descriptor and start every sandbox inside it with `nsenter --mount`. The host's own mounts
are never changed.
"""

from __future__ import annotations

import os
import subprocess
import sys

from analysis.errors import SandboxUnavailable

STAGE_ROOT = "/tmp"  # always exists; inside the private namespace a tmpfs covers it

STAGER = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, MS_RDONLY, MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = (
    0x20000, 1, 2, 4, 0x1000, 0x4000, 0x40000)
MS_REMOUNT = 32

def check(rc, what):
    if rc != 0:
        err = ctypes.get_errno()
        sys.stdout.write("error: %s: %s\n" % (what, os.strerror(err)))
        sys.stdout.flush()
        os._exit(1)

root, sources = sys.argv[1], sys.argv[2:]
check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
# Open the sources before the tmpfs may hide them (a prefix under /tmp stays reachable).
fds = [os.open(s, os.O_PATH | os.O_DIRECTORY) for s in sources]
check(libc.mount(b"tmpfs", root.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                 b"mode=0755,size=64k"), "tmpfs on " + root)
for i, fd in enumerate(fds):
    target = os.path.join(root, "codebias-stage-%d" % i).encode()
    os.mkdir(target, 0o755)
    check(libc.mount(b"/proc/self/fd/%d" % fd, target, None, MS_BIND | MS_REC, None), "bind")
    check(libc.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None), "read-only")
sys.stdout.write("ready\n")
sys.stdout.flush()
sys.stdin.read()  # hold the namespace until the parent has a descriptor for it
"""


def staged_path(index: int) -> str:
    return os.path.join(STAGE_ROOT, f"codebias-stage-{index}")


def create_namespace(sources: list[str]) -> int:
    """Stage `sources` (directories) and return an fd of the namespace; see staged_path()."""
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", STAGER, STAGE_ROOT, *sources],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        cwd="/",
    )
    assert proc.stdout is not None and proc.stdin is not None
    try:
        line = proc.stdout.readline().decode(errors="replace").strip()
        if line != "ready":
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise SandboxUnavailable(
                "could not stage the interpreter in a private mount namespace: "
                f"{line or err.strip()[-300:] or 'the helper died'}"
            )
        return os.open(f"/proc/{proc.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
