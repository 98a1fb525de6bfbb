"""A copy of a project for sandboxes to import from.

Sandboxes see the project under test at /repo. They see a copy, not the checkout: the copy
leaves out what code under test has no business reading (`.git`, whose config can hold a CI
token, virtual environments, caches, build output) and what is too large to be source, and
it sits where the sandboxes' view of it can be built (a worker running as root starts
sandboxes under other uids, and its staging namespace covers /tmp, so the copy goes to
/var/tmp then).

The checkout is the pull request's: every name in it is chosen by its author. So the copy
never follows a link (a link to `/proc/self/environ` or to a file only the worker may read
would put the worker's secrets in /repo): a link that stays in the project is copied as the
link it is, and one that leaves it is left out. Folders are opened one below the other
without following links, files are opened without following links and without blocking (a
FIFO), only regular files are copied, and each is counted by the bytes actually read (a file
of /proc says it has 0 bytes and reads without end). What was left out is said
(`Copy.note()`).
"""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from analysis.scan.project import SKIP_DIRS

MAX_FILE_BYTES = 20 << 20  # larger files are data, not source: left out
MAX_TOTAL_BYTES = 400 << 20  # a copy stops growing here; what is left out is left out
CHUNK = 1 << 18
DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
SHOWN = 5  # names a note lists of each kind
MAX_DEPTH = 128  # folders below the project's; deeper ones are left out


@dataclass
class Copy:
    """What a copy holds and what it left out (paths relative to the project, `/`-separated)."""

    bytes: int = 0
    links_out: list[str] = field(default_factory=list)  # links that leave the project
    special: list[str] = field(default_factory=list)  # FIFOs, sockets, devices
    too_large: list[str] = field(default_factory=list)  # over MAX_FILE_BYTES, as read
    unreadable: list[str] = field(default_factory=list)
    full: bool = False  # MAX_TOTAL_BYTES reached: what came after was left out
    folder_mode: int = 0o755
    file_mode: int = 0o644

    def note(self) -> str:
        """What the copy left out, in words ("" when nothing was)."""
        kinds = [
            (self.links_out, "links that leave the project (never followed)"),
            (self.special, "files that are not regular files"),
            (self.too_large, f"files over {MAX_FILE_BYTES >> 20} MB"),
            (self.unreadable, "files that could not be read"),
        ]
        said = [f"{len(names)} {what}: {listed(names)}" for names, what in kinds if names]
        if self.full:
            said.append(f"everything after the first {MAX_TOTAL_BYTES >> 20} MB")
        if not said:
            return ""
        return "the sandbox's copy of the project leaves out " + "; ".join(said)


def listed(names: list[str]) -> str:
    shown = ", ".join(sorted(names)[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def stays_inside(relative: str, target: str) -> bool:
    """Whether a link at `relative` (in the project) pointing at `target` stays in it."""
    if posixpath.isabs(target):
        return False
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(relative), target))
    return resolved != ".." and not resolved.startswith("../")


def copy_file(source_fd: int, target_fd: int, limit: int = MAX_FILE_BYTES) -> int | None:
    """Copy an open file into another, counting what is read: the bytes copied, or None once
    it reads more than `limit` (what was written is then the caller's to remove)."""
    copied = 0
    while chunk := os.read(source_fd, CHUNK):
        copied += len(chunk)
        if copied > limit:
            return None
        view = memoryview(chunk)
        while view:
            view = view[os.write(target_fd, view) :]
    return copied


@dataclass
class Folder:
    """A folder being copied: open, so that what is below it is opened relative to it."""

    fd: int
    relative: str
    entries: Iterator[Folder] = field(default_factory=lambda: iter(()))


def copy_project(
    source: Path, target: Path, folder_mode: int = 0o755, file_mode: int = 0o644
) -> Copy:
    """Copy the project's files, as the module docstring says, with these modes (whatever
    the umask: sandboxes run under other uids)."""
    made = Copy(folder_mode=folder_mode, file_mode=file_mode)
    # One folder open per level of depth: a folder is closed once its entries are done.
    root = Folder(os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), "")
    root.entries = copy_folder(root, target, made)
    stack = [root]
    try:
        while stack:
            below = next(stack[-1].entries, None)
            if below is None:
                os.close(stack.pop().fd)
            elif len(stack) < MAX_DEPTH:
                below.entries = copy_folder(below, target, made)
                stack.append(below)
            else:
                os.close(below.fd)
                made.unreadable.append(f"{below.relative} (more than {MAX_DEPTH} folders deep)")
    finally:
        for folder in stack:
            os.close(folder.fd)
    return made


def copy_folder(folder: Folder, target: Path, made: Copy) -> Iterator[Folder]:
    """Copy one folder's files and links; yield each folder below it, opened."""
    out = target / folder.relative
    out.mkdir(exist_ok=True)
    if folder.relative:  # the copy's own folder keeps the mode snapshot() gave it
        out.chmod(made.folder_mode)
    with os.scandir(folder.fd) as scan:
        entries = sorted(scan, key=lambda e: e.name)
    for entry in entries:
        path = posixpath.join(folder.relative, entry.name)
        if entry.is_symlink():
            link = os.readlink(entry.name, dir_fd=folder.fd)
            if stays_inside(path, link):
                os.symlink(link, out / entry.name)
            else:
                made.links_out.append(path)
        elif entry.is_dir(follow_symlinks=False):
            if entry.name in SKIP_DIRS or entry.name.startswith("."):
                continue
            try:
                yield Folder(os.open(entry.name, DIRECTORY, dir_fd=folder.fd), path)
            except OSError:
                made.unreadable.append(path)
        elif not entry.is_file(follow_symlinks=False):
            made.special.append(path)
        elif not made.full:
            copy_entry(folder.fd, entry.name, path, out / entry.name, made)


def copy_entry(folder: int, name: str, path: str, out: Path, made: Copy) -> None:
    """Copy one regular file, by what it reads, within the room the copy has left."""
    room = MAX_TOTAL_BYTES - made.bytes
    try:
        copied = copy_regular(folder, name, out, min(MAX_FILE_BYTES, room), made.file_mode)
    except OSError:
        out.unlink(missing_ok=True)
        made.unreadable.append(path)
        return
    if copied is None:
        made.special.append(path)  # replaced by something else since it was listed
    elif copied < 0:
        out.unlink(missing_ok=True)
        if room < MAX_FILE_BYTES:
            made.full = True
        else:
            made.too_large.append(path)
    else:
        made.bytes += copied


def copy_regular(folder: int, name: str, out: Path, limit: int, mode: int) -> int | None:
    """The bytes copied; -1 when the file reads more than `limit`; None if not regular."""
    fd = os.open(name, FILE, dir_fd=folder)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        written = os.open(out, NEW_FILE, 0o600)
        try:
            os.fchmod(written, mode)
            copied = copy_file(fd, written, limit)
        finally:
            os.close(written)
    finally:
        os.close(fd)
    return -1 if copied is None else copied


def copy_base(privileged: bool) -> str:
    """Where copies go: as root, away from the /tmp its staging namespace covers."""
    return "/var/tmp" if privileged and os.path.isdir("/var/tmp") else tempfile.gettempdir()


@contextmanager
def snapshot(
    source: Path,
    privileged: bool,
    writable: bool = False,
    _remove: Callable[..., None] = shutil.rmtree,
) -> Iterator[tuple[str, Copy]]:
    """A copy of `source` for the duration of the `with` block, and what it left out.

    `writable`: sessions see it through a scratch view (staging.py), whose lower layer it
    is. As root they run under other uids, which may write there only if the copy's folders
    and files let everyone write; its top folder then lets nobody but us in (the sandboxes
    reach the copy through the view, never by its path). (`_remove` is bound at
    definition: a snapshot left open until the interpreter exits is closed after the
    module's globals are gone.)"""
    folder = tempfile.mkdtemp(prefix="codebias-project-", dir=copy_base(privileged))
    shared = privileged and writable
    try:
        # Slot uids reach the copy by its path only when they bind it read-only themselves.
        os.chmod(folder, 0o755 if privileged and not writable else 0o700)
        made = copy_project(
            source, Path(folder), 0o777 if shared else 0o755, 0o666 if shared else 0o644
        )
        yield folder, made
    finally:
        _remove(folder, ignore_errors=True)
