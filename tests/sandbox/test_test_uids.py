"""Test runs that share a machine (several checkouts, several pytest-xdist workers) each take a
range of sandbox uids of their own: a survivor check counts every live process on its uids, so
two runs on one range take each other's sandboxes for survivors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sandbox_helpers import DAEMON_MARKER, SLOTS, UID_BASE

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def base_of_another_run() -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k != "CODEBIAS_TEST_UID_BASE"}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT)])
    done = subprocess.run(
        [sys.executable, "-c", "import sandbox_helpers as h; print(h.UID_BASE, h.DAEMON_MARKER)"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )
    base, marker = done.stdout.split()
    return int(base), marker


def test_another_run_takes_another_uid_range_and_daemon_marker() -> None:
    other, marker = base_of_another_run()
    # Each run holds two pools of SLOTS uids (test_sandbox_concurrency.py uses the second).
    assert other >= UID_BASE + 2 * SLOTS or other + 2 * SLOTS <= UID_BASE, (other, UID_BASE)
    assert marker != DAEMON_MARKER and DAEMON_MARKER not in marker
