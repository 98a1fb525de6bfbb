"""A private mount namespace the sandboxes start in, kept by a small helper process.

Two things are mounted there, never on the host:

- As root, the interpreter at paths any uid can traverse. The sandbox runs under an
  unprivileged slot uid, and bwrap then resolves its bind sources with that uid's
  permissions: an interpreter installed under a private home (pyenv in /root, mode 0700) is
  out of its reach. The helper binds each needed directory onto a fresh tmpfs over /tmp,
  read-only (`staged_path`), and every sandbox is started inside with `nsenter --mount`.
- For each session that imports a project, a writable scratch view of it: an overlay whose
  lower layer is the project's copy (snapshot.py) and whose upper layer is a small tmpfs of
  the session's own. A module that writes beside itself at import (a log file) or at a call
  then works, its writes land in that tmpfs, and they are gone when the session ends: the
  checkout, the copy and every other session never see them. As an unprivileged worker the
  helper makes a user namespace of its own first (root there, our uid outside), and sessions
  that need a scratch view enter it (bounds.launcher).

The helper is started once per executor, runs only this file's code (no untrusted byte),
answers one line per request on its stdin/stdout, and ends when its stdin does: when the
executor closes it, or the worker is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from analysis.errors import SandboxUnavailable, SessionDied

STAGE_ROOT = "/tmp"  # always exists; inside the private namespace a tmpfs covers it (root)

HELPER = r"""
import ctypes, os, sys
STAGE_ROOT = "/tmp"
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWUSER = 0x20000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 0x1000, 0x4000, 0x40000
MS_REMOUNT, MNT_DETACH = 32, 2

class Failed(Exception):
    pass

def check(rc, what):
    if rc != 0:
        raise Failed("%s: %s" % (what, os.strerror(ctypes.get_errno())))

def mount(source, target, kind, flags, data):
    check(libc.mount(source, target.encode(), kind, flags, data), "mount " + target)

def write(path, text):
    with open(path, "w") as f:
        f.write(text)

def enter(privileged, scratch_root, sources):
    if privileged:
        check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    else:
        uid, gid = os.getuid(), os.getgid()
        check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare(CLONE_NEWUSER|CLONE_NEWNS)")
        write("/proc/self/setgroups", "deny")
        write("/proc/self/uid_map", "0 %d 1" % uid)
        write("/proc/self/gid_map", "0 %d 1" % gid)
    mount(b"none", "/", None, MS_REC | MS_PRIVATE, None)
    # Open the sources before the tmpfs may hide them (a prefix under /tmp stays reachable).
    fds = [os.open(s, os.O_PATH | os.O_DIRECTORY) for s in sources]
    if sources:
        mount(b"tmpfs", STAGE_ROOT, b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=64k")
    for i, fd in enumerate(fds):
        target = os.path.join(STAGE_ROOT, "codebias-stage-%d" % i)
        os.mkdir(target, 0o755)
        mount(b"/proc/self/fd/%d" % fd, target, None, MS_BIND | MS_REC, None)
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        os.close(fd)
    mount(b"tmpfs", scratch_root, b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=1m")

def open_scratch(privileged, scratch_root, number, lower, size):
    here = os.path.join(scratch_root, str(number))
    os.mkdir(here, 0o755)
    mount(b"tmpfs", here, b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=%d" % size)
    upper, work, merged = (os.path.join(here, n) for n in ("upper", "work", "merged"))
    for folder in (upper, work, merged):
        os.mkdir(folder, 0o755)
    # The merged view's root takes the upper layer's mode: slot uids must write there too.
    os.chmod(upper, 0o777 if privileged else 0o755)
    options = "lowerdir=%s,upperdir=%s,workdir=%s" % (lower, upper, work)
    if privileged:
        mount(b"overlay", merged, b"overlay", MS_NOSUID | MS_NODEV, options.encode())
    else:  # in a user namespace: overlayfs keeps its attributes in user.* xattrs
        mount(b"overlay", merged, b"overlay", MS_NOSUID | MS_NODEV,
              (options + ",userxattr").encode())
    return merged

def close_scratch(scratch_root, merged):
    here = os.path.dirname(merged)
    if os.path.dirname(here) != scratch_root:
        raise Failed("not a scratch view: " + merged)
    for target in (merged, here):
        check(libc.umount2(target.encode(), MNT_DETACH), "umount " + target)
    os.rmdir(here)

def main():
    privileged, scratch_root, sources = sys.argv[1] == "root", sys.argv[2], sys.argv[3:]
    try:
        enter(privileged, scratch_root, sources)
    except (Failed, OSError) as exc:
        print("error: %s" % exc, flush=True)
        return
    print("ready", flush=True)
    number = 0
    for line in sys.stdin:
        words = line.split()
        try:
            if words[:1] == ["open"] and len(words) == 3:
                number += 1
                merged = open_scratch(privileged, scratch_root, number, words[1], int(words[2]))
                print("ok " + merged, flush=True)
            elif words[:1] == ["close"] and len(words) == 2:
                close_scratch(scratch_root, words[1])
                print("ok", flush=True)
            else:
                print("error: unknown request", flush=True)
        except (Failed, OSError, ValueError) as exc:
            print("error: %s" % exc, flush=True)

main()
"""


def staged_path(index: int) -> str:
    return os.path.join(STAGE_ROOT, f"codebias-stage-{index}")


class Namespace:
    """The helper process and the namespaces it holds; `scratch()` and `release()` are
    thread-safe (one request at a time). `mount_ns` (and, unprivileged, `user_ns`) are fds
    the launcher enters; the scratch views live at paths inside that mount namespace."""

    def __init__(self, privileged: bool, sources: list[str], scratch_root: str) -> None:
        self.privileged = privileged
        self.scratch_root = scratch_root
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", HELPER, "root" if privileged else "user",
             scratch_root, *sources],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            cwd="/",
        )  # fmt: skip
        line = self.answer()
        if line != "ready":
            err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
            self.close()
            raise SandboxUnavailable(
                "could not make the sandboxes' private mount namespace: "
                f"{line.removeprefix('error: ') or err.strip()[-300:] or 'the helper died'}"
            )
        pid = self.proc.pid
        self.mount_ns = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
        self.user_ns = (
            None if privileged else os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
        )

    def answer(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().decode(errors="replace").strip()

    def ask(self, request: str) -> str:
        assert self.proc.stdin is not None
        with self.lock:
            try:
                self.proc.stdin.write(request.encode() + b"\n")
                self.proc.stdin.flush()
            except OSError:
                return "error: the namespace helper is gone"
            return self.answer() or "error: the namespace helper is gone"

    def scratch(self, lower: str, size: int) -> str:
        """A writable view of `lower` (a project's copy) for one session: its path in the
        namespace. Raises SessionDied when it cannot be made."""
        said = self.ask(f"open {lower} {size}")
        if not said.startswith("ok "):
            raise SessionDied(f"the project's scratch view could not be made: {said}")
        return said[3:]

    def release(self, merged: str) -> None:
        """Unmount a scratch view (and drop what the session wrote)."""
        self.ask(f"close {merged}")

    def fds(self) -> list[int]:
        return [fd for fd in (self.mount_ns, self.user_ns) if fd is not None]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
