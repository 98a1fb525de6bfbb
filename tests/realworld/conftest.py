"""Fixtures of the real-world corpus: the fetched sdists (skipped with a reason when PyPI cannot
be reached) and the helpers' own folder on sys.path (they are scripts, not a package)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import Package, cache_dir, load_manifest  # noqa: E402
from fetch import fetch  # noqa: E402


@pytest.fixture(scope="session")
def corpus_packages() -> list[Package]:
    return load_manifest()


@pytest.fixture(scope="session")
def corpus_cache(corpus_packages: list[Package]) -> Path:
    """The cache with every sdist unpacked; a download that cannot reach PyPI skips."""
    cache = cache_dir()
    failures = fetch(corpus_packages, cache)
    unreachable = {n: why for n, why in failures.items() if "URLError" in why or "timed out" in why}
    if unreachable:
        pytest.skip(f"PyPI unreachable, real-world corpus not fetched: {unreachable}")
    assert not failures, f"fetching the corpus failed: {failures}"
    return cache



