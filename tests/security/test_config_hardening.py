"""Hostile `.codebias.yml` files: refused with a message, never expanded (issue 11, items 3, 9).

Reproducers, each a file handed to `codebias scan --config` (and, for the App, served as the
repository's policy):
- an alias bomb: 441 bytes of nested anchors (`&a [lol x 9]`, `&b [*a x 9]`, ... nine levels)
  under `protected.age.values`, which the schema accepts as-is. Before: safe_load built it
  by reference in no time, then whatever walked it (the scan's values, the App's policy
  fingerprint) expanded 9^9 strings: 72 s and 5.3 GB, then a MemoryError traceback, exit 1;
- nesting 2,000 levels deep: RecursionError in PyYAML's composer, traceback, exit 1;
- a latin-1 file: UnicodeDecodeError, traceback, exit 1;
- a 100 KiB file, and a 5,000-digit integer (ValueError from int(), traceback, exit 1).
Now each gives exit 2 and one line on stderr naming the file and the problem. The CLI runs in
a child with a 1 GiB address-space limit, so that a regression fails the test quickly
instead of exhausting the machine.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from config.layering import load_policy
from config.policy import MAX_LAYER_BYTES, PolicyError, parse_layer

REPO = Path(__file__).resolve().parents[2]


def alias_bomb(levels: int = 9) -> str:
    lines = ["protected:", " age:", "  values:", "  - &l0 [" + ",".join(["lol"] * 9) + "]"]
    for level in range(1, levels):
        lines.append(f"  - &l{level} [" + ",".join([f"*l{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


BOMB = alias_bomb()
DEEP = "protected: " + "[" * 2000 + "]" * 2000 + "\n"
DEEP_BLOCK = "protected:\n" + "- " * 2000 + "x\n"  # compact nested block sequences


def scan_with_config(tmp_path: Path, content: bytes) -> subprocess.CompletedProcess[str]:
    config = tmp_path / ".codebias.yml"
    config.write_bytes(content)

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run(
        [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())",
         "scan", str(REPO / "examples" / "hiring.py"), "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        preexec_fn=bounded,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(BOMB.encode(), "aliases (*l0) are not allowed", id="alias-bomb"),
        pytest.param(DEEP.encode(), "nested deeper than 32 levels", id="2000-deep-flow"),
        pytest.param(DEEP_BLOCK.encode(), "nested deeper than 32 levels", id="2000-deep-block"),
        pytest.param("fail_on: none # désolé\n".encode("latin-1"), "not UTF-8", id="latin-1"),
        pytest.param(b"# padding\n" * 10_000, "larger than 64 KiB", id="100-KiB"),
        pytest.param(b"budget: {executions_per_function: " + b"9" * 5000 + b"}\n",
                     "digits", id="5000-digit-int"),
    ],
)  # fmt: skip
def test_scan_refuses_a_hostile_config_with_exit_2_and_a_message(
    tmp_path: Path, content: bytes, message: str
) -> None:
    result = scan_with_config(tmp_path, content)
    assert result.returncode == 2, result.stderr[-1000:]
    assert "Traceback" not in result.stderr
    error = result.stderr.splitlines()[-1]  # after "codebias: config: <file>" says which was read
    assert error.startswith("codebias: error: ") and message in error
    assert ".codebias.yml" in result.stderr  # names the file
    assert result.stdout == ""  # nothing half-written


def test_alias_bomb_is_refused_before_anything_is_built() -> None:
    assert len(BOMB.encode()) < 460  # the size of the reproducer
    with pytest.raises(PolicyError, match=r"line 5: YAML aliases \(\*l0\)"):
        parse_layer(BOMB, "o/r/.codebias.yml")


def test_anchors_without_aliases_and_ordinary_policies_still_parse() -> None:
    layer = parse_layer("fail_on: &f any\nprotected: {age: {synonyms: [years]}}\n", "c.yml")
    assert layer == {"fail_on": "any", "protected": {"age": {"synonyms": ["years"]}}}


def test_size_cap_counts_bytes_not_characters() -> None:
    text = "# " + "é" * (MAX_LAYER_BYTES // 2) + "\n"  # fewer characters than bytes
    with pytest.raises(PolicyError, match="larger than 64 KiB"):
        parse_layer(text, "c.yml")


@pytest.mark.parametrize("where", ["o/r", "o/.github"])
def test_app_policy_with_a_bomb_anywhere_in_its_layers_is_an_invalid_policy(where: str) -> None:
    """The App never builds (or fingerprints) a policy from a bomb, its own or the org's."""

    def fetch(repo: str, path: str) -> str | None:
        return BOMB if repo == where else None

    with pytest.raises(PolicyError, match=f"{where}/.codebias.yml: line 5: YAML aliases"):
        load_policy("o/r", fetch)
