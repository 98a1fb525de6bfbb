"""The engine's version: a digest of its own source.

The App caches verdicts and verified fixes under (source, policy, ENGINE_VERSION)
(bot/cache.py). A version written by hand is only as honest as the last person who
remembered to raise it; a digest of every module of `analysis` (the search, the harness, the
sandbox, the fix loop) changes with any change to them, so a verdict cached under one engine
is never served by another. Where the package is installed is no part of it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def source_digest(package: Path = PACKAGE) -> str:
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


ENGINE_VERSION = source_digest()
