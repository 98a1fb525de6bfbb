"""The start-up self-test fails closed, and `--trust-code` is loud about what it gives up."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import SANDBOX

from analysis.errors import SandboxUnavailable
from analysis.execution.process import ProcessExecutor
from analysis.sandbox import BwrapExecutor, default_executor, verify
from analysis.sandbox.bounds import ipc_limits
from analysis.sandbox.selftest import judge

IPC = dict(ipc_limits(16))
REPO = Path(__file__).resolve().parents[2]

ISOLATED = {
    "uid": 60003,
    "gid": 60003,
    "groups": [],
    "host_file": "FileNotFoundError",
    "tcp": "ConnectionRefusedError",
    "root_write": "OSError",
    "caps": {"CapPrm": "0", "CapEff": "0", "CapBnd": "0", "CapAmb": "0"},
    "no_new_privs": "1",
    "secret": False,
    "pids": [1, 2],
    "seccomp": "2",
    "memfd": "PermissionError",
    "vsock": "PermissionError",
    "ipc": IPC,
    "sysctl_write": "OSError",
}


@pytest.mark.parametrize(
    ("change", "leaked", "complaint"),
    [
        ({"uid": 0, "gid": 0}, False, "runs as uid 0"),
        ({"groups": [0]}, False, "supplementary groups"),
        ({"host_file": "readable"}, False, "can read the app's files"),
        ({"tcp": "connected"}, False, "loopback network"),
        ({}, True, "loopback network"),
        ({"root_write": "written"}, False, "write to its root"),
        ({"caps": {"CapEff": "000001ffffffffff"}}, False, "capabilities"),
        ({"no_new_privs": "0"}, False, "no_new_privs"),
        ({"secret": True}, False, "environment"),
        ({"pids": list(range(1, 90))}, False, "pid namespace"),
        ({"seccomp": "0"}, False, "without the seccomp filter"),
        ({"memfd": "created"}, False, "lets memfd"),
        ({"vsock": "OSError"}, False, "or vsock"),
        ({"ipc": {**IPC, "kernel/shmmax": "18446744073692774399"}}, False, "IPC namespace"),
        ({"sysctl_write": "written"}, False, "raise its own IPC"),
    ],
    ids=lambda v: str(v)[:40],
)
def test_self_test_rejects_each_kind_of_leak(
    change: dict[str, object], leaked: bool, complaint: str
) -> None:
    problems = judge({**ISOLATED, **change}, 60003, leaked, IPC)
    assert any(complaint in p for p in problems), problems


def test_self_test_accepts_an_isolated_report() -> None:
    assert judge(ISOLATED, 60003, False, IPC) == []


def test_missing_bwrap_makes_the_sandbox_unavailable_with_the_reason(tmp_path: Path) -> None:
    executor = BwrapExecutor(bwrap=str(tmp_path / "no-bwrap-here"), slot_dir=str(tmp_path / "s"))
    with pytest.raises(SandboxUnavailable, match="bubblewrap is not installed"):
        verify(executor)


@pytest.mark.parametrize("fake", ["/bin/false", "/bin/true"])
def test_a_bwrap_that_cannot_start_sandboxes_fails_the_self_test(tmp_path: Path, fake: str) -> None:
    executor = BwrapExecutor(bwrap=fake, slot_dir=str(tmp_path / "s"))
    # (where root may not create mount namespaces, the staging fails first: closed all the same)
    with pytest.raises(SandboxUnavailable, match="does not start|could not stage"):
        verify(executor)
    with pytest.raises(SandboxUnavailable):  # cached: the same reason, without a new probe
        verify(executor)


def test_trust_code_returns_rlimit_only_executor_and_warns_loudly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    executor = default_executor(trust_code=True)
    assert type(executor) is ProcessExecutor
    assert "WITHOUT a sandbox" in capsys.readouterr().err


@pytest.mark.sandbox
@pytest.mark.skipif(SANDBOX[1].args[0], reason=SANDBOX[1].kwargs["reason"])
def test_default_executor_is_a_self_tested_bwrap_sandbox() -> None:
    executor = default_executor()
    assert isinstance(executor, BwrapExecutor)
    assert executor.layout is not None  # prepared and probed


@pytest.fixture
def visible_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder the sandbox launcher can execute from. As root, sandboxes start through
    nsenter inside the staging namespace, where a tmpfs covers the host's /tmp and the slot
    uid runs the binary: the folder must lie outside /tmp and be traversable by anyone."""
    if os.geteuid() != 0:
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="codebias-selftest-", dir="/var/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def test_self_test_reports_what_a_failing_bwrap_said(tmp_path: Path, visible_dir: Path) -> None:
    fake = visible_dir / "old-bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: Unknown option --disable-userns' >&2\nexit 1\n")
    fake.chmod(0o755)
    executor = BwrapExecutor(bwrap=str(fake), slot_dir=str(tmp_path / "s"))
    with pytest.raises(SandboxUnavailable) as failure:
        verify(executor)
    message = str(failure.value)
    if os.geteuid() == 0 and "could not stage" in message:
        # Root without the right to make a mount namespace (some containers): staging fails
        # before bwrap runs, and that is the message, with the helper's own reason.
        prefix = "could not stage the interpreter in a private mount namespace: "
        assert message.startswith(prefix), message
        assert message[len(prefix) :].strip(), message
        return
    assert message.startswith("the sandbox does not start here"), message
    assert "bwrap: Unknown option --disable-userns" in message, message


@pytest.mark.sandbox
@pytest.mark.skipif(SANDBOX[1].args[0], reason=SANDBOX[1].kwargs["reason"])
def test_sandbox_check_command_says_which_bounds_hold() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "analysis.sandbox"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"},
    )
    assert result.returncode == 0, result.stderr
    assert "seccomp filter: on" in result.stdout
    assert "IPC namespace limits: 16 MB" in result.stdout
    assert "as a whole: cgroup v2" in result.stdout or "as a whole: no cgroup: " in result.stdout
    assert "projects: a writable scratch view per session" in result.stdout
