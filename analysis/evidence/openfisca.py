"""An OpenFisca country package's YAML tests, as an entry point of the recording.

OpenFisca formulas (`def formula(person, period, parameters)` on `Variable` classes) are
called by the framework alone: nothing in the project calls them by name. A country package
tests them with YAML files (`tests/**/*.yaml`, each a list of cases with `period`, `input`,
`output`) that `openfisca test` runs; the recorder runs those files the same way
(harness/recorder.py: openfisca_core's test runner over the package's
`CountryTaxBenefitSystem`), so every formula a case computes is recorded with the
population, period and parameters the case built.

Found from the files, never imported: a package whose `__init__` defines
`CountryTaxBenefitSystem` and imports openfisca_core (what `openfisca test` looks for), one of
the modules under test inside it, and YAML files in a test folder that hold cases.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from analysis.scan.project import SKIP_DIRS, Project


class ProjectFiles(Protocol):
    """What is read here of the project's Python files (entrypoints.ProjectFiles, typed by
    what it offers so that neither module imports the other)."""

    files: list[str]

    def text(self, relative: str) -> bytes: ...

    def tree(self, relative: str) -> ast.Module | None: ...

COUNTRY_CLASS = "CountryTaxBenefitSystem"
TEST_DIRS = frozenset({"tests", "test"})
YAML_SUFFIXES = (".yaml", ".yml")
MAX_YAML_FILES = 300
MAX_YAML_BYTES = 1_000_000
COUNTRY_OPTIONS = frozenset({"-c", "--country-package"})
# Any other option but verbosity (extensions, reforms, filters: a run the recorder does not
# make) leaves the command out.
QUIET_OPTIONS = frozenset({"-v", "--verbose"})


@dataclass(frozen=True)
class YamlTests:
    """What `openfisca test` runs: the country package ("": the one openfisca_core detects)
    and the YAML files or folders, relative to the project."""

    country: str
    paths: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"openfisca test ({len(self.paths)} YAML paths)"


def find_yaml_tests(project: Project, files: ProjectFiles, wanted: set[str]) -> YamlTests | None:
    """The YAML tests of the country package that holds a module under test, if any."""
    for relative in files.files:
        if Path(relative).name != "__init__.py" or not defines_country(files, relative):
            continue
        location = project.locate(project.root / relative)
        if location is None:
            continue
        country = location.name
        if not any(m == country or m.startswith(country + ".") for m in wanted):
            continue
        paths = tuple(test_cases(project.root))
        return YamlTests(country, paths) if paths else None
    return None


def defines_country(files: ProjectFiles, relative: str) -> bool:
    """The file imports openfisca_core and defines the class `openfisca test` builds."""
    text = files.text(relative)
    if COUNTRY_CLASS.encode() not in text or b"openfisca_core" not in text:
        return False
    tree = files.tree(relative)
    return tree is not None and any(
        isinstance(node, ast.ClassDef) and node.name == COUNTRY_CLASS for node in tree.body
    )


def test_cases(root: Path) -> list[str]:
    """YAML files under a test folder that hold OpenFisca cases (`output` beside `input` or
    `period`), relative, in order."""
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        parts = Path(folder).relative_to(root).parts
        if not TEST_DIRS.intersection(parts):
            continue
        for name in sorted(names):
            path = Path(folder) / name
            if not name.endswith(YAML_SUFFIXES) or path.is_symlink() or not is_cases(path):
                continue
            found.append(path.relative_to(root).as_posix())
            if len(found) >= MAX_YAML_FILES:
                return found
    return found


def is_cases(path: Path) -> bool:
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            return False
        text = path.read_bytes()
    except OSError:
        return False
    return b"output:" in text and (b"input:" in text or b"period:" in text)


def openfisca_command(words: list[str]) -> YamlTests | None:
    """`openfisca test [-c PACKAGE] PATHS...` as the recorder runs it; None for another
    subcommand or an option it does not take."""
    if not words or words[0] != "test":
        return None
    country = ""
    paths: list[str] = []
    rest = iter(words[1:])
    for word in rest:
        option, _, inline = word.partition("=")
        if option in COUNTRY_OPTIONS:
            country = inline or next(rest, "")
        elif word.startswith("-") and word not in QUIET_OPTIONS:
            return None
        elif not word.startswith("-"):
            paths.append(word)
    if not paths or (country and not all(p.isidentifier() for p in country.split("."))):
        return None
    return YamlTests(country, tuple(paths))
