"""Hypothesis runs under a named profile (tests/conftest.py), so CI failures reproduce."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]


def test_the_ci_profile_is_derandomized_and_prints_reproduction_blobs() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize is True
    assert ci.print_blob is True
    assert ci.database is None


def test_the_dev_profile_keeps_failing_examples_in_an_ignored_folder_of_the_repo() -> None:
    dev = settings.get_profile("dev")
    assert dev.derandomize is False
    assert Path(dev.database.path) == ROOT / ".hypothesis" / "examples"
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".hypothesis/examples/x"], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0, ".hypothesis/ must stay out of git"


def test_the_environment_picks_the_profile() -> None:
    wanted = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    assert settings.default.derandomize is (wanted == "ci")
    # And in a fresh process with the variable set, as scripts/test sets it.
    probe = (
        "import runpy\n"
        "from hypothesis import settings\n"
        f"runpy.run_path({str(ROOT / 'tests' / 'conftest.py')!r})\n"
        "print(settings.default.derandomize, settings.default.print_blob)\n"
    )
    for profile, shown in (("ci", "True True"), ("dev", "False False")):
        done = subprocess.run(
            [sys.executable, "-c", probe],
            text=True,
            capture_output=True,
            check=True,
            env={**os.environ, "HYPOTHESIS_PROFILE": profile},
        )
        assert done.stdout.strip() == shown, done.stderr


def test_scripts_test_selects_the_ci_profile() -> None:
    text = (ROOT / "scripts/test").read_text(encoding="utf-8")
    assert 'export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"' in text
    assert text.index("HYPOTHESIS_PROFILE") < text.index("python -m pytest")
