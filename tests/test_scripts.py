"""The Quick start as a new user meets it: a fresh clone, `bash scripts/demo`, `bash scripts/test`,
with Debian's own python3 (externally managed, PEP 668) and with the Python running these
tests (pyenv's, on the development machine). Everything goes into the clone's `.venv`; the
interpreter the tests run on is checked to be left exactly as it was.

Also the other ways in: the GitHub Action's install step (a plain, non-editable install into
a virtual environment) and the pre-commit hook.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from interpreters import SHADOWING_PACKAGES, make_venv

from bot.cli import main

ROOT = Path(__file__).resolve().parents[1]
DEBIAN_PYTHON = "/usr/bin/python3"
# Settings of the Python running the tests that must not leak into the clone's.
LEAKY = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_USER", "PIP_TARGET", "PIP_PREFIX")


def interpreters() -> list[str]:
    running = os.path.join(sys.base_prefix, "bin", "python3")
    found = [p for p in (DEBIAN_PYTHON, running) if os.path.exists(p)]
    unique = {os.path.realpath(p): p for p in found}
    return list(unique.values())


def fresh_clone(into: Path) -> Path:
    """The repository's files as a clone would have them (uncommitted changes included)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / name.decode()
        if source.is_file():
            target = into / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(source.stat().st_mode & 0o777)
    return into


def clean_env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in LEAKY}, **extra}


def sh(
    args: list[str], cwd: Path, env: dict[str, str], timeout: int = 900
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def base_prefix(python: str) -> str:
    done = sh(
        [python, "-c", "import os, sys; print(os.path.realpath(sys.base_prefix))"],
        Path("/"),
        clean_env(),
    )
    return done.stdout.strip()


def own_install() -> str:
    """Where the Python running the tests has codebias installed from (must not change; the
    rest of its packages may, when other work shares the machine)."""
    probe = (
        "from importlib.metadata import PackageNotFoundError, distribution\n"
        "try:\n"
        "    d = distribution('codebias')\n"
        "    print(d.locate_file(''), d.read_text('direct_url.json'))\n"
        "except PackageNotFoundError:\n"
        "    print('not installed')\n"
    )
    return sh([sys.executable, "-c", probe], Path("/"), clean_env()).stdout


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.parametrize("python", interpreters())
def test_quick_start_from_a_fresh_clone_uses_a_virtual_environment(
    python: str, tmp_path: Path
) -> None:
    before = own_install()
    clone = fresh_clone(tmp_path / "codebias")
    env = clean_env(PYTHON=python)

    demo = sh(["bash", "scripts/demo"], clone, env)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert re.search(r"\d+ functions, \d+ tested, [1-9]\d* biased", demo.stdout), demo.stdout
    assert "nothing was executed" not in demo.stderr  # the sandbox ran from the venv
    assert "run .venv/bin/codebias, or first: source .venv/bin/activate" in demo.stdout
    assert base_prefix(str(clone / ".venv/bin/python")) == base_prefix(python)
    assert sh([".venv/bin/codebias", "--help"], clone, env).returncode == 0

    if python == DEBIAN_PYTHON:
        # The README's second command, on a slice of the suite (the whole suite runs in CI).
        tests = sh(
            [
                "bash",
                "scripts/test",
                "tests/test_cli_scan.py",
                "-q",
                "-p",
                "no:cacheprovider",
                "--cov-fail-under=0",
            ],
            clone,
            env,
        )
        assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
        assert re.search(r"\d+ passed", tests.stdout)
    assert own_install() == before


@pytest.mark.slow
@pytest.mark.sandbox
def test_the_actions_install_step_gives_codebias_a_venv_of_its_own(tmp_path: Path) -> None:
    """The Action installs codebias from its own checkout with pip (not editable) into a
    virtual environment of its own, made from the project's Python: the package data must
    come along, the sandbox must work from there, only the `codebias` command goes on the
    PATH, and the project's environment is left as it was."""
    python = interpreters()[0]
    before = own_install()
    clone = fresh_clone(tmp_path / "action")
    project = tmp_path / "project-env"
    assert sh([python, "-m", "venv", str(project)], tmp_path, clean_env()).returncode == 0
    project_python = project / "bin" / "python"
    packages = sorted(p.name for p in project.glob("lib/python3*/site-packages/*"))
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    github_path = runner_temp / "github-path"
    github_path.touch()
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "install"]
    env = clean_env(
        ACTION_PATH=str(clone),
        PROJECT_PYTHON=str(project_python),
        RUNNER_TEMP=str(runner_temp),
        GITHUB_PATH=str(github_path),
    )
    install = sh(["bash", "-eo", "pipefail", "-c", step["run"]], tmp_path, env)
    assert install.returncode == 0, install.stderr[-3000:]
    (added,) = github_path.read_text().split()
    assert os.listdir(added) == ["codebias"]  # not the venv's python: the project's stays
    assert sorted(p.name for p in project.glob("lib/python3*/site-packages/*")) == packages

    scan = sh(
        [f"{added}/codebias", "scan", str(clone / "examples"), "--format", "json",
         "--python", str(project_python)],
        tmp_path,
        env,
    )  # fmt: skip
    assert scan.returncode == 1, scan.stderr
    report = json.loads(scan.stdout)
    assert report["summary"]["biased"] > 0
    assert "nothing was executed" not in scan.stderr
    assert own_install() == before


def test_the_readme_quick_start_is_two_commands_and_ci_runs_the_second() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = quick.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["bash scripts/demo", "bash scripts/test"]
    assert ".venv/bin/codebias" in quick and "source .venv/bin/activate" in quick
    assert "bash scripts/test" in (ROOT / ".ci/run").read_text(encoding="utf-8")


def test_the_pre_commit_hook_runs_scan_on_the_files_it_is_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "codebias" and hook["language"] == "python"
    assert hook["types"] == ["python"]
    program, *argv = hook["entry"].split()
    assert program == "codebias"
    # pre-commit appends the staged files' names: a module of the product is tested, an
    # example (a program that exercises it, excluded by default) is not.
    (tmp_path / ".git").mkdir()
    for place in ("src", "examples"):
        (tmp_path / place).mkdir()
        (tmp_path / place / "hiring.py").write_text((ROOT / "examples/hiring.py").read_text())
    staged = [str(tmp_path / "src/hiring.py"), str(tmp_path / "examples/hiring.py")]
    assert main([*argv, *staged, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {Path(f["path"]).parent.name for f in report["functions"]} == {"src"}
    assert "shortlist" in {f["qualname"] for f in report["functions"]}


# -- scripts/test: the tiers and the workers ----------------------------------------------


def collected(*args: str) -> set[str]:
    """The test ids pytest would run here with `args` (collection only, in a child)."""
    done = sh(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        ROOT,
        clean_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_the_fast_tier_leaves_out_the_slow_tests_and_full_runs_them() -> None:
    files = ["tests/test_scripts.py", "tests/bot/test_fleet.py", "tests/realworld/test_proofs.py"]
    fast, full = collected(*files), collected("--full", *files)
    slow = full - fast
    assert fast < full
    assert "tests/bot/test_fleet.py::test_a_burst_of_reviews_is_done_exactly_once[200]" in slow
    assert "tests/bot/test_fleet.py::test_a_burst_of_reviews_is_done_exactly_once[40]" in fast
    assert any("test_quick_start_from_a_fresh_clone" in t for t in slow)
    assert "tests/realworld/test_proofs.py::test_proofs_still_differ[cvd-risk]" in slow
    assert "tests/realworld/test_proofs.py::test_proofs_still_differ[pygrowup]" in fast
    script = (ROOT / "scripts/test").read_text(encoding="utf-8")
    assert "--full" in script and "--dist loadgroup" in script


@pytest.mark.sandbox
def test_a_group_of_tests_runs_on_one_worker() -> None:
    # The sandbox suite is one group (tests/sandbox/conftest.py): its survivor checks would
    # take another worker's sandboxes for its own. A pytest or pytest-xdist that stops
    # honouring xdist_group (pytest-xdist#1386) fails here, not as flaky sandbox tests.
    done = sh(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p",
         "no:cacheprovider", "tests/sandbox/test_sandbox_layout.py"],
        ROOT,
        clean_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = re.findall(r"^\[(gw\d+)\] .*PASSED (\S+)", done.stdout, re.M)
    assert len(ran) >= 10, done.stdout[-3000:]
    assert {worker for worker, _ in ran} == {ran[0][0]}, ran
    assert all(test.endswith("@sandbox-suite") for _, test in ran), ran


def test_the_pre_commit_hook_takes_the_projects_python_as_the_readme_shows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    project_python = make_venv(tmp_path / "env", SHADOWING_PACKAGES)
    staged = tmp_path / "pricing.py"
    staged.write_text(
        "from analysis.risk import loading\n\n\n"
        "def premium(age, base):\n    return base + loading(age)\n"
    )
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "`args: [--python=.venv/bin/python]`" in readme
    _, *argv = hook["entry"].split()
    # pre-commit runs the entry, then the hook's args, then the staged files' names.
    assert main([*argv, f"--python={project_python}", str(staged)]) == 1
    assert "premium" in capsys.readouterr().out
