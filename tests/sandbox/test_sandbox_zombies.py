"""A scan run as pid 1 (as in a container) leaves no zombies behind (issue 11, item 8).

Reproducer: `codebias scan examples/hiring.py` as pid 1 of a pid namespace (`unshare --pid
--fork --mount-proc` as root, `bwrap --unshare-pid --as-pid-1` otherwise), then a look at
/proc before exiting. Before the fix, closing a session killed the sandbox's pid 1 and, right
after, its bwrap monitor: the monitor died before it could reap its child, the child was
reparented to pid 1, and nothing ever waited for it: one zombie per session.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from sandbox_helpers import SANDBOX

pytestmark = SANDBOX

REPO = Path(__file__).resolve().parents[2]

SCAN_AS_PID_1 = r"""
import contextlib, io, json, os, sys
from bot.cli import main

out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["scan", sys.argv[1], "--format", "json"])
report = json.loads(out.getvalue())
zombies = []
for entry in os.listdir("/proc"):
    if not entry.isdigit():
        continue
    try:
        with open(f"/proc/{entry}/stat") as f:
            stat = f.read()
    except OSError:
        continue
    state, parent = stat[stat.rfind(")") + 2 :].split()[:2]
    if state == "Z" and int(parent) == os.getpid():
        zombies.append(stat[:60])
print(json.dumps({
    "pid": os.getpid(),
    "code": code,
    "tested": sum(1 for f in report["functions"] if f["executions"]),
    "zombies": zombies,
}))
"""


def as_pid_1() -> list[str]:
    if os.geteuid() == 0:
        return ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
    bwrap = shutil.which("bwrap") or "bwrap"
    return [bwrap, "--dev-bind", "/", "/", "--proc", "/proc", "--unshare-pid", "--as-pid-1",
            "--die-with-parent"]  # fmt: skip


def test_scan_as_pid_1_reaps_every_sandbox() -> None:
    result = subprocess.run(
        [*as_pid_1(), sys.executable, "-c", SCAN_AS_PID_1, str(REPO / "examples" / "hiring.py")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["pid"] == 1
    assert seen["code"] in (0, 1) and seen["tested"] >= 3, seen  # sessions really ran
    assert seen["zombies"] == [], seen
