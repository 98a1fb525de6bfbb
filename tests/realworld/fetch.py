"""Download the corpus's sdists from PyPI, check their sha256 and unpack them into the cache.

    python tests/realworld/fetch.py [--cache DIR] [--only NAME ...]

The cache is ~/.cache/codebias-realworld unless $CODEBIAS_REALWORLD_CACHE (or --cache) says
otherwise. Idempotent: a package whose unpacked tree carries the right sha256 marker is left
alone; a download whose hash differs is deleted and the run fails for that package (the others
still go on). Nothing from these sdists is ever committed to this repository.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import Package, cache_dir, load_manifest  # noqa: E402
from sdist_archive import UnsafeArchive, extract  # noqa: E402

MARKER = ".codebias-sha256"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(package: Package, cache: Path) -> Path:
    """The sdist in cache/sdists, downloaded if missing, its hash checked either way."""
    target = cache / "sdists" / package.sdist
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        partial = target.with_suffix(target.suffix + ".part")
        with urllib.request.urlopen(package.url, timeout=120) as answer, partial.open("wb") as out:
            shutil.copyfileobj(answer, out)
        partial.replace(target)
    actual = sha256_of(target)
    if actual != package.sha256:
        target.unlink()
        raise RuntimeError(f"{package.sdist}: sha256 {actual} != pinned {package.sha256}")
    return target


def unpack(package: Package, archive: Path, cache: Path) -> Path:
    """Unpack the sdist's single top directory as cache/src/<name>-<version>."""
    root = package.source_root(cache)
    marker = root / MARKER
    if marker.exists() and marker.read_text().strip() == package.sha256:
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent) as scratch:
        extract(archive, Path(scratch))
        tops = list(Path(scratch).iterdir())
        if len(tops) != 1 or not tops[0].is_dir():
            raise RuntimeError(f"{package.sdist}: expected one top directory, got {len(tops)}")
        if root.exists():
            shutil.rmtree(root)
        tops[0].replace(root)
    marker.write_text(package.sha256 + "\n")
    return root


def fetch(packages: list[Package], cache: Path) -> dict[str, str]:
    """Fetch each package; returns the failures by name (empty when all are in place)."""
    failures: dict[str, str] = {}
    for package in packages:
        try:
            unpack(package, download(package, cache), cache)
        except (OSError, RuntimeError, tarfile.TarError, UnsafeArchive) as error:
            failures[package.name] = f"{type(error).__name__}: {error}"
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--only", nargs="*", default=None, help="package names to fetch")
    args = parser.parse_args(argv)
    cache = args.cache or cache_dir()
    packages = [p for p in load_manifest() if not args.only or p.name in args.only]
    failures = fetch(packages, cache)
    for package in packages:
        state = failures.get(package.name, "ok")
        print(f"{package.key:40} {state}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
