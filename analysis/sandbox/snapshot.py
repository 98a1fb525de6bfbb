"""A read-only copy of a project for sandboxes to import from.

Sandboxes see the project under test at /repo, read-only. They see a copy, not the checkout:
the copy leaves out what code under test has no business reading (`.git`, whose config can
hold a CI token, virtual environments, caches, build output) and what is too large to be
source, and it sits where a slot uid can reach it (a worker running as root starts sandboxes
under other uids, and its staging namespace covers /tmp, so the copy goes to /var/tmp then).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from analysis.project import SKIP_DIRS

MAX_FILE_BYTES = 20 << 20  # larger files are data, not source: left out
MAX_TOTAL_BYTES = 400 << 20  # a copy stops growing here; what is left out is left out


def copy_project(source: Path, target: Path) -> int:
    """Copy the project's files, world-readable, leaving out the above; returns bytes copied."""
    total = 0
    for folder, dirs, files in os.walk(source, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        out = target / here.relative_to(source)
        out.mkdir(mode=0o755, exist_ok=True)
        for name in sorted(files):
            path = here / name
            try:
                info = path.stat()  # follows links: a link to a file outside copies that file
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                continue
            if total + info.st_size > MAX_TOTAL_BYTES:
                return total
            try:
                shutil.copyfile(path, out / name)
            except OSError:
                continue
            os.chmod(out / name, 0o644)
            total += info.st_size
    return total


@contextmanager
def snapshot(
    source: Path, privileged: bool, _remove: Callable[..., None] = shutil.rmtree
) -> Iterator[str]:
    """A copy of `source` for the duration of the `with` block. (`_remove` is bound at
    definition: a snapshot left open until the interpreter exits is closed after the
    module's globals are gone.)"""
    base = "/var/tmp" if privileged and os.path.isdir("/var/tmp") else tempfile.gettempdir()
    folder = tempfile.mkdtemp(prefix="codebias-project-", dir=base)
    try:
        os.chmod(folder, 0o755)
        copy_project(source, Path(folder))
        yield folder
    finally:
        _remove(folder, ignore_errors=True)
