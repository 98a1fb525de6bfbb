"""The start-up self-test: prove the isolation holds here before running anything untrusted.

A probe function runs in a real sandbox and reports what it can reach; any answer other than
"nothing" makes the sandbox unavailable, with the precise reason. It fails closed: an error
while testing is a failed test. It also checks the bounds outside RLIMIT_AS: the seccomp
filter is on (memfd and vsock refused), the IPC namespace has our limits and cannot raise
them, and, where a cgroup is delegated, the sandbox runs in its slot's cgroup. Which memory
bound holds a whole sandbox is kept in `BwrapExecutor.memory_bound` (`python -m
analysis.sandbox` prints it).
"""

from __future__ import annotations

import ast
import json
import os
import socket
import threading
from typing import TYPE_CHECKING

from analysis.errors import SandboxUnavailable, SessionDied
from analysis.execution.process import Call, Limits, Target
from analysis.sandbox.bounds import ipc_limits
from analysis.sandbox.cgroups import SLOT_PREFIX

if TYPE_CHECKING:
    from analysis.sandbox.bwrap import BwrapExecutor, BwrapSession

PROBE = r"""
import json, os, socket

def attempt(action, success):
    try:
        action()
        return success
    except OSError as exc:
        return type(exc).__name__

def read_one(path):
    with open(path, "rb") as f:
        f.read(1)

def write(path, text):
    with open(path, "w") as f:
        f.write(text)

def connect(port):
    with socket.socket() as s:
        s.settimeout(1.0)
        s.connect(("127.0.0.1", port))

def vsock():
    socket.socket(40, socket.SOCK_STREAM).close()  # AF_VSOCK

def probe(host_file, port, secret_name, ipc_names):
    out = {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups()}
    out["host_file"] = attempt(lambda: read_one(host_file), "readable")
    out["tcp"] = attempt(lambda: connect(port), "connected")
    out["root_write"] = attempt(lambda: write("/codebias-probe", "x"), "written")
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    out["caps"] = {k: status[k].strip() for k in ("CapPrm", "CapEff", "CapBnd", "CapAmb")}
    out["no_new_privs"] = status.get("NoNewPrivs", "").strip()
    out["secret"] = secret_name in os.environ
    out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    out["seccomp"] = status.get("Seccomp", "").strip()
    out["memfd"] = attempt(lambda: os.close(os.memfd_create("probe")), "created")
    out["vsock"] = attempt(vsock, "created")
    out["ipc"] = {}
    for name in ipc_names:
        with open("/proc/sys/" + name) as f:
            out["ipc"][name] = " ".join(f.read().split())
    out["sysctl_write"] = attempt(lambda: write("/proc/sys/kernel/shmmni", "32768"), "written")
    return json.dumps(out)
"""

SECRET_NAME = "CODEBIAS_SELFTEST_SECRET"


def run_probe(executor: object) -> None:
    """Raise SandboxUnavailable unless the probe finds itself isolated."""
    from analysis.sandbox.bwrap import BwrapExecutor

    assert isinstance(executor, BwrapExecutor)
    executor.prepare()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        report, uid = probe(executor, listener.getsockname()[1])
        try:
            listener.accept()[0].close()
            leaked_connection = True
        except BlockingIOError:
            leaked_connection = False
    problems = judge(report, uid, leaked_connection, dict(ipc_limits(executor.shm_mb)))
    if problems:
        raise SandboxUnavailable("the sandbox self-test failed: " + "; ".join(problems))


def probe(executor: BwrapExecutor, port: int) -> tuple[dict[str, object], int]:
    """Run the probe in a sandbox; its report and the uid it should have run under."""
    host_file = os.path.abspath(__file__)  # the app's own file: must stay out of sight
    os.environ[SECRET_NAME] = "1"  # a worker secret that must not reach the sandbox
    limits = Limits(call_timeout=5.0, session_timeout=20.0)
    try:
        session = executor.open_session(
            Target(source=PROBE, filename="probe.py", qualname="probe"), limits, diagnose=True
        )
    except SessionDied as exc:
        raise SandboxUnavailable(f"the sandbox does not start here: {exc}") from None
    finally:
        os.environ.pop(SECRET_NAME, None)
    try:
        if session.load_error is not None:
            raise SandboxUnavailable(f"the self-test probe did not load: {session.load_error}")
        try:
            [outcome] = session.run(
                [Call((host_file, port, SECRET_NAME, [n for n, _ in ipc_limits(executor.shm_mb)]))]
            )
            if executor.cgroups is not None:
                check_cgroup(executor.cgroups.base, session)
        except SessionDied as exc:
            said = session.diagnostics()
            raise SandboxUnavailable(
                f"the sandbox does not start here: {exc}" + (f" (bwrap: {said})" if said else "")
            ) from None
        if not outcome.ok:
            raise SandboxUnavailable(f"the self-test probe failed: {outcome.error}")
        return json.loads(ast.literal_eval(outcome.value)), session.slot.uid
    finally:
        session.close()


def check_cgroup(base: str, session: BwrapSession) -> None:
    """The sandbox's pid 1 runs in its slot's cgroup, as seen from the host."""
    try:
        with open(f"/proc/{session.pid}/cgroup") as f:
            where = f.read()
    except OSError as exc:
        raise SandboxUnavailable(f"cannot see the sandbox's cgroup: {exc}") from None
    slot = f"/{SLOT_PREFIX}{session.slot.index}\n"
    if not where.endswith(slot):
        raise SandboxUnavailable(
            f"the sandbox does not run in its cgroup under {base}: {where.strip()}"
        )


def overflow_gid() -> int:
    try:
        with open("/proc/sys/kernel/overflowgid") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 65534


def judge(
    report: dict[str, object],
    expected_uid: int,
    leaked_connection: bool,
    ipc: dict[str, str],
) -> list[str]:
    # One check per promise of the sandbox (docs/security.md): a list, not logic.
    problems = []
    if report.get("uid") != expected_uid or report.get("gid") != expected_uid:
        problems.append(f"runs as uid {report.get('uid')}, expected {expected_uid}")
    # An unprivileged worker cannot drop its groups inside a user namespace (setgroups is
    # denied there): they show as the sandbox's own gid or the unmapped overflow gid.
    groups = report.get("groups")
    harmless = {expected_uid, overflow_gid()}
    strange = [g for g in groups if g not in harmless] if isinstance(groups, list) else [groups]
    if report.get("uid") == 0 or strange:
        problems.append("runs as root or with supplementary groups")
    if report.get("host_file") == "readable":
        problems.append("can read the app's files")
    if report.get("tcp") == "connected" or leaked_connection:
        problems.append("can reach the host's loopback network")
    if report.get("root_write") == "written":
        problems.append("can write to its root filesystem")
    caps = report.get("caps")
    if not isinstance(caps, dict) or any(int(str(v), 16) for v in caps.values()):
        problems.append(f"holds capabilities {caps}")
    if report.get("no_new_privs") != "1":
        problems.append("no_new_privs is not set")
    if report.get("secret") is not False:
        problems.append("sees the worker's environment")
    pids = report.get("pids")
    if not isinstance(pids, list) or len(pids) > 3:
        problems.append(f"sees processes outside its own pid namespace: {pids}")
    if report.get("seccomp") != "2":
        problems.append("runs without the seccomp filter")
    if report.get("memfd") != "PermissionError" or report.get("vsock") != "PermissionError":
        problems.append(
            f"the seccomp filter lets memfd ({report.get('memfd')}) or vsock "
            f"({report.get('vsock')}) through"
        )
    if report.get("ipc") != ipc:
        problems.append(f"its IPC namespace limits are {report.get('ipc')}, expected {ipc}")
    if report.get("sysctl_write") == "written":
        problems.append("can raise its own IPC namespace limits")
    return problems


class SelfTestCache:
    """One self-test per configuration per process; the verdict (or its reason) is kept."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.results: dict[tuple[object, ...], str | None] = {}

    def check(self, key: tuple[object, ...], executor: object) -> None:
        with self.lock:
            if key not in self.results:
                try:
                    run_probe(executor)
                    self.results[key] = None
                except SandboxUnavailable as exc:
                    self.results[key] = str(exc)
                except OSError as exc:
                    self.results[key] = f"the sandbox self-test could not run: {exc}"
            reason = self.results[key]
        if reason is not None:
            raise SandboxUnavailable(reason)


CACHE = SelfTestCache()
