"""A file as the engine tests it: parsed (or recovered), its facts read once, where it lives
in its project; and which of its functions are tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path as FsPath

from analysis.facts.module import ModuleFacts
from analysis.scan.project import ModuleLocation, Project
from analysis.source.functions import FunctionInfo
from analysis.source.reading import ParsedModule


@dataclass
class Module:
    """One parsed file, shared by the functions tested from it."""

    path: str
    parsed: ParsedModule
    facts: ModuleFacts
    runnable: bool  # False when recovery dropped code: running what is left would mislead
    note: str | None = None
    # Where it lives in its project, when it has one: it is then imported as that module.
    project: Project | None = None
    location: ModuleLocation | None = None

    def intact(self, info: FunctionInfo) -> bool:
        """Whether a function's own lines survived recovery unchanged, so it can be run."""
        return self.runnable or not any(
            info.first_line <= n <= info.end_line for n in self.parsed.touched
        )


def is_test(path: str, info: FunctionInfo) -> bool:
    """A pytest or unittest test: `test*` functions and methods in a test module
    (`test_*.py`, `*_test.py`, `tests.py`, or under a `tests`/`test` folder)."""
    if not info.name.startswith("test"):
        return False
    parts = FsPath(path).parts
    name = parts[-1] if parts else ""
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "tests.py"
        or any(part in ("tests", "test") for part in parts[:-1])
    )
