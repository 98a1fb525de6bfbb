"""`.codebias.yml` found as ruff and mypy find their settings: from each scanned path up to the
repository root; `--config` overrides, `--no-config` means the defaults; the file is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from config.discovery import discover, find_config
from config.policy import PolicyError

BIASED = "def approve(age, income):\n    if age > 60:\n        return False\n    return True\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """outer/.codebias.yml (outside the repository) / repo/.git / repo/src/pkg/loans.py."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".codebias.yml").write_text("fail_on: any\n")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "loans.py").write_text(BIASED)
    return root


def test_the_nearest_file_up_to_the_repository_root_is_found(repo: Path) -> None:
    assert find_config(repo / "src" / "pkg" / "loans.py").config is None  # stops at .git
    (repo / ".codebias.yml").write_text("fail_on: none\n")
    assert find_config(repo / "src" / "pkg").config == repo / ".codebias.yml"
    (repo / "src" / ".codebias.yml").write_text("fail_on: any\n")
    assert find_config(repo / "src" / "pkg" / "loans.py").config == repo / "src" / ".codebias.yml"
    assert find_config(repo).config == repo / ".codebias.yml"


def test_outside_a_repository_the_search_goes_up_to_the_filesystem_root(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / ".codebias.yml").write_text("{}\n")
    assert find_config(tmp_path / "a" / "b").config == tmp_path / ".codebias.yml"


def test_a_misnamed_file_is_named_in_a_warning(repo: Path) -> None:
    (repo / ".codebias.yaml").write_text("fail_on: none\n")
    found = discover([str(repo / "src")])
    assert found.config is None
    assert found.warnings == [
        "repo/.codebias.yaml is not read: the file must be named .codebias.yml"
    ]


def test_paths_with_different_files_are_an_error_that_names_both(repo: Path) -> None:
    (repo / "src" / ".codebias.yml").write_text("fail_on: none\n")
    (repo / "tools").mkdir()
    with pytest.raises(PolicyError) as caught:
        discover([str(repo / "src"), str(repo / "tools")])
    message = str(caught.value)
    assert "repo/src/.codebias.yml for" in message and "no .codebias.yml for" in message
    assert "--config" in message


def scan(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, dict]:
    code = main(["scan", *argv, "--format", "json"])
    captured = capsys.readouterr()
    return code, captured.err, json.loads(captured.out) if captured.out else {}


def test_scan_uses_the_repositorys_file_and_names_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err, _ = scan(capsys, "repo/src")
    assert code == 1
    assert "codebias: config: the built-in defaults (no .codebias.yml" in err
    (repo / ".codebias.yml").write_text("fail_on: none\n")
    code, err, report = scan(capsys, "repo/src")
    assert code == 0 and report["functions"][0]["status"] == "biased"
    assert "codebias: config: repo/.codebias.yml\n" in err


def test_config_overrides_discovery_and_no_config_ignores_it(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".codebias.yml").write_text("fail_on: none\n")
    strict = tmp_path / "strict.yml"
    strict.write_text("fail_on: any\n")
    code, err, _ = scan(capsys, "repo/src", "--config", str(strict))
    assert code == 1 and f"codebias: config: {strict} (--config)" in err
    code, err, _ = scan(capsys, "repo/src", "--no-config")
    assert code == 1 and "codebias: config: the built-in defaults (--no-config)" in err


def test_config_and_no_config_together_are_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", "repo", "--config", "x.yml", "--no-config"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_broken_discovered_file_exits_2_naming_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".codebias.yml").write_text("fail_on: sometimes\n")
    code, err, report = scan(capsys, "repo/src/pkg/loans.py")
    assert code == 2 and report == {}
    assert "repo/.codebias.yml: fail_on" in err


def test_fix_finds_the_file_from_its_target(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    (repo / ".codebias.yml").write_text(
        "allow: [{function: approve, attribute: age, reason: statutory}]\n"
    )
    code = main(["fix", "repo/src/pkg/loans.py::approve", "--format", "json"])
    captured = capsys.readouterr()
    assert "codebias: config: repo/.codebias.yml" in captured.err
    assert code == 0 and json.loads(captured.out)["status"] == "clean"  # accepted
