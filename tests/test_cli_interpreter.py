"""`--python` (and CODEBIAS_PYTHON): codebias runs from its own environment, the code under
test with the project's interpreter and site-packages, whatever top-level packages those
hold (a `config` or `analysis` distribution never shadows codebias's own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from interpreters import SHADOWING_PACKAGES, make_venv, older_python

from bot.cli import main

pytestmark = pytest.mark.sandbox

PRICING = """\
from analysis.risk import loading


def premium(age: int, base: float) -> float:
    return base + loading(age)
"""


@pytest.fixture(scope="module")
def target_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(make_venv(tmp_path_factory.mktemp("target") / "env", SHADOWING_PACKAGES))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "pricing.py").write_text(PRICING)
    return tmp_path / "project"


def scan(
    capsys: pytest.CaptureFixture[str], project: Path, *args: str
) -> tuple[int, dict[str, dict], str]:
    code = main(["scan", str(project), "--no-config", "--format", "json", *args])
    captured = capsys.readouterr()
    report = json.loads(captured.out) if captured.out else {"functions": []}
    return code, {f["qualname"]: f for f in report["functions"]}, captured.err


def test_a_bias_is_proved_through_the_environments_own_config_and_analysis_packages(
    capsys: pytest.CaptureFixture[str], project: Path, target_python: str
) -> None:
    code, functions, err = scan(capsys, project, "--python", target_python)
    assert code == 1, err
    premium = functions["premium"]
    assert premium["status"] == "biased", premium
    (finding,) = premium["findings"]
    assert finding["attribute"] == "age"
    assert {v >= 67 for v in finding["example"]["values"]} == {True, False}
    assert f"python: {target_python}" in err

    # From codebias's own environment the project's dependencies are not there.
    code, functions, err = scan(capsys, project)
    assert functions["premium"]["status"] == "unverified", functions["premium"]
    assert "needs analysis" in functions["premium"]["reason"]


def test_codebias_python_in_the_environment_chooses_the_interpreter(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    target_python: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CODEBIAS_PYTHON", target_python)
    code, functions, err = scan(capsys, project)
    assert (code, functions["premium"]["status"]) == (1, "biased"), err
    assert "CODEBIAS_PYTHON" in err


def test_python_require_is_checked_in_the_target_environment(
    capsys: pytest.CaptureFixture[str], project: Path, target_python: str
) -> None:
    (project / ".codebias.yml").write_text("python: {require: [only_in_target]}\n")
    config = str(project / ".codebias.yml")
    assert main(["scan", str(project), "--config", config, "--python", target_python]) == 1
    capsys.readouterr()
    assert main(["scan", str(project), "--config", config]) == 2
    assert "only_in_target cannot be imported here" in capsys.readouterr().err


def bad_pythons(tmp_path: Path) -> list[tuple[str, str]]:
    cases = [(str(tmp_path / "no" / "python"), "no such file"), (str(tmp_path), "is a folder")]
    old = older_python()
    if old is not None:
        cases.append((old, "needs Python 3.11 or newer"))
    return cases


@pytest.mark.parametrize(
    "command",
    [["scan", "."], ["fix", "pricing.py::premium"], ["review", "--pr", "7"]],
    ids=["scan", "fix", "review"],
)
def test_a_python_that_is_not_there_or_too_old_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_unused")
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/project")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # never asked: exit 2 first
    for python, reason in bad_pythons(project.parent):
        assert main([*command, "--python", python]) == 2, python
        captured = capsys.readouterr()
        assert f"--python {python}: " in captured.err and reason in captured.err, captured.err
        assert captured.out == ""
    monkeypatch.setenv("CODEBIAS_PYTHON", str(project / "missing"))
    assert main(command) == 2
    assert f"CODEBIAS_PYTHON={project / 'missing'}: no such file" in capsys.readouterr().err


def test_fix_tests_the_function_with_the_target_interpreter(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    target_python: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "CODEBIAS_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)
    code = main(["fix", "pricing.py::premium", "--python", target_python, "--format", "json"])
    result = json.loads(capsys.readouterr().out)
    # No model is configured: the bias was found through the environment, and a rule's
    # mechanical fix was verified there (the re-test ran with the same interpreter).
    assert (code, result["status"], result["before"], result["after"]) == (0, "fixed", ["age"], [])
    assert result["strategy"] == "mechanical" and result["rule"], result


def test_trust_code_runs_the_code_with_the_target_interpreter_too(
    capsys: pytest.CaptureFixture[str], project: Path, target_python: str
) -> None:
    code, functions, err = scan(capsys, project, "--trust-code", "--python", target_python)
    assert (code, functions["premium"]["status"]) == (1, "biased"), err
    assert "WITHOUT a sandbox" in err
