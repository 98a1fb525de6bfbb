"""The sandbox for a target interpreter (`--python`): its binary, its standard library and its
site-packages, and nothing of the environment codebias itself runs from."""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from interpreters import SHADOWING_PACKAGES, make_venv, newer_python, site_packages
from sandbox_helpers import ORDINARY_LIMITS, SANDBOX, SLOTS, UID_BASE

from analysis.execution.interpreter import Interpreter
from analysis.execution.process import Call, Target
from analysis.sandbox import BwrapExecutor, verify
from analysis.sandbox.layout import VENV_ROOT, host_layout

pytestmark = SANDBOX

REPO = Path(__file__).resolve().parents[2]
OWN_PREFIX = os.path.realpath(sys.prefix)  # the venv codebias runs from

# What the code under test can import, and where from (run inside the sandbox).
PROBE = """
import importlib.util, sys

def where(names):
    seen = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        seen[name] = None if spec is None else spec.origin
    return repr((seen, sys.version_info[:2], sys.path))
"""


@pytest.fixture(scope="module")
def target_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_venv(tmp_path_factory.mktemp("target") / "env", SHADOWING_PACKAGES).parent.parent


@pytest.fixture(scope="module")
def target(target_venv: Path) -> Interpreter:
    return Interpreter.probe(str(target_venv / "bin" / "python"))


def executor_for(interpreter: Interpreter, slot_dir: Path) -> Iterator[BwrapExecutor]:
    yield verify(
        BwrapExecutor(
            uid_base=UID_BASE, slots=SLOTS, slot_dir=str(slot_dir), interpreter=interpreter
        )
    )


@pytest.fixture(scope="module")
def target_executor(
    target: Interpreter, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BwrapExecutor]:
    yield from executor_for(target, tmp_path_factory.mktemp("slots") / "locks")


Seen = tuple[dict[str, str | None], tuple[int, ...], list[str]]


def imports(executor: BwrapExecutor, names: list[str]) -> Seen:
    with executor.open(Target(PROBE, "probe.py", "where"), ORDINARY_LIMITS) as session:
        assert session.load_error is None, session.load_error
        [outcome] = session.run([Call((names,))])
    assert outcome.ok, outcome.error
    seen, version, path = ast.literal_eval(ast.literal_eval(outcome.value))
    return seen, tuple(version), path


def test_the_layout_of_a_target_venv_shows_its_site_packages_and_nothing_of_codebiass(
    target: Interpreter, target_venv: Path
) -> None:
    layout = host_layout(target)
    assert layout.interpreter == target
    assert (str(target_venv.resolve()), VENV_ROOT) in layout.sources
    inside = f"{VENV_ROOT}/{site_packages(target_venv).relative_to(target_venv)}"
    assert layout.site_paths == (inside,)
    for source, _ in layout.sources:
        assert not (source == OWN_PREFIX or source.startswith(OWN_PREFIX + "/")), source
        assert not str(REPO).startswith(source + "/") and source != str(REPO), source
    assert layout.masks == ()  # the environment's own config/ and analysis/ stay visible


def test_code_under_test_imports_from_the_target_environment_only(
    target_executor: BwrapExecutor,
) -> None:
    seen, version, path = imports(
        target_executor, ["only_in_target", "config", "analysis", "yaml", "pydantic", "json"]
    )
    assert version == tuple(sys.version_info[:2])
    assert seen["only_in_target"] == str(site_packages(Path(VENV_ROOT)) / "only_in_target.py")
    # The environment's own top-level config and analysis packages, not codebias's.
    assert seen["config"] is not None and seen["config"].startswith(VENV_ROOT + "/")
    assert seen["analysis"] is not None and seen["analysis"].startswith(VENV_ROOT + "/")
    # codebias's own dependencies are not the project's.
    assert seen["yaml"] is None and seen["pydantic"] is None
    assert seen["json"] is not None
    assert not any(OWN_PREFIX in entry or str(REPO) in entry for entry in path), path


def test_the_harness_runs_under_a_target_of_another_python_version(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    newer = newer_python()
    if newer is None:
        pytest.skip("no Python 3.12 or newer besides the running one is installed here")
    executor = next(
        executor_for(Interpreter.probe(newer), tmp_path_factory.mktemp("slots") / "locks")
    )
    _, version, _ = imports(executor, ["json"])
    assert version == Interpreter.probe(newer).version[:2] != tuple(sys.version_info[:2])
