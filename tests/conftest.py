"""Shared test helpers: paths of the project and of the shared data set, and the
Hypothesis profiles.

Hypothesis profiles, chosen by HYPOTHESIS_PROFILE (scripts/test selects "ci"):
- "dev" (the default): random exploration, with failing examples kept in
  `.hypothesis/examples` at the repository root (gitignored) and replayed first next time.
- "ci": derandomized (the examples are a function of the test, so a failure in CI comes
  back on any machine with the same code and Hypothesis), and `print_blob`, so the report
  carries the `@reproduce_failure` line to replay it. Hypothesis does not allow an example
  database with derandomize (its examples never vary, so there is nothing to remember).
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
