"""The target interpreter (`--python`): what a Python says of itself, asked once in a
subprocess that runs nothing of its environment, and checked before anything relies on it."""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path

import pytest
from interpreters import make_venv, older_python, site_packages

from analysis.errors import CodebiasError
from analysis.execution.interpreter import MIN_VERSION, Interpreter, InterpreterError
from analysis.scan.project import Project


def test_the_running_python_describes_itself_as_its_site_module_set_it_up() -> None:
    me = Interpreter.probe(sys.executable)
    assert me.version == tuple(sys.version_info[:3])
    assert me.prefix == os.path.realpath(sys.prefix)
    assert me.base_prefix == os.path.realpath(sys.base_prefix)
    assert me.site_packages == tuple(
        os.path.realpath(p) for p in site.getsitepackages() if os.path.isdir(p)
    )
    assert me.executable == sys.executable


def test_a_venv_is_described_by_its_own_site_packages(tmp_path: Path) -> None:
    venv = tmp_path / "env"
    target = Interpreter.probe(str(make_venv(venv, {"marker.py": ""})))
    assert target.prefix == str(venv.resolve())
    assert target.site_packages == (str(site_packages(venv).resolve()),)
    assert target.base_prefix == os.path.realpath(sys.base_prefix)


def test_a_venv_with_system_site_packages_sees_its_own_first_then_its_bases(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "env"
    target = Interpreter.probe(str(make_venv(venv, {"marker.py": ""}, system_site=True)))
    assert target.site_packages[0] == str(site_packages(venv).resolve())
    base = Interpreter.probe(os.path.join(sys.base_prefix, "bin", "python3"))
    assert target.site_packages[1:] == base.site_packages


def test_nothing_of_the_environment_runs_while_it_is_asked(tmp_path: Path) -> None:
    """A .pth line and a sitecustomize are the environment's code: never run outside the
    sandbox, not even to learn where its packages are."""
    witness = tmp_path / "ran"
    hook = f"import pathlib; pathlib.Path({str(witness)!r}).write_text('ran')\n"
    python = make_venv(tmp_path / "env", {"hook.pth": hook, "sitecustomize.py": hook})
    Interpreter.probe(str(python))
    assert not witness.exists()


def test_a_launcher_script_is_followed_to_the_interpreter_it_starts(tmp_path: Path) -> None:
    """pyenv's shims and wrappers are scripts that exec the real binary: the sandbox needs
    that binary, under its prefix."""
    launcher = write_script(tmp_path / "python", f'exec "{sys.executable}" "$@"\n')
    assert Interpreter.probe(launcher).executable == sys.executable


def write_script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda tmp: str(tmp / "nowhere" / "python"), "no such file"),
        (lambda tmp: str(tmp), "is a folder"),
        (lambda tmp: str(tmp / "plain.txt"), "cannot be run"),
        (lambda tmp: write_script(tmp / "echo", "echo hello\n"), "did not describe itself"),
        (lambda tmp: write_script(tmp / "fails", "echo broken >&2; exit 3\n"), "exit 3: broken"),
        (
            lambda tmp: write_script(
                tmp / "liar",
                "echo '{\"version\": [3, 12, 0], \"prefix\": \"relative/prefix\"}'\n",
            ),
            "did not describe itself",
        ),
    ],
)
def test_a_path_that_is_no_interpreter_is_refused_with_the_reason(
    tmp_path: Path, make: object, reason: str
) -> None:
    (tmp_path / "plain.txt").write_text("not a program\n")
    assert callable(make)
    path = make(tmp_path)
    with pytest.raises(InterpreterError) as caught:
        Interpreter.probe(path)
    assert isinstance(caught.value, CodebiasError)  # a usage error on the command line
    assert reason in str(caught.value) and path in str(caught.value)


def test_an_interpreter_that_hangs_is_given_up_on(tmp_path: Path) -> None:
    path = write_script(tmp_path / "hangs", "sleep 30\n")
    with pytest.raises(InterpreterError, match="did not answer within 1 s"):
        Interpreter.probe(path, timeout=1.0)


def test_a_python_older_than_the_harness_needs_is_refused_with_its_version() -> None:
    old = older_python()
    if old is None:
        pytest.skip("no Python older than 3.11 is installed on this machine")
    with pytest.raises(InterpreterError) as caught:
        Interpreter.probe(old)
    wanted = ".".join(map(str, MIN_VERSION))
    assert f"needs Python {wanted} or newer" in str(caught.value)
    assert "is Python " in str(caught.value)


def test_the_project_finds_modules_in_the_target_environment_not_in_codebiass(
    tmp_path: Path,
) -> None:
    target = Interpreter.probe(str(make_venv(tmp_path / "env", {"only_in_target.py": ""})))
    (tmp_path / "project").mkdir()
    project = Project.discover(tmp_path / "project")
    # yaml is codebias's own dependency; json is the standard library; os a frozen module;
    # sys is built in.
    wanted = ["only_in_target", "yaml", "json", "os", "sys", "only_in_target.sub"]
    assert project.missing(wanted, target) == ["yaml"]
    own = Interpreter.probe(sys.executable)
    assert project.missing(wanted, own) == ["only_in_target", "only_in_target.sub"]
