"""`codebias fix` as a user runs it: real CLI, real engine and sandbox, scripted LLM servers.

`loans.py::approve` is fixed by the mechanical rules (a branch on age); `screening.py::screen`
decides through a helper that reads the age from the whole record, which no rule rewrites
(the fix must be the function alone): only a model fixes it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main

SOURCE = """def approve(age: int, income: float) -> bool:
    if age > 60:
        return False
    return income > 30000
"""
HELPER = """def _too_old(applicant: dict) -> bool:
    return applicant["age"] > 60


def screen(applicant: dict) -> bool:
    if _too_old(applicant):
        return False
    return applicant["income"] > 30000
"""
HELPER_GOOD = (
    "```python\ndef screen(applicant: dict) -> bool:\n"
    "    return applicant[\"income\"] > 30000\n```"
)
HELPER_STILL_BIASED = (
    "```python\ndef screen(applicant: dict) -> bool:\n"
    "    if applicant[\"age\"] > 80:\n        return False\n"
    "    return applicant[\"income\"] > 30000\n```"
)
LLM_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "CODEBIAS_LLM_MODEL",
    "CODEBIAS_LLM_TIMEOUT",
    "CODEBIAS_LLM_MAX_RETRIES",
)
SECTION_6_KEYS = [
    "function",
    "status",
    "strategy",
    "attempts",
    "before",
    "after",
    "agreement",
    "tokens",
]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "loans.py").write_text(SOURCE)
    (tmp_path / "screening.py").write_text(HELPER)
    monkeypatch.chdir(tmp_path)
    for name in LLM_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def use(server: Any, server_env: Any, monkeypatch: pytest.MonkeyPatch, **extra: str) -> None:
    for key, value in server_env(server, **extra).items():
        monkeypatch.setenv(key, value)


def fix_json(
    capsys: pytest.CaptureFixture[str], *argv: str, target: str = "screening.py::screen"
) -> tuple[int, dict[str, Any]]:
    code = main(["fix", target, "--format", "json", *argv])
    return code, json.loads(capsys.readouterr().out)


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/rates.py": "SENIOR_AGE = 65\n",
    "pkg/premiums.py": (
        "from .rates import SENIOR_AGE\n\n\n"
        "def premium(age: int, base: float) -> float:\n"
        "    if age >= SENIOR_AGE:\n"
        "        return base * 1.5\n"
        "    return base\n"
    ),
}
PACKAGE_FIX = "```python\ndef premium(age: int, base: float) -> float:\n    return base * 1.25\n```"


@pytest.fixture
def package(workdir: Path) -> Path:
    """A repository whose module imports a sibling relatively, as packages do."""
    (workdir / ".git").mkdir()
    for name, text in PACKAGE.items():
        (workdir / name).parent.mkdir(parents=True, exist_ok=True)
        (workdir / name).write_text(text)
    return workdir


def test_json_output_of_a_verified_fix(
    workdir: Path,
    llm_server: Any,
    server_env: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use(llm_server, server_env, monkeypatch)
    llm_server.answer(HELPER_GOOD, prompt_tokens=812, completion_tokens=240)
    code, out = fix_json(capsys)
    assert code == 0
    assert [k for k in out if k in SECTION_6_KEYS or k == "patch"] == [
        "function", "status", "strategy", "attempts", "patch", "before", "after", "agreement",
        "tokens",
    ]  # fmt: skip
    assert out["function"] == "screening.py::screen"
    assert out["status"] == "fixed" and out["strategy"] == "feedback-cot"
    assert out["rule"] is None  # the model made it
    assert out["attempts"] == 1
    assert out["patch"].startswith("--- a/screening.py\n+++ b/screening.py\n@@ ")
    assert (out["before"], out["after"]) == (["age"], [])
    assert isinstance(out["agreement"], float) and 0 <= out["agreement"] <= 1
    assert out["tokens"] == {"prompt": 812, "completion": 240}
    assert (workdir / "screening.py").read_text() == HELPER  # no --apply: the file is untouched


@pytest.mark.parametrize(
    ("target", "answer", "fixed"),
    [
        (
            "screening.py::screen",
            HELPER_GOOD,
            HELPER.split("def screen")[0]
            + "def screen(applicant: dict) -> bool:\n    return applicant[\"income\"] > 30000\n",
        ),
        # Re-tested as scan runs it: as pkg.premiums, whose relative import then works. The
        # rules' fix (the branch goes) is smaller than the model's, so it is the one applied.
        (
            "pkg/premiums.py::premium",
            PACKAGE_FIX,
            "from .rates import SENIOR_AGE\n\n\n"
            "def premium(age: int, base: float) -> float:\n    return base\n",
        ),
    ],
    ids=["a_loose_module", "a_package_module"],
)
def test_apply_rewrites_the_file_with_the_verified_fix(
    package: Path,
    openai_server: Any,
    server_env: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    target: str,
    answer: str,
    fixed: str,
) -> None:
    use(openai_server, server_env, monkeypatch)
    openai_server.answer(answer)
    code = main(["fix", target, "--format", "json", "--apply"])
    out = json.loads(capsys.readouterr().out)
    assert (code, out["status"], out["applied"]) == (0, "fixed", True)
    assert (package / target.split("::")[0]).read_text() == fixed
    assert [p.name for p in package.rglob("*.tmp")] == []  # no temporary left over


def test_apply_leaves_the_file_alone_without_a_verified_fix(
    workdir: Path,
    openai_server: Any,
    server_env: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use(openai_server, server_env, monkeypatch)
    for _ in range(2):
        openai_server.answer(HELPER_STILL_BIASED)
    (workdir / ".codebias.yml").write_text("mitigation: {max_rounds: 2}\n")
    code, out = fix_json(capsys, "--apply", "--config", ".codebias.yml")
    assert code == 1
    assert out["status"] == "not_fixed" and out["applied"] is False
    assert "patch" not in out
    assert out["attempts"] == 2 and out["after"] == ["age"]
    assert "no mechanical rule applies" in out["note"]
    assert (workdir / "screening.py").read_text() == HELPER


def test_text_output_shows_findings_and_the_patch(
    workdir: Path,
    anthropic_server: Any,
    server_env: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use(anthropic_server, server_env, monkeypatch)
    anthropic_server.answer(HELPER_GOOD)
    code = main(["fix", "screening.py::screen", "--strategy", "feedback-zero-shot"])
    out = capsys.readouterr().out
    assert code == 0
    assert "screening.py::screen: biased for age" in out
    assert "fixed after 1 attempt (feedback-zero-shot)" in out
    assert "--- a/screening.py\n+++ b/screening.py\n" in out


def test_without_a_provider_the_mechanical_rules_fix_and_say_which(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = fix_json(capsys, target="loans.py::approve")
    assert code == 0 and out["status"] == "fixed"
    assert (out["strategy"], out["rule"], out["attempts"]) == ("mechanical", "collapse-branch", 0)
    assert out["tokens"] == {"prompt": 0, "completion": 0} and out["agreement"] == 1.0
    assert "-    if age > 60:\n-        return False\n" in out["patch"]
    assert "collapse-branch" in out["note"] and "reference group" in out["note"]
    assert main(["fix", "loans.py::approve"]) == 0
    text = capsys.readouterr().out
    assert "fixed by the mechanical rule collapse-branch: re-tested in the sandbox" in text


def test_where_no_rule_applies_and_no_provider_is_set_findings_are_printed_and_exit_1(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = fix_json(capsys)
    assert code == 1  # nothing was fixed
    assert out["status"] == "not_fixed" and out["attempts"] == 0
    assert "no mechanical rule applies" in out["note"]
    assert "OPENAI_API_KEY" in out["note"] and "ANTHROPIC_API_KEY" in out["note"]
    assert out["findings"][0]["attribute"] == "age"
    assert out["findings"][0]["example"]["values"]


def test_a_policy_that_switches_fixes_off_gets_none_at_all(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (workdir / ".codebias.yml").write_text("mitigation: {enabled: false}\n")
    code, out = fix_json(capsys, target="loans.py::approve")
    assert code == 1 and out["status"] == "not_fixed" and "patch" not in out
    assert "switched off by the policy" in out["note"]


@pytest.mark.parametrize(
    ("source", "note"),
    [
        ("def fee(amount: float, age: int) -> float:\n    return amount\n", "no bias found"),
        (
            "def fee(amount: float, count: int) -> float:\n    return amount * count\n",
            "no protected input",
        ),
    ],
    ids=["clean", "no_protected_input"],
)
def test_nothing_to_fix_needs_no_provider_and_exits_0(
    workdir: Path, capsys: pytest.CaptureFixture[str], source: str, note: str
) -> None:
    (workdir / "loans.py").write_text(source)
    code = main(["fix", "loans.py::fee", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "clean" and out["before"] == []
    assert out["note"] == f"{note}: nothing to fix"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fix", "loans.py"], "expected FILE::QUALNAME"),
        (["fix", "missing.py::approve"], "missing.py: cannot read"),
        (["fix", "loans.py::nowhere"], "no function nowhere"),
        (["fix", "loans.py::approve", "--strategy", "telepathy"], "unknown strategy"),
    ],
)
def test_usage_errors_exit_2_with_a_message(
    workdir: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_provider_outage_exits_nonzero_with_a_note_and_no_traceback(
    workdir: Path, openai_server: Any, server_env: Any
) -> None:
    openai_server.fail(500, times=3)
    env = {k: v for k, v in os.environ.items() if k not in LLM_VARIABLES}
    env.update(server_env(openai_server))
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "fix", "screening.py::screen", "--format", "json"],
        cwd=workdir,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3
    assert "Traceback" not in done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "error"
    assert "could not be reached" in out["note"] and "500" in out["note"]
    assert out["findings"][0]["attribute"] == "age"  # the findings are still reported
    assert len(openai_server.requests) == 3


def test_fix_runs_a_package_module_as_scan_does_and_says_first_that_no_model_is_set(
    package: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", "pkg/premiums.py", "--format", "json"]) == 1
    (scanned,) = json.loads(capsys.readouterr().out)["functions"]
    assert scanned["status"] == "biased"
    code = main(["fix", "pkg/premiums.py::premium", "--format", "json", "--apply"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    # The module's relative import resolves: it is run, fixed and re-tested as pkg.premiums.
    assert code == 0 and out["status"] == "fixed" and out["applied"] is True
    assert out["rule"] == "collapse-branch"
    assert out["findings"] == scanned["findings"]  # the same proof, run the same way
    assert "codebias: no language model is configured" in captured.err
    assert main(["scan", "pkg/premiums.py", "--format", "json"]) == 0
    (rescanned,) = json.loads(capsys.readouterr().out)["functions"]
    assert rescanned["status"] == "clean"
