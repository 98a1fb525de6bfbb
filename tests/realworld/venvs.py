"""The interpreters the corpus is scanned and proved from, as venvs under the cache.

- bare: `python3 -m venv` plus codebias (editable, from the given root) with the scientific
  stack and the test runner the App's image ships (`codebias[science,recording]`: numpy, pandas,
  polars, scipy, pytest) and nothing else:
  the repository as the App sees it, without its own dependencies.
- one per package: `pip install <name>==<version>` (which pulls its dependencies) and nothing
  else: it runs the proofs, and the "with dependencies" scan runs the code under test with its
  interpreter (`codebias scan --python`, codebias itself from the bare venv), the repository
  as its own CI sees it.

codebias is installed INTO THE BARE VENV ONLY (never the global interpreter, whose editable
install other checkouts rely on, nor a package's venv, whose own `config` distribution would
meet codebias's `config`). Each venv carries a marker of what it holds, so a second run reuses
it, a changed pin rebuilds it, and a changed codebias root or pyproject.toml only reinstalls
codebias.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from corpus import Package, bare_venv

MARKER = ".codebias-venv"
PIP_TIMEOUT = 1800


class VenvError(RuntimeError):
    """A venv that could not be built; the message carries pip's last lines."""


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def _pip(venv: Path, *args: str) -> None:
    command = [str(python_of(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False
    )
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise VenvError(f"pip install {' '.join(args)} failed in {venv}:\n{tail}")


def _held(venv: Path) -> list[str]:
    marker = venv / MARKER
    return marker.read_text().splitlines() if marker.exists() else []


def _base(
    venv: Path, first: str, installs: list[str], base_python: str, only: bool = False
) -> None:
    """The venv with `installs`, recorded as the marker's first line; rebuilt when it differs,
    or (`only`) when it holds more (a package's venv that codebias was once installed into)."""
    held = _held(venv)
    if held and held[0] == first and not (only and len(held) > 1):
        return
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([base_python, "-m", "venv", str(venv)], check=True, capture_output=True)
    try:
        if installs:
            _pip(venv, *installs)
    except (VenvError, subprocess.TimeoutExpired):
        shutil.rmtree(venv, ignore_errors=True)
        raise
    (venv / MARKER).write_text(first + "\n")


def _with_codebias(venv: Path, codebias_root: Path, extras: str = "") -> None:
    # The editable install follows the source, not its dependencies: a pyproject.toml that
    # gained a dependency (as main's did, pathspec) must reinstall, hence its hash in the marker.
    digest = hashlib.sha256((codebias_root / "pyproject.toml").read_bytes()).hexdigest()[:16]
    line = f"codebias={codebias_root.resolve()} pyproject={digest} extras={extras}"
    held = _held(venv)
    if line in held:
        return
    wanted = str(codebias_root.resolve()) + (f"[{extras}]" if extras else "")
    _pip(venv, "-e", wanted)
    kept = [h for h in held if not h.startswith("codebias=")]
    (venv / MARKER).write_text("\n".join([*kept, line]) + "\n")


def ensure_bare(cache: Path, codebias_root: Path, base_python: str = sys.executable) -> Path:
    """The bare venv's interpreter (codebias as the App's image has it), built when missing
    or stale."""
    venv = bare_venv(cache)
    _base(venv, "bare", [], base_python)
    _with_codebias(venv, codebias_root, extras="science,recording")
    return python_of(venv)


def ensure_deps(package: Package, cache: Path, base_python: str = sys.executable) -> Path:
    """The package's venv interpreter with its dependencies and nothing else (what the proofs
    and the "deps" scan's code under test run with)."""
    wanted = list(package.pip_requirements)
    _base(package.venv(cache), "requirements=" + " ".join(wanted), wanted, base_python, only=True)
    return python_of(package.venv(cache))
