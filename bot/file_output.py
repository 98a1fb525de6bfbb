"""Writing a file the user named (`--output`, `fix --apply`): whole or not at all, and never
through a link someone planted.

A regular file, or one that does not exist yet, is replaced in one step: the text goes to a
new file made with O_EXCL under a random name in the same folder (so no existing file or
link is ever opened), which is then renamed over the target, keeping its permissions.
Anything else (`/dev/null`, a FIFO, a terminal) is written straight into: renaming over it
would replace the device with a file.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

NEW_FILE_MODE = 0o666  # less the umask, as any file a program creates


def output_problem(path: Path) -> str | None:
    """Why `path` cannot be written (checked before the work that fills it), or None."""
    folder = path.parent
    if path.is_dir():
        return "is a folder"
    if not folder.is_dir():
        return f"no such folder: {folder}"
    if path.exists() and not stat.S_ISREG(os.stat(path).st_mode):
        return None if os.access(path, os.W_OK) else "not writable"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot create files in {folder}"
    return None


def write_file(path: Path, text: str) -> None:
    """Write `text` to `path` as described above; OSError when it cannot be done, with
    nothing half-written and no temporary file left behind."""
    try:
        mode: int | None = os.stat(path).st_mode  # through a link: a link to /dev/null too
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        return
    temporary, fd = _new_file(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if mode is not None:
            os.chmod(temporary, stat.S_IMODE(mode))
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _new_file(path: Path) -> tuple[Path, int]:
    """A file of our own beside `path`: created by this call, never one that existed."""
    while True:
        candidate = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            return candidate, os.open(candidate, flags, NEW_FILE_MODE)
        except FileExistsError:
            continue
