"""The abuse suite: hostile functions from a pull request, each beside an ordinary one.

Every case runs a hostile function in a real bubblewrap sandbox while an ordinary function's
session is open in another, then asserts three things: the hostile function achieved nothing
on the host (files, processes, network, secrets, hostname), the ordinary function still gets
correct answers, and no process started by the case survives it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import (
    DAEMON_MARKER,
    ORDINARY_LIMITS,
    SANDBOX,
    assert_no_survivors,
    open_session,
    survivors,
)

from analysis.errors import SessionDied
from analysis.execution.process import Call, Outcome
from analysis.sandbox import BwrapExecutor

pytestmark = SANDBOX

REPO = Path(__file__).resolve().parents[2]
PWNED = "codebias-pwned"
SECRETS = {
    "GITHUB_WEBHOOK_SECRET": "whsec-6b1f0e3c-do-not-leak",
    "OPENAI_API_KEY": "sk-test-4e9a2c71-do-not-leak",
    "GITHUB_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY----- pem-5d2e-do-not-leak",
}
FILE_SECRET = "file-secret-93c1-do-not-leak"

ORDINARY = """
def decide(age, score):
    return score > 50 and age < 60
"""
ORDINARY_CALLS = [Call((30, 70)), Call((65, 70)), Call((30, 40))]
ORDINARY_ANSWERS = ["True", "False", "False"]


@dataclass
class Host:
    """What a hostile function might try to reach, and the means to tell if it did."""

    listener: socket.socket
    unix_server: socket.socket
    abstract_server: socket.socket
    unix_path: str
    abstract_name: str
    home_secret: Path
    decoy: subprocess.Popen[bytes]
    hostname: str
    outside_paths: list[str] = field(default_factory=list)

    def args(self) -> dict[str, Any]:
        return {
            "port": self.listener.getsockname()[1],
            "unix_path": self.unix_path,
            "abstract_name": self.abstract_name,
            "decoy_pid": self.decoy.pid,
            "worker_pid": os.getpid(),
            "home_secret": str(self.home_secret),
            "repo_file": str(REPO / "pyproject.toml"),
            "outside": self.outside_paths,
            "needles": [*SECRETS.values(), FILE_SECRET],
        }

    def assert_untouched(self) -> None:
        for server in (self.listener, self.unix_server, self.abstract_server):
            with pytest.raises(BlockingIOError):
                server.accept()  # nobody connected
        assert self.decoy.poll() is None, "the decoy host process was killed"
        for path in self.outside_paths:
            assert not os.path.exists(path), f"{path} was written on the host"
        assert self.home_secret.read_text() == FILE_SECRET
        assert socket.gethostname() == self.hostname


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)  # the worker's own secrets, as in the service
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    unix_path = str(tmp_path / "host.sock")
    unix_server = socket.socket(socket.AF_UNIX)
    unix_server.bind(unix_path)
    unix_server.listen(8)
    abstract_name = f"codebias-abuse-{os.getpid()}"
    abstract_server = socket.socket(socket.AF_UNIX)
    abstract_server.bind("\0" + abstract_name)
    abstract_server.listen(8)
    for s in (listener, unix_server, abstract_server):
        s.setblocking(False)
    home_secret = Path.home() / f".codebias-abuse-secret-{os.getpid()}"
    home_secret.write_text(FILE_SECRET)
    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    outside = [
        f"/{PWNED}",
        f"/usr/{PWNED}",
        f"/usr/lib/{PWNED}",
        str(REPO / PWNED),
        str(Path.home() / PWNED),
        f"/dev/{PWNED}",
        f"/dev/shm/{PWNED}-{os.getpid()}",
        f"/tmp/{PWNED}-{os.getpid()}",
        f"{sys.base_prefix}/{PWNED}",
    ]
    made = Host(
        listener=listener,
        unix_server=unix_server,
        abstract_server=abstract_server,
        unix_path=unix_path,
        abstract_name=abstract_name,
        home_secret=home_secret,
        decoy=decoy,
        hostname=socket.gethostname(),
        outside_paths=outside,
    )
    try:
        yield made
    finally:
        decoy.kill()
        decoy.wait()
        home_secret.unlink()
        for s in (listener, unix_server, abstract_server):
            s.close()


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    args: Callable[[dict[str, Any]], list[Any]]
    check: Callable[[list[dict[str, Any]]], None]  # the hostile calls' outcomes (or a death)
    calls: int = 1


def no_args(_: dict[str, Any]) -> list[Any]:
    return []


def failed(outcomes: list[Outcome], *words: str) -> None:
    """The hostile call errored or the sandbox died; optionally the reason names a word."""
    last = outcomes[-1]
    assert not last.ok, f"hostile call succeeded: {last}"
    reason = last.error
    if words:
        assert any(w in reason for w in words), reason


def answer(outcomes: list[Outcome]) -> Any:
    import ast

    first = outcomes[0]
    assert first.ok, first
    return ast.literal_eval(first.value)


def check_writes(outcomes: list[Outcome]) -> None:
    results = answer(outcomes)
    assert results and all(v != "written" for v in results.values()), results


def check_fill(outcomes: list[Outcome]) -> None:
    megabytes, error = answer(outcomes)
    assert error in ("OSError", "PermissionError") or error.startswith("OSError"), error
    assert megabytes <= 16, megabytes  # the tmpfs size, not the host's memory


def check_secrets(outcomes: list[Outcome]) -> None:
    readable, found = answer(outcomes)
    assert found == [], f"secrets visible inside the sandbox: {found}"
    assert readable == [], f"host files readable inside the sandbox: {readable}"


def check_network(outcomes: list[Outcome]) -> None:
    out = answer(outcomes)
    assert out["tcp"] != "connected" and out["unix"] != "connected", out
    assert out["abstract"] != "connected" and out["dns"] != "resolved", out
    assert out["interfaces"] == ["lo"], out


def check_signals(outcomes: list[Outcome]) -> None:
    out = answer(outcomes)
    assert out["decoy"] != "killed" and out["worker"] != "killed", out
    assert out["ptrace_worker"] != "attached" and out["ptrace_decoy"] != "attached", out
    failed(outcomes[1:])  # kill(-1) takes down the sandbox itself, nothing else


def check_capabilities(outcomes: list[Outcome]) -> None:
    out = answer(outcomes)
    for key in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(out[key], 16) == 0, out
    assert out["NoNewPrivs"] == "1", out
    assert out["mount"] != "mounted" and out["setuid"] != "root", out
    assert out["chroot"] != "chrooted", out


def check_namespaces(outcomes: list[Outcome]) -> None:
    out = answer(outcomes)
    assert all(v != "created" for v in out.values()), out


def check_stdio(outcomes: list[Outcome]) -> None:
    assert answer(outcomes) == "done"
    assert len(outcomes[0].stdout) <= 4000


CASES = [
    Case(
        "fork bomb",
        "import os\ndef f():\n    while True:\n        try:\n            os.fork()\n"
        "        except OSError:\n            pass\n",
        no_args,
        lambda o: failed(o),
    ),
    Case(
        "thread bomb",
        "import threading, time\ndef f():\n    while True:\n"
        "        threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n",
        no_args,
        lambda o: failed(o, "thread", "MemoryError", "RuntimeError"),
    ),
    Case(
        "memory bomb at once",
        "def f():\n    return len(bytearray(64 << 30))\n",
        no_args,
        lambda o: failed(o, "MemoryError"),
    ),
    Case(
        "memory bomb, gradual",
        "def f():\n    hoard = []\n    while True:\n        hoard.append(bytearray(8 << 20))\n",
        no_args,
        lambda o: failed(o, "MemoryError", "killed", "TimeoutError"),
    ),
    Case(
        "infinite loop",
        "def f():\n    while True:\n        pass\n",
        no_args,
        # Its alarm counts the time it ran: the CPU limit may come first.
        lambda o: failed(o, "TimeoutError", "SIGXCPU"),
    ),
    Case(
        "loop that ignores SIGALRM",
        "import signal\ndef f():\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "    while True:\n        pass\n",
        no_args,
        lambda o: failed(o, "did not answer in time", "wall-clock"),
    ),
    Case(
        "sleep forever with SIGALRM blocked",
        "import signal, time\ndef f():\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
        "    time.sleep(10 ** 9)\n",
        no_args,
        lambda o: failed(o, "did not answer in time", "wall-clock"),
    ),
    Case(
        "sleep forever",
        "import time\ndef f():\n    time.sleep(10 ** 9)\n",
        no_args,
        lambda o: failed(o, "TimeoutError"),
    ),
    Case(
        "flood of stdout and stderr",
        "import os\ndef f():\n"
        "    for _ in range(300):\n"
        "        os.write(1, b'x' * 65536)\n        os.write(2, b'y' * 65536)\n"
        "        print('z' * 65536)\n"
        "    return 'done'\n",
        no_args,
        check_stdio,
    ),
    Case(
        "reading stdin",
        "import os, sys\ndef f():\n    try:\n        input()\n        eof = 'line'\n"
        "    except EOFError:\n        eof = 'EOF'\n"
        "    return [sys.stdin.read(), os.read(0, 100), eof]\n",
        no_args,
        lambda o: (None if answer(o) == ["", b"", "EOF"] else pytest.fail(str(o))),
    ),
    Case(
        "writing outside the sandbox",
        "def f(paths, extra):\n    out = {}\n    for p in paths + extra:\n        try:\n"
        "            with open(p, 'w') as fh:\n                fh.write('pwned')\n"
        "            out[p] = 'written'\n"
        "        except OSError as exc:\n            out[p] = type(exc).__name__\n"
        "    return out\n",
        lambda h: [
            [p for p in h["outside"] if "/dev/shm/" not in p and not p.startswith("/tmp/")],
            ["/proc/sys/kernel/hostname", "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger",
             "/proc/sys/kernel/core_pattern", "/opt/python/" + PWNED, "/proc/1/root/" + PWNED],
        ],
        check_writes,
    ),
    Case(
        "filling /tmp",
        "import os\ndef f(directory):\n    written = 0\n    try:\n        for i in range(1000):\n"
        "            with open(os.path.join(directory, 'fill-%d' % i), 'wb') as fh:\n"
        "                for _ in range(4):\n"
        "                    fh.write(b'x' * (1 << 20))\n"
        "                    written += 1\n"
        "    except OSError as exc:\n        return [written, type(exc).__name__]\n"
        "    return [written, 'no error']\n",
        lambda h: ["/tmp"],
        check_fill,
    ),
    Case(
        "filling /dev/shm",
        "import os\ndef f(directory):\n    written = 0\n    try:\n        for i in range(1000):\n"
        "            with open(os.path.join(directory, 'fill-%d' % i), 'wb') as fh:\n"
        "                for _ in range(4):\n"
        "                    fh.write(b'x' * (1 << 20))\n"
        "                    written += 1\n"
        "    except OSError as exc:\n        return [written, type(exc).__name__]\n"
        "    return [written, 'no error']\n",
        lambda h: ["/dev/shm"],
        check_fill,
    ),
    Case(
        "reading host secrets: files, environment, other processes",
        "import os\n"
        "def f(paths, needles):\n    readable, found = [], []\n"
        "    texts = {'environ': repr(dict(os.environ))}\n"
        "    for p in paths:\n        try:\n            with open(p, 'rb') as fh:\n"
        "                texts[p] = fh.read().decode('latin-1')\n            readable.append(p)\n"
        "        except OSError:\n            pass\n"
        "    for pid in os.listdir('/proc'):\n        if pid.isdigit():\n"
        "            for name in ('environ', 'cmdline'):\n                try:\n"
        "                    with open('/proc/%s/%s' % (pid, name), 'rb') as fh:\n"
        "                        texts[pid + name] = fh.read().decode('latin-1')\n"
        "                except OSError:\n                    pass\n"
        "    for where, text in texts.items():\n        for needle in needles:\n"
        "            if needle in text:\n                found.append(where)\n"
        "    return [readable, found]\n",
        lambda h: [
            ["/etc/shadow", "/etc/passwd", "/etc/hostname", "/etc/resolv.conf",
             h["home_secret"], h["repo_file"], str(REPO / "analysis" / "execution.py"),
             "/proc/1/root/etc/shadow", "/root/.bash_history", "/proc/self/root/etc/shadow"],
            h["needles"],
        ],
        check_secrets,
    ),
    Case(
        "network: host loopback TCP, DNS, host Unix sockets",
        "import socket\n"
        "def f(port, unix_path, abstract_name):\n    out = {}\n"
        "    s = socket.socket()\n    s.settimeout(1)\n"
        "    try:\n        s.connect(('127.0.0.1', port))\n        out['tcp'] = 'connected'\n"
        "    except OSError as exc:\n        out['tcp'] = type(exc).__name__\n"
        "    try:\n        socket.getaddrinfo('codebias-abuse.invalid', 443)\n"
        "        out['dns'] = 'resolved'\n"
        "    except OSError as exc:\n        out['dns'] = type(exc).__name__\n"
        "    for key, address in (('unix', unix_path), ('abstract', '\\0' + abstract_name)):\n"
        "        u = socket.socket(socket.AF_UNIX)\n"
        "        try:\n            u.connect(address)\n            out[key] = 'connected'\n"
        "        except OSError as exc:\n            out[key] = type(exc).__name__\n"
        "    out['interfaces'] = [name for _, name in socket.if_nameindex()]\n"
        "    return out\n",
        lambda h: [h["port"], h["unix_path"], h["abstract_name"]],
        check_network,
    ),
    Case(
        "ptrace and kill of the parent and of host processes",
        "import ctypes, os, signal\n"
        "def f(decoy_pid, worker_pid, last):\n"
        "    if last:\n        os.kill(-1, signal.SIGKILL)\n"
        "    out = {'ppid': os.getppid()}\n"
        "    for name, pid in (('decoy', decoy_pid), ('worker', worker_pid)):\n"
        "        try:\n            os.kill(pid, signal.SIGKILL)\n            out[name] = 'killed'\n"
        "        except OSError as exc:\n            out[name] = type(exc).__name__\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    for name, pid in (('ptrace_worker', worker_pid), ('ptrace_decoy', decoy_pid),\n"
        "                      ('ptrace_parent', os.getppid() or 1)):\n"
        "        ok = libc.ptrace(16, pid, None, None) == 0\n"
        "        out[name] = 'attached' if ok else os.strerror(ctypes.get_errno())\n"
        "    return out\n",
        lambda h: [h["decoy_pid"], h["worker_pid"]],
        check_signals,
        calls=2,
    ),
    Case(
        "setsid daemon that tries to outlive the run",
        "import os, sys\ndef f(marker):\n    pid = os.fork()\n    if pid == 0:\n"
        "        os.setsid()\n        if os.fork() == 0:\n"
        "            os.execv(sys.executable, [sys.executable, '-c',\n"
        "                     'import time\\nwhile True: time.sleep(0.05)', marker])\n"
        "        os._exit(0)\n    os.waitpid(pid, 0)\n    return 'spawned'\n",
        lambda h: [DAEMON_MARKER],
        lambda o: None if answer(o) == "spawned" else pytest.fail(str(o)),
    ),
    Case(
        "descriptors inherited from the worker",
        "import os\ndef f():\n    out = []\n    for fd in os.listdir('/proc/self/fd'):\n"
        "        try:\n            out.append(os.readlink('/proc/self/fd/' + fd))\n"
        "        except OSError:\n            pass\n    return out\n",
        no_args,
        lambda o: None
        if all(t.startswith(("pipe:", "/dev/null", "/proc/")) for t in answer(o))
        else pytest.fail(f"descriptors leaked into the sandbox: {answer(o)}"),
    ),
    Case(
        "ctypes segfault",
        "import ctypes\ndef f():\n    return ctypes.string_at(0)\n",
        no_args,
        lambda o: failed(o, "SIGSEGV"),
    ),
    Case(
        "os._exit inside the function",
        "import os\ndef f():\n    os._exit(3)\n",
        no_args,
        lambda o: failed(o, "exit code 3"),
    ),
    Case(
        "sys.exit inside the function",
        "import sys\ndef f():\n    sys.exit(4)\n",
        no_args,
        lambda o: failed(o, "SystemExit"),
    ),
    Case(
        "capabilities",
        "import ctypes, os\ndef f():\n    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    status = dict(l.split(':', 1) for l in open('/proc/self/status') if ':' in l)\n"
        "    out = {k: status[k].strip() for k in\n"
        "           ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs')}\n"
        "    ok = libc.mount(b'none', b'/tmp', b'tmpfs', 0, None) == 0\n"
        "    out['mount'] = 'mounted' if ok else os.strerror(ctypes.get_errno())\n"
        "    try:\n        os.setuid(0)\n        out['setuid'] = 'root'\n"
        "    except OSError as exc:\n        out['setuid'] = type(exc).__name__\n"
        "    try:\n        os.chroot('/tmp')\n        out['chroot'] = 'chrooted'\n"
        "    except OSError as exc:\n        out['chroot'] = type(exc).__name__\n"
        "    return out\n",
        no_args,
        check_capabilities,
    ),
    Case(
        "nested namespaces",
        "import ctypes, os\ndef f():\n    libc = ctypes.CDLL(None, use_errno=True)\n    out = {}\n"
        "    for name, flag in (('user', 0x10000000), ('net', 0x40000000), ('mount', 0x20000),\n"
        "                       ('pid', 0x20000000), ('uts', 0x04000000),\n"
        "                       ('user+net', 0x50000000)):\n"
        "        ok = libc.unshare(flag) == 0\n"
        "        out[name] = 'created' if ok else os.strerror(ctypes.get_errno())\n"
        "    return out\n",
        no_args,
        check_namespaces,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_function_leaves_host_untouched_and_ordinary_function_correct(
    executor: BwrapExecutor, host: Host, case: Case
) -> None:
    ordinary = open_session(executor, ORDINARY, "decide", ORDINARY_LIMITS)
    try:
        assert ordinary.load_error is None, ordinary.load_error
        outcomes: list[Outcome] = []
        with open_session(executor, case.source, "f") as hostile:
            assert hostile.load_error is None, hostile.load_error
            base_args = case.args(host.args())
            for i in range(case.calls):
                args = base_args + ([i == case.calls - 1] if case.calls > 1 else [])
                try:
                    outcomes += hostile.run([Call(tuple(args))])
                except SessionDied as exc:
                    outcomes.append(Outcome(False, error=f"died: {exc}"))
                    break
            if case.name.startswith("setsid daemon"):
                # The daemon really runs on the host before the close: the test can see it.
                # The grandchild may not have exec'd yet when the call returns (a loaded
                # machine), so wait for its command line to show the marker.
                deadline = time.monotonic() + 20.0
                while not any(DAEMON_MARKER in s for s in survivors()):
                    assert time.monotonic() < deadline, "the daemon never started"
                    time.sleep(0.05)
        assert [o.value for o in ordinary.run(ORDINARY_CALLS)] == ORDINARY_ANSWERS
    finally:
        ordinary.close()
    case.check(outcomes)
    host.assert_untouched()
    assert_no_survivors()


def test_hostile_function_cannot_signal_its_own_bwrap_monitor(
    executor: BwrapExecutor,
) -> None:
    # pid 1 inside is bwrap's reaper; the monitor outside is invisible. Killing pid 1 (which
    # ignores signals from inside its namespace) must not free the code from its sandbox.
    source = "import os, signal\ndef f():\n    os.kill(1, signal.SIGKILL)\n    return os.getpid()\n"
    with open_session(executor, source, "f") as session:
        [outcome] = session.run([Call()])
    assert outcome.ok and int(outcome.value) > 1
    assert_no_survivors()


def test_closing_a_session_kills_every_sandbox_process_even_those_ignoring_signals(
    executor: BwrapExecutor,
) -> None:
    source = (
        "import os, signal, time\ndef f():\n"
        "    for _ in range(5):\n        if os.fork() == 0:\n"
        "            signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "            signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
        "            time.sleep(600)\n"
        "    return 'forked'\n"
    )
    with open_session(executor, source, "f") as session:
        assert session.run([Call()])[0].value == "'forked'"
        assert len(survivors()) >= 6
    assert_no_survivors()


def test_session_reports_death_when_sandboxed_function_is_killed_by_signal(
    executor: BwrapExecutor,
) -> None:
    source = "import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGABRT)\n"
    with open_session(executor, source, "f") as session:
        with pytest.raises(SessionDied, match="SIGABRT"):
            session.run([Call()])

