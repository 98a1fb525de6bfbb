"""Shared helpers of the engine-core tests: an engine on plain child processes, the input
model of one function, and one search run directly against a real child; a package written
by a test, the input model of one of its functions and its scan in the sandbox.

The code these tests run is ours and harmless, so the children get rlimits only
(`ProcessExecutor`): the promises under test are the search's and the harness's, not the
sandbox's (tests/sandbox holds those).
"""

from __future__ import annotations

import ast
import textwrap
import time
from functools import cache
from pathlib import Path

from analysis import Engine, FunctionReport
from analysis.execution.process import Limits, ProcessExecutor, Target
from analysis.facts.imports import ImportedNames
from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.scan.project import Project
from analysis.search.results import SearchResult
from analysis.search.search import Search
from analysis.shapes import InputModel, Leaf
from analysis.source.functions import find_function
from config.policy import default_policy


@cache
def engine() -> Engine:
    return Engine(default_policy(), executor=ProcessExecutor())


def verdict(source: str, qualname: str = "f") -> FunctionReport:
    return engine().scan_function(source, "case.py", qualname)


def model_of(source: str, qualname: str = "f") -> InputModel:
    tree = ast.parse(source)
    info = find_function(tree, qualname)
    assert info is not None, f"no function {qualname}"
    return InputBuilder(ModuleFacts(tree), default_policy()).build(info)


def leaf(model: InputModel, display: str) -> Leaf:
    found = {x.display: x for x in model.leaves}
    assert display in found, f"no leaf {display!r}; leaves are {sorted(found)}"
    return found[display]


def search(source: str, qualname: str = "f", max_executions: int = 2000) -> SearchResult:
    """The search over every protected leaf, against a real child running `source`."""
    model = model_of(source, qualname)
    target = Target(source=source, filename="case.py", qualname=qualname)
    with ProcessExecutor().open(target, Limits()) as session:
        assert session.load_error is None, session.load_error
        deadline = time.monotonic() + 20
        return Search(model, session, model.protected, max_executions, deadline).run()


def write_package(root: Path, files: dict[str, str]) -> Path:
    """`files` (path: dedented text) written under `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def scan_in_package(root: Path, module: str, qualname: str) -> FunctionReport:
    """The report of `qualname` when `module` of the package at `root` is scanned as
    `codebias scan` does, by the default executor: the bubblewrap sandbox."""
    report = Engine(default_policy()).scan_paths([str(root / module)])
    found = {f.qualname: f for f in report.functions}
    assert qualname in found, f"no {qualname}: {sorted(found)}"
    return found[qualname]


def model_in_package(root: Path, files: dict[str, str], module: str, qualname: str) -> InputModel:
    """The input model of `qualname` in `module` of the package made of `files`, with what
    the module imports from its siblings."""
    write_package(root, files)
    project = Project.discover(root)
    location = project.locate(root / module)
    assert location is not None
    tree = ast.parse(textwrap.dedent(files[module]))
    facts = ModuleFacts(tree, ImportedNames(project).of(tree, location))
    info = find_function(tree, qualname)
    assert info is not None
    return InputBuilder(facts, default_policy()).build(info)


def pools(model: InputModel) -> dict[str, list[object]]:
    """Each leaf's pool, by its display path."""
    return {leaf.display: leaf.pool for leaf in model.leaves}
