"""Shared test helpers: paths of the project and of the shared data set, and the
Hypothesis profiles.

Hypothesis profiles, chosen by HYPOTHESIS_PROFILE (scripts/test selects "ci"):
- "dev" (the default): random exploration, with failing examples kept in
  `.hypothesis/examples` at the repository root (gitignored) and replayed first next time.
- "ci": derandomized (the examples are a function of the test, so a failure in CI comes
  back on any machine with the same code and Hypothesis), and `print_blob`, so the report
  carries the `@reproduce_failure` line to replay it. Hypothesis does not allow an example
  database with derandomize (its examples never vary, so there is nothing to remember).

Tiers: tests marked `slow` (the whole real-world corpus, the 200-review fleet burst, the
Quick start from fresh venvs) are measurements that take minutes each. They are left out
unless `--full` is given (`bash scripts/test --full`) or a `-m` expression chooses what runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

ROOT = Path(__file__).resolve().parents[1]
HYPOTHESIS_EXAMPLES = ROOT / ".hypothesis" / "examples"

# Explicit, because Hypothesis derandomizes by default when it sees a CI variable.
settings.register_profile(
    "dev",
    database=DirectoryBasedExampleDatabase(str(HYPOTHESIS_EXAMPLES)),
    derandomize=False,
    print_blob=False,
)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        help="also run the slow tier (tests marked slow); `bash scripts/test --full`",
    )


def pytest_report_header(config: pytest.Config) -> str:
    if config.getoption("--full"):
        return "tier: full (slow tests included)"
    if config.getoption("markexpr"):
        return "tier: chosen by -m"
    return "tier: fast (tests marked slow are deselected; --full runs them)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--full") or config.getoption("markexpr"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
