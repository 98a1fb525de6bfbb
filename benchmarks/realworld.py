"""Benchmark: codebias on the real-world corpus, without and with each package's dependencies.

    python benchmarks/realworld.py [--modes bare,deps] [--only NAME ...] [--json FILE] [--verbose]

A thin entry point to tests/realworld/measure.py (same options): fetches the pinned sdists
from PyPI into ~/.cache/codebias-realworld (or $CODEBIAS_REALWORLD_CACHE), builds the venvs
there, scans each package from them and prints the per-package tables, recall, precision,
false alarms, crashes and the speed target. Figures are recorded in tests/realworld/README.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "realworld"))

from measure import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
