"""codebias's own pytest, lent to a recording whose environment has none.

A project installed without its development dependencies (an sdist's runtime ones, an App
review's bare checkout) has test files but no pytest to run them: its tests, the best
source of its functions' calls, would be reported `not run`. The recording then takes a copy
of the pytest codebias runs on (with what pytest imports) in its evidence folder, which the
sandbox shows read-only, and the recorder imports it from there only when the project's
environment has none (harness/recorder.py). Only for a recording that is not a gamble (a
function recorded has a protected input of its own): a general library's suite run for
functions of unknown inputs costs more than it may teach; nor for a suite of more than
MAX_LENT_TEST_FILES files (one that large ships its own environment). A pytest that does
not import on the project's Python (too old a version) leaves the tests `not run`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from analysis.evidence.entrypoints import EntryPoint
    from analysis.evidence.recording import RecordingTarget

# pytest and what it imports (`py` is pytest's own shim module; the last three only where
# an older Python or Windows wants them, taken when they are here).
# A suite of more test files ships with its own development environment (a general
# library's: botocore's 116 files took 30 s and taught nothing): not run on a lent pytest.
MAX_LENT_TEST_FILES = 30
PACKAGES = (
    "pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments",
    "exceptiongroup", "tomli", "colorama",
)  # fmt: skip
FOLDER = "pytest-lib"


def lend_pytest(folder: str) -> str | None:
    """Copy pytest into `folder`/FOLDER; the name of the copy inside `folder`, or None when
    codebias's environment has no pytest either."""
    target = Path(folder) / FOLDER
    copied = False
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        if spec.submodule_search_locations:
            shutil.copytree(origin.parent, target / name, copy_function=link, dirs_exist_ok=True)
        else:
            target.mkdir(parents=True, exist_ok=True)
            link(str(origin), str(target / origin.name))
        copied = copied or name == "pytest"
    return FOLDER if copied else None


def link(source: str, destination: str) -> None:
    """A hard link where the two folders share a file system (pytest and pygments are 14 MB
    of files), else a copy."""
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def lendable(targets: list[RecordingTarget], entries: list[EntryPoint]) -> bool:
    """Whether a recording without pytest gets codebias's: not a gamble (a function recorded
    has a protected input of its own), and no test run of more than MAX_LENT_TEST_FILES."""
    if all(target.speculative for target in targets):
        return False
    runs = [entry for entry in entries if entry.kind == "pytest"]
    return not any(len(entry.args) > MAX_LENT_TEST_FILES for entry in runs)
