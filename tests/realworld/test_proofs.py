"""Every biased label of the real-world corpus is proved by two calls that still differ.

Each package's proofs run in a subprocess of a venv where pip installed the package (and so its
dependencies), with the unpacked sdist first on sys.path. The venvs are built on first use
(about half a minute each); set CODEBIAS_REALWORLD_PROOFS=0 to skip when offline.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from corpus import Package, load_manifest, load_proofs
from prove import observe
from venvs import VenvError, ensure_deps

# One worker builds and uses the venvs (test_realworld.py's scans share them): two workers
# building one venv at once would break it.
pytestmark = [pytest.mark.realworld, pytest.mark.xdist_group("realworld-venvs")]

WITH_PROOFS = [p for p in load_manifest() if load_proofs(p.name)]


@pytest.mark.parametrize(
    "package",
    # The fast tier proves the packages whose venvs its smoke scan with dependencies builds
    # anyway; the other venvs (about 15 minutes to build when the cache is cold) and their
    # proofs belong to the slow tier.
    [pytest.param(p, marks=() if "deps" in p.smoke else pytest.mark.slow) for p in WITH_PROOFS],
    ids=[p.name for p in WITH_PROOFS],
)
def test_proofs_still_differ(package: Package, corpus_cache: Path) -> None:
    if os.environ.get("CODEBIAS_REALWORLD_PROOFS") == "0":
        pytest.skip("CODEBIAS_REALWORLD_PROOFS=0")
    try:
        python = ensure_deps(package, corpus_cache)
    except (VenvError, subprocess.SubprocessError) as error:
        pytest.skip(f"no venv with {package.name}'s dependencies: {error}")
    observed = observe(package, python, corpus_cache)
    assert observed, "the package has proofs, none ran"
    problems = [
        f"{seen.proof.function} [{seen.proof.attribute}]: "
        + (seen.error or f"no difference any more: {seen.outputs}")
        for seen in observed
        if not seen.differs
    ]
    assert not problems, "\n".join(problems)
    # A newer dependency may move a last digit; the proof holds while the outputs differ.
    drift = [seen.proof.function for seen in observed if not seen.as_recorded]
    if drift:
        print(f"outputs differ from the recorded ones (still a difference): {drift}")
