"""Slots: one unprivileged uid per sandbox running at the same time, machine-wide.

A slot is held by an flock on a small file, so that every worker process on the machine (the
in-process pool, several RQ workers) agrees on who uses which uid, and a crashed worker
releases its slots with its file descriptors. Two sandboxes never share a uid: the kernel's
per-uid process count and signal permissions then stay per sandbox.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
import threading
import time
from dataclasses import dataclass, field

from analysis.errors import SandboxUnavailable, SessionDied


@dataclass
class Slot:
    index: int
    uid: int
    fd: int
    released: bool = field(default=False)

    def release(self) -> None:
        if not self.released:
            self.released = True
            os.close(self.fd)  # closing the descriptor drops the flock


class SlotPool:
    """`count` uids starting at `uid_base`, handed out through flocks under `directory`."""

    def __init__(self, uid_base: int, count: int, directory: str | None = None) -> None:
        self.uid_base = uid_base
        self.count = count
        self.directory = directory or os.path.join(
            tempfile.gettempdir(), f"codebias-sandbox-slots-{os.geteuid()}"
        )
        self.lock = threading.Lock()
        self.next = 0

    def prepare(self) -> None:
        try:
            os.mkdir(self.directory, 0o700)
        except FileExistsError:
            pass
        info = os.lstat(self.directory)
        # Somebody else's directory (or a symlink planted in /tmp) could hand our slots to them.
        if (
            not stat.S_ISDIR(info.st_mode)
            or info.st_uid != os.geteuid()
            or info.st_mode & 0o077
        ):
            raise SandboxUnavailable(
                f"the slot directory {self.directory} is not a private directory of uid "
                f"{os.geteuid()}; remove it or choose another"
            )

    def acquire(self, timeout: float) -> Slot:
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                start = self.next
                self.next = (self.next + 1) % self.count
            for k in range(self.count):
                index = (start + k) % self.count
                slot = self.try_take(index)
                if slot is not None:
                    return slot
            if time.monotonic() >= deadline:
                raise SessionDied(
                    f"all {self.count} sandbox slots stayed busy for {timeout:.0f}s"
                )
            time.sleep(0.02)

    def try_take(self, index: int) -> Slot | None:
        path = os.path.join(self.directory, f"slot-{index}.lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return None
            raise
        return Slot(index=index, uid=self.uid_base + index, fd=fd)
