"""The harness (analysis/execution/harness/runner.py) driven in this process, so its protocol
is unit-tested and coverage sees it. In production it runs only inside a child
(analysis/execution/process.py); here the
same `Harness` object gets the same request dicts, and its replies are read back from the
pipe it writes to, each checked under the session's key as the parent checks it. Everything
the harness changes in the process (sys.path, the import system, the working folder, the
alarm, the random state) is put back afterwards.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import signal
import sys
import sysconfig
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from analysis.execution.harness import runner as child
from analysis.execution.harness.recorded import RECORDED
from analysis.execution.harness.recorder import record
from analysis.execution.process import Channel

# The harness imports numpy and pandas on first use (a series or frame argument), inside the
# call and its time limit. In a test process that import must have happened before: the
# alarm of a call on a loaded machine would otherwise stop it half way, and the installed
# modules kept afterwards (below) would hold that half-made numpy for every later test of
# the process (a worker of pytest-xdist runs hundreds).
for _name in ("numpy", "pandas"):
    try:
        importlib.import_module(_name)
    except ImportError:
        pass  # absent here: the tests take the stand-in's side


class InProcessHarness:
    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.channel = Channel()
        self.harness = child.Harness(self.write_fd, key=self.channel.key)
        self.reader = os.fdopen(self.read_fd, "rb")

    def load(self, source: str, qualname: str = "f", **extra: Any) -> dict[str, Any]:
        msg = {"op": "load", "source": source, "filename": "case.py", "qualname": qualname}
        return self.roundtrip(self.harness.load({**msg, **extra}))

    def call(self, *args: Any, seed: int = 0, mask: tuple[Any, ...] = (), **kwargs: Any) -> Any:
        (outcome,) = self.calls(
            [{"args": list(args), "kwargs": kwargs, "seed": seed, "mask": list(mask)}]
        )
        return outcome

    def calls(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.roundtrip(self.harness.call_one(c)) for c in calls]

    def record(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        """The record op (harness/recorder.py): every line it streams, checked and read as
        it is written (a long recording would fill the pipe otherwise)."""
        lines: list[dict[str, Any]] = []

        def read() -> None:
            for line in self.reader:
                reply = json.loads(self.channel.open(line[:-1]))
                lines.append(reply)
                if reply.get("recorded") is True:
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        record(self.harness, {"op": "record", **msg})
        reader.join(timeout=10)
        return lines

    def roundtrip(self, reply: dict[str, Any]) -> dict[str, Any]:
        """Through the wire as the parent reads it: one signed JSON line on the reply pipe."""
        self.harness.send(reply)
        line = self.reader.readline()
        assert line.endswith(b"\n")
        decoded: dict[str, Any] = json.loads(self.channel.open(line[:-1]))
        return decoded

    def close(self) -> None:
        os.close(self.write_fd)
        self.reader.close()


INSTALLED = tuple(
    {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
)


def installed(module: object) -> bool:
    """A module of the standard library or site-packages (not a stub, not code under test)."""
    file = getattr(module, "__file__", None)
    return isinstance(file, str) and file.startswith(INSTALLED)


@contextmanager
def in_process_harness() -> Iterator[InProcessHarness]:
    saved_path = list(sys.path)
    saved_meta = list(sys.meta_path)
    saved_modules = set(sys.modules)
    saved_cwd = os.getcwd()
    saved_alarm = signal.getsignal(signal.SIGALRM)
    saved_random = random.getstate()
    stubs = child.STUBS
    saved_stubs = (set(stubs.forced), set(stubs.missing), stubs.allow)
    running = InProcessHarness()
    try:
        yield running
    finally:
        running.close()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, saved_alarm)
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        sys.meta_path[:] = saved_meta
        for name in set(sys.modules) - saved_modules:
            # Installed packages imported for real stay: C extensions (numpy) cannot load twice.
            if not installed(sys.modules[name]):
                del sys.modules[name]
        stubs.forced, stubs.missing, stubs.allow = saved_stubs
        stubs.touched.clear()
        random.setstate(saved_random)
        RECORDED.configure(None, None)  # evidence: forget the recorded calls
        sys.setprofile(None)
        threading.setprofile(None)
