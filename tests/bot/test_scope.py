"""One path filter: the same `.codebias.yml` selects the same files in `codebias scan` and in
the App (gitignore-style patterns on repository-relative paths)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakegithub import FakeGitHub
from scenario import REPO, set_pull

from bot.cli import main
from bot.events import ReviewRequest, route
from bot.jobs import JobContext
from bot.settings import Settings
from config.policy import build_policy

pytestmark = pytest.mark.sandbox

POLICY = """\
paths:
  include: ["src/**", "tools/*.py"]
  exclude: ["tests/*", "src/vendor/*", "*_pb2.py"]
"""
FILES = [
    "src/app.py",
    "src/deep/er/mod.py",
    "src/vendor/lib.py",
    "src/vendor/sub/x.py",
    "src/gen_pb2.py",
    "tools/run.py",
    "tools/sub/x.py",
    "tests/a/b.py",
    "setup.py",
]
SELECTED = {"src/app.py", "src/deep/er/mod.py", "tools/run.py"}
SOURCE = "def senior(age):\n    return age > 60\n"


@pytest.mark.parametrize(
    "path,selected",
    [
        ("tests/a/b.py", False),  # a folder that matches excludes everything in it
        ("src/vendor/sub/x.py", False),
        ("tools/sub/x.py", False),  # `*` stays inside one folder
        ("src/deep/er/mod.py", True),  # `**` spans folders
        ("pkg/gen_pb2.py", False),  # no slash: matches at any depth
        ("src/readme.md", False),  # only Python files
    ],
)
def test_patterns_read_as_gitignore_does(path: str, selected: bool) -> None:
    policy = build_policy([{"paths": {"include": ["**/*.py"], "exclude": []}}])
    scoped = build_policy(
        [{"paths": {"include": ["src/**", "tools/*.py", "tests/**", "pkg/**"], "exclude": []}}]
    )
    exclude = build_policy(
        [{"paths": {"exclude": ["tests/*", "src/vendor/*", "*_pb2.py", "tools/sub/"]}}]
    )
    assert (policy.in_scope(path) and scoped.in_scope(path) and exclude.in_scope(path)) is selected


# Without a policy: the programs that exercise the product (tests, examples, demos, docs,
# benchmarks) are not judged; the rest is.
EXERCISING = ["tests/a/b.py", "pkg/tests/t.py", "test_x.py", "src/conftest.py", "x_test.py",
              "examples/demo.py", "demo/run.py", "docs/conf.py", "benchmarks/speed.py"]  # fmt: skip
BY_DEFAULT = {"src/app.py", "src/examples_of.py", "tools/run.py", "setup.py", "latest/x.py"}
# Folders of tools and environments, which a walk never enters and a review skips alike.
TOOL_FOLDERS = ["build/lib/app.py", ".venv/lib/site.py", "venv/x.py", ".hidden/y.py"]


@pytest.mark.parametrize("path", EXERCISING)
def test_by_default_the_programs_that_exercise_the_product_are_not_judged(path: str) -> None:
    assert not build_policy().in_scope(path)
    assert build_policy([{"paths": {"exclude": []}}]).in_scope(path)  # a layer's list replaces it


def make_repo(tmp_path: Path, files: list[str], policy: str | None) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for rel in files:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(SOURCE)
    if policy is not None:
        (repo / ".codebias.yml").write_text(policy)
    return repo


def scanned(repo: Path, target: Path, tmp_path: Path) -> set[str]:
    out = tmp_path / "report.json"
    main(["scan", str(target), "--format", "json", "--output", str(out)])
    report: dict[str, Any] = json.loads(out.read_text())
    return {str(Path(f["path"]).relative_to(repo)) for f in report["functions"]}


def test_a_folder_named_to_scan_is_read_whatever_exclusion_covers_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, [*EXERCISING, *BY_DEFAULT], None)
    assert scanned(repo, repo, tmp_path) == BY_DEFAULT
    assert scanned(repo, repo / "examples", tmp_path) == {"examples/demo.py"}
    # What the exclusions name inside a named folder stays out.
    (repo / "examples" / "tests").mkdir()
    (repo / "examples" / "tests" / "t.py").write_text(SOURCE)
    assert scanned(repo, repo / "examples", tmp_path) == {"examples/demo.py"}
    assert scanned(repo, repo / "pkg" / "tests", tmp_path) == {"pkg/tests/t.py"}


def test_by_default_the_cli_and_the_app_leave_out_the_same_files(
    tmp_path: Path, github: FakeGitHub, embedded_settings: Settings
) -> None:
    files = [*EXERCISING, *BY_DEFAULT, *TOOL_FOLDERS]
    repo = make_repo(tmp_path, files, None)
    assert scanned(repo, repo, tmp_path) == BY_DEFAULT
    assert app_selection(github, embedded_settings, None, files) == BY_DEFAULT


def cli_selection(tmp_path: Path) -> set[str]:
    repo = make_repo(tmp_path, FILES, POLICY)
    out = tmp_path / "report.json"
    code = main(
        ["scan", str(repo), "--config", str(repo / ".codebias.yml"), "--format", "json",
         "--output", str(out)]
    )  # fmt: skip
    assert code == 1  # every selected file holds the same biased function
    report: dict[str, Any] = json.loads(out.read_text())
    return {str(Path(f["path"]).relative_to(repo)) for f in report["functions"]}


def app_selection(
    github: FakeGitHub, settings: Settings, policy: str | None = POLICY, files: list[str] = FILES
) -> set[str]:
    if policy is not None:
        github.repo(REPO).files[("main", ".codebias.yml")] = policy
    event = set_pull(github, 7, {rel: (None, SOURCE) for rel in files})
    request = route("pull_request", event)
    assert isinstance(request, ReviewRequest)
    JobContext.build(settings).run(request)
    run = github.repo(REPO).check_runs[-1]
    return {a["path"] for a in run["annotations"]}


def test_the_cli_and_the_app_select_the_same_files(
    tmp_path: Path, github: FakeGitHub, embedded_settings: Settings
) -> None:
    assert cli_selection(tmp_path) == SELECTED
    assert app_selection(github, embedded_settings) == SELECTED


HOOK = yaml.safe_load((Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text())


def hook_selection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """What the pre-commit hook tests when a commit touches every file: pre-commit runs its
    `entry` from the repository's root with the changed files' names appended."""
    repo = tmp_path / "repo"
    monkeypatch.chdir(repo)
    (hook,) = HOOK
    entry = shlex.split(hook["entry"])
    assert entry[0] == "codebias"
    out = tmp_path / "hook.json"
    code = main([*entry[1:], *FILES, "--format", "json", "--output", str(out)])
    assert code == 1
    report: dict[str, Any] = json.loads(out.read_text())
    return {f["path"] for f in report["functions"]}


def test_the_hook_scan_and_the_app_test_the_same_functions(
    tmp_path: Path,
    github: FakeGitHub,
    embedded_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert cli_selection(tmp_path) == SELECTED
    assert hook_selection(tmp_path, monkeypatch) == SELECTED
    assert app_selection(github, embedded_settings) == SELECTED


def test_files_named_without_force_exclude_are_scanned_whatever_the_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cli_selection(tmp_path)
    monkeypatch.chdir(tmp_path / "repo")
    assert main(["scan", "tests/a/b.py", "--format", "json"]) == 1
    assert [f["path"] for f in json.loads(capsys.readouterr().out)["functions"]] == ["tests/a/b.py"]
    assert main(["scan", "--force-exclude", "tests/a/b.py", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["functions"] == []
