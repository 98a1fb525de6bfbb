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


def cli_selection(tmp_path: Path) -> set[str]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for rel in FILES:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(SOURCE)
    (repo / ".codebias.yml").write_text(POLICY)
    out = tmp_path / "report.json"
    code = main(
        ["scan", str(repo), "--config", str(repo / ".codebias.yml"), "--format", "json",
         "--output", str(out)]
    )  # fmt: skip
    assert code == 1  # every selected file holds the same biased function
    report: dict[str, Any] = json.loads(out.read_text())
    return {str(Path(f["path"]).relative_to(repo)) for f in report["functions"]}


def app_selection(github: FakeGitHub, settings: Settings) -> set[str]:
    github.repo(REPO).files[("main", ".codebias.yml")] = POLICY
    event = set_pull(github, 7, {rel: (None, SOURCE) for rel in FILES})
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
