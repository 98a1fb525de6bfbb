"""Which `.codebias.yml` a local run uses, found the way ruff and mypy find their settings.

From each scanned path (a file's folder, or the folder given) up to the root of its
repository (the first folder holding `.git` or `.hg`; the filesystem's root outside any
repository), the first `.codebias.yml` is the one. Paths whose searches end at different
files (or some at a file and some at none) cannot share one policy: that is an error that
says so, never a silent choice. The App reads the repository's file from its default branch
instead (config.layering); this module is for the command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from config.layering import CONFIG_PATH
from config.policy import PolicyError

REPOSITORY_MARKERS = (".git", ".hg")
# Names people give the file by mistake: seen on the way up, they get a warning.
MISNAMED = (".codebias.yaml", "codebias.yml", "codebias.yaml")


@dataclass(frozen=True)
class Found:
    config: Path | None  # None: no file from here to the repository's root
    misnamed: tuple[Path, ...] = ()


@dataclass
class Discovery:
    """The file every scanned path agrees on (None: built-in defaults), and warnings."""

    config: Path | None
    warnings: list[str] = field(default_factory=list)


def repository_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` that holds a .git or .hg (a checkout's root)."""
    for candidate in [folder.resolve(), *folder.resolve().parents]:
        if any((candidate / marker).exists() for marker in REPOSITORY_MARKERS):
            return candidate
    return None


def find_config(path: Path) -> Found:
    """The first `.codebias.yml` from `path` up to its repository's root."""
    folder = (path if path.is_dir() else path.parent).absolute()
    misnamed: list[Path] = []
    for current in (folder, *folder.parents):
        candidate = current / CONFIG_PATH
        if candidate.is_file():
            return Found(candidate, tuple(misnamed))
        misnamed += [current / name for name in MISNAMED if (current / name).is_file()]
        if any((current / marker).exists() for marker in REPOSITORY_MARKERS):
            break
    return Found(None, tuple(misnamed))


def discover(paths: Sequence[str]) -> Discovery:
    """The configuration the scanned `paths` share; PolicyError when they do not share one.

    Paths that do not exist are left to the scan, which reports them."""
    found: dict[Path | None, list[str]] = {}
    warnings: list[str] = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            continue
        result = find_config(path)
        found.setdefault(result.config, []).append(given)
        for wrong in result.misnamed:
            note = f"{shown(wrong)} is not read: the file must be named {CONFIG_PATH}"
            if note not in warnings:
                warnings.append(note)
    if len(found) > 1:
        parts = [
            f"{shown(config) if config else 'no ' + CONFIG_PATH} for {', '.join(given)}"
            for config, given in found.items()
        ]
        raise PolicyError(
            "the scanned paths do not share one configuration ("
            + "; ".join(parts)
            + "): scan them separately, or choose one with --config FILE (--no-config: "
            "the built-in defaults)"
        )
    config = next(iter(found), None)
    return Discovery(config, warnings)


def shown(path: Path) -> str:
    """Relative to the working directory when below it, as a user would type it."""
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()
