"""The two interpreters the corpus is scanned from, as venvs under the cache.

- bare: `python3 -m venv` plus codebias (editable, from the given root) and nothing else: the
  repository as the App sees it, without its dependencies.
- one per package: `pip install <name>==<version>` (which pulls its dependencies), then
  codebias: the repository as its own CI sees it.

codebias is installed INTO THE VENV ONLY (never the global interpreter, whose editable install
other checkouts rely on). Each venv carries a marker naming what it was built for, so a second
run reuses it and a changed pin or codebias root rebuilds it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from corpus import Package, bare_venv

MARKER = ".codebias-venv"


class VenvError(RuntimeError):
    """A venv that could not be built; the message carries pip's last lines."""


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def _pip(venv: Path, *args: str, timeout: float) -> None:
    command = [str(python_of(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise VenvError(f"pip install {' '.join(args)} failed in {venv}:\n{tail}")


def _build(venv: Path, spec: str, installs: list[list[str]], base_python: str) -> Path:
    marker = venv / MARKER
    if marker.exists() and marker.read_text() == spec:
        return python_of(venv)
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([base_python, "-m", "venv", str(venv)], check=True, capture_output=True)
    try:
        for args in installs:
            _pip(venv, *args, timeout=1800)
    except (VenvError, subprocess.TimeoutExpired):
        shutil.rmtree(venv, ignore_errors=True)
        raise
    marker.write_text(spec)
    return python_of(venv)


def ensure_bare(cache: Path, codebias_root: Path, base_python: str = sys.executable) -> Path:
    """The bare venv's interpreter, built when missing or stale."""
    spec = f"bare\ncodebias={codebias_root.resolve()}\n"
    return _build(bare_venv(cache), spec, [["-e", str(codebias_root.resolve())]], base_python)


def ensure_with_deps(
    package: Package, cache: Path, codebias_root: Path, base_python: str = sys.executable
) -> Path:
    """The package's venv interpreter: the package from PyPI with its deps, then codebias."""
    wanted = list(package.pip_requirements)
    spec = f"{' '.join(wanted)}\ncodebias={codebias_root.resolve()}\n"
    installs = [wanted, ["-e", str(codebias_root.resolve())]]
    return _build(package.venv(cache), spec, installs, base_python)
