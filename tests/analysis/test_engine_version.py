"""The engine's version follows its source: a verdict the App cached under one engine (keyed
by ENGINE_VERSION, bot/cache.py) is never served by an engine that changed since."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def version_of(root: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from analysis import ENGINE_VERSION; print(ENGINE_VERSION)"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def copy_of_the_packages(into: Path) -> Path:
    for package in ("analysis", "config"):
        shutil.copytree(
            ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return into


def test_a_copy_of_the_engine_has_its_version_and_a_change_to_it_another(tmp_path: Path) -> None:
    same = copy_of_the_packages(tmp_path / "same")
    changed = copy_of_the_packages(tmp_path / "changed")
    search = changed / "analysis" / "search" / "search.py"
    text = search.read_text(encoding="utf-8")
    assert "CONFIRM_RUNS = 2\n" in text
    search.write_text(text.replace("CONFIRM_RUNS = 2\n", "CONFIRM_RUNS = 3\n"), encoding="utf-8")
    assert version_of(same) == version_of(ROOT)  # where it lives is no part of it
    assert version_of(changed) != version_of(same)


def test_a_change_to_the_sandbox_or_the_fix_loop_is_a_new_version(tmp_path: Path) -> None:
    before = version_of(copy_of_the_packages(tmp_path / "before"))
    for module in ("analysis/sandbox/seccomp.py", "analysis/mitigation/loop.py"):
        root = copy_of_the_packages(tmp_path / module.replace("/", "-"))
        with (root / module).open("a", encoding="utf-8") as out:
            out.write("\nCHANGED = True\n")
        assert version_of(root) != before, module
