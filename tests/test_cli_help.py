"""`codebias --help` for each command: every option explained, every choice named, and a
choice that does not exist refused as a usage error before anything runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analysis.mitigation import STRATEGIES
from analysis.study.scores import GENERATION_STRATEGIES
from bot.cli import main

COMMANDS = ["scan", "fix", "bench", "review", "serve", "worker"]


def help_of(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main([command, "--help"]) == 0
    return capsys.readouterr().out


def option_help(text: str) -> dict[str, str]:
    """Each option of a help screen and the words that explain it."""
    options: dict[str, str] = {}
    current = None
    for line in text.split("options:", 1)[1].splitlines():
        entry = re.match(r"  (-\S+(?:,? -?-\S+)*(?: [A-Z_{][^ ]*)?)(?:\s{2,}(.*))?$", line)
        if entry is not None:
            current = entry[1].split()[0]
            options[current] = entry[2] or ""
        elif current is not None and line.startswith("   "):
            options[current] += " " + line.strip()
    return options


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_every_command_is_explained(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    options = option_help(help_of(command, capsys))
    assert options and all(words.strip() for words in options.values()), options


@pytest.mark.parametrize(
    ("command", "names"), [("fix", STRATEGIES), ("bench", GENERATION_STRATEGIES)]
)
def test_help_names_every_strategy(
    command: str, names: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    words = " ".join(option_help(help_of(command, capsys))["--strategy"].split())
    assert [name for name in names if name not in words] == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fix", "loans.py::approve", "--strategy", "telepathy"], "unknown strategy 'telepathy'"),
        (
            ["bench", "--completions", "answers.jsonl", "--strategy", "fancy"],
            "unknown generation strategy 'fancy'",
        ),
    ],
)
def test_a_strategy_that_does_not_exist_is_a_usage_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "answers.jsonl").write_text(
        '{"prompt_id": "0", "sample": 0, "completion": "def f(age):\\n    return age > 60\\n"}\n'
    )
    (tmp_path / "loans.py").write_text("def approve(age):\n    return age > 60\n")
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err and "choose one of:" in captured.err
    assert captured.out == ""
