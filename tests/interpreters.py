"""Pythons for the tests of a target interpreter (`--python`): virtual environments the tests
build, and the other Python versions installed on this machine (never pyenv's shims, which
are shell scripts that pick a version by the folder they run in)."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

# A project's environment as the real-world corpus met it: `config==0.5.1` installs a
# top-level `config` package, and other distributions bring an `analysis` one; codebias's own
# top-level packages have those names too.
SHADOWING_PACKAGES = {
    "config/__init__.py": '"""The environment\'s own `config`."""\nSENIOR_AGE = 67\n',
    "analysis/__init__.py": '"""The environment\'s own `analysis`."""\n',
    "analysis/risk.py": (
        "from config import SENIOR_AGE\n\n\n"
        "def loading(age):\n"
        "    return 250.0 if age >= SENIOR_AGE else 0.0\n"
    ),
    "only_in_target.py": "WHERE = 'the target environment'\n",
}


def site_packages(venv: Path) -> Path:
    return venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def make_venv(folder: Path, files: dict[str, str], system_site: bool = False) -> Path:
    """A virtual environment of the Python running the tests (no pip: quick), its
    site-packages holding `files` (relative path -> text); returns its interpreter."""
    flags = ["--system-site-packages"] if system_site else []
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", *flags, str(folder)],
        check=True,
        capture_output=True,
    )
    for relative, text in files.items():
        path = site_packages(folder) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder / "bin" / "python"


def installed_python(version: str) -> str | None:
    """A real interpreter of `version` ("3.12") on this machine, or None."""
    folders = ["/usr/bin", "/usr/local/bin", *sorted(glob.glob(os.path.expanduser(
        "~/.pyenv/versions/*/bin")))]  # fmt: skip
    for folder in folders:
        path = os.path.join(folder, f"python{version}")
        if os.path.isfile(path) and os.access(path, os.X_OK) and "/shims/" not in path:
            return path
    return None


def older_python() -> str | None:
    """A Python older than the 3.11 the harness needs, the newest found."""
    for version in ("3.10", "3.9", "3.8", "3.7", "3.6", "2.7"):
        found = installed_python(version)
        if found is not None:
            return found
    return None


def newer_python() -> str | None:
    """A Python of another minor version than the one running the tests, 3.12 or newer."""
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for version in ("3.12", "3.13", "3.14"):
        if version != running and (found := installed_python(version)) is not None:
            return found
    return None
