"""Unpack an sdist without trusting it, on every Python 3.11 (stdlib only).

`tarfile`'s "data" extraction filter (refuses absolute paths, `..`, links out of the tree and
devices; drops owners and setuid bits) came in 3.11.4; Debian 12's python3 is 3.11.2, where
`extractall(filter=...)` is a TypeError. The same rules are checked here on every member
before anything is written, and the filter is still applied where the interpreter has it.
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path, PurePosixPath


class UnsafeArchive(ValueError):
    """A member that would write outside the target folder, or is no file, folder or link."""


def extract(archive: Path, into: Path) -> None:
    """Unpack `archive` into the folder `into`, or raise UnsafeArchive and write nothing."""
    root = into.resolve()
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        for member in members:
            check(member, root)
        if hasattr(tarfile, "data_filter"):
            tar.extractall(root, members, filter="data")
            return
        for member in members:
            # What the data filter does to what it lets through: no owner from the archive
            # (as root, extractall would chown to it), no setuid, setgid or group/other write.
            member.uid, member.gid, member.uname, member.gname = os.getuid(), os.getgid(), "", ""
            member.mode &= 0o755
        tar.extractall(root, members)


def check(member: tarfile.TarInfo, root: Path) -> None:
    name = PurePosixPath(member.name)
    if name.is_absolute() or ".." in name.parts:
        raise UnsafeArchive(f"{member.name}: a path outside the archive's folder")
    if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
        raise UnsafeArchive(f"{member.name}: not a file, folder or link")
    if member.issym() or member.islnk():
        # A symlink's target is relative to its own folder; a hard link's to the archive's top.
        start = root / name.parent if member.issym() else root
        target = (start / member.linkname).resolve()
        if member.linkname.startswith("/") or not target.is_relative_to(root):
            raise UnsafeArchive(f"{member.name}: a link to {member.linkname}, outside the archive")
