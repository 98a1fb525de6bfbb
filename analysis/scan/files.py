"""Which files a scan reads, and where each lives: its project and its repository path.

Files named on their own are read as given; folders are walked for the Python files the
policy's `paths:` selects, leaving out the folders of tools and environments (`.venv`,
`build`, hidden folders). An exclusion that covers a named folder itself is waived for it:
`scan examples/` reads the examples that `scan .` leaves out. `force_exclude` applies the
policy's rules to named files too, as ruff's `--force-exclude` does, so that a hook handed
every changed file tests what `scan .` and the App test. A symbolic link met on a walk is
read only when it leads to a file inside the walked folder: a link to nothing, in a loop, or
to a file elsewhere (another checkout, `/etc`) is named as unreadable, and the walk goes on.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from analysis.scan.project import SKIP_DIRS, package_root
from config.discovery import repository_root
from config.policy import Policy


@dataclass(frozen=True)
class ScanFile:
    path: str  # as reported: as given, or the walked folder joined with the file's place in it
    home: Path | None  # the project it is imported in (None: a loose file, run on its own)
    repo_path: str | None  # relative to its repository's root, as a diff names it


@dataclass
class Selection:
    files: list[ScanFile] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, why not read)
    # Some file was named on its own: the scan covers only part of its repository.
    named: bool = False


def select_files(paths: Sequence[str], policy: Policy, force_exclude: bool = False) -> Selection:
    selection = Selection()
    for given in paths:
        path = Path(given)
        if path.is_file():
            selection.named = True
            home = named_home(path)
            if force_exclude and not selects(policy, within(path, home or path.parent.resolve())):
                continue
            selection.files.append(ScanFile(given, home, repository_path(path)))
        elif path.is_dir():
            walk(path, policy, selection)
        else:
            selection.problems.append((given, "no such file or directory"))
    return selection


def walk(root: Path, policy: Policy, selection: Selection) -> None:
    """The Python files under `root` that the policy selects, in order."""
    base = repository_root(root) or package_root(root / "__init__.py") or root.resolve()
    inside = root.resolve()
    repository = repository_root(root)
    paths = policy.paths.naming(inside.relative_to(base).as_posix())
    for file in sorted(root.rglob("*.py")):
        rel = file.relative_to(root)
        if skipped_folder(rel):
            continue
        place = inside / rel  # where the walk found it, links not followed
        if not paths.selects(place.relative_to(base).as_posix()):  # a `*.py` already
            continue
        if file.is_symlink():
            problem = link_problem(file, inside)
            if problem is not None:
                selection.problems.append((str(file), problem))
                continue
        elif not file.is_file():
            continue  # a folder named `x.py`: walked like any other
        repo_path = place.relative_to(repository).as_posix() if repository is not None else None
        selection.files.append(ScanFile(str(file), base, repo_path))


def link_problem(link: Path, folder: Path) -> str | None:
    """Why a symbolic link found in `folder` is not read; None when it leads to a file in it."""
    try:
        target = link.resolve(strict=True)
    except FileNotFoundError:
        return f"cannot read: a symbolic link to nothing ({os.readlink(link)})"
    except (OSError, RuntimeError) as exc:  # a loop of links, a folder that cannot be listed
        return f"cannot read: a symbolic link that does not resolve ({exc})"
    if not target.is_relative_to(folder):
        return f"cannot read: a symbolic link to {target}, outside the scanned folder"
    if not target.is_file():
        return f"cannot read: a symbolic link to {target}, which is not a file"
    return None


def named_home(file: Path) -> Path | None:
    """The project a file named on its own is imported in: its repository or its package."""
    return repository_root(file.parent) or package_root(file)


def within(file: Path, home: Path) -> str:
    return (file.parent.resolve() / file.name).relative_to(home).as_posix()


def repository_path(file: Path) -> str | None:
    """A named file's path from its repository's root (`../pricing.py` from `src/sub` is
    `src/pricing.py`), the way a diff names it; None outside any repository."""
    repository = repository_root(file.parent)
    return within(file, repository) if repository is not None else None


def selects(policy: Policy, rel: str) -> bool:
    """Whether a project-relative file is one a walk of the project reads."""
    return not skipped_folder(Path(rel)) and policy.in_scope(rel)


def skipped_folder(rel: Path) -> bool:
    """Inside a folder of tools, environments or caches (`.venv`, `build`, `.git`)."""
    return any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1])
