"""A function that kills its sandbox is an `error`, as the README says (issue 24, item 3).

Reproducer: a function that segfaults, calls `os._exit`, runs past every clock or is killed as
the kernel kills for memory, for older people only, was reported `unverified` with
`executions: 0`, though its calls ran. Now it is `error`, the reason says how it died, the calls
that ran are counted (the fatal one included), and what the code says is kept beside it as
static findings.
"""

from __future__ import annotations

import pytest
from sandbox_helpers import SANDBOX, assert_no_survivors

from analysis import Engine
from analysis.execution.process import Limits
from analysis.sandbox import BwrapExecutor
from config.policy import default_policy

pytestmark = SANDBOX

LIMITS = Limits(call_timeout=1.0, load_timeout=5.0, session_timeout=5.0, memory_mb=512)

FATAL = {
    "segfault": ("import ctypes\n", "        ctypes.string_at(0)\n", "SIGSEGV"),
    "os._exit": ("import os\n", "        os._exit(3)\n", "exit code 3"),
    "past every clock": (
        "import signal\n",
        "        signal.signal(signal.SIGALRM, signal.SIG_IGN)\n        while True:\n"
        "            pass\n",
        # the session's wall clock; on a busy machine, where that clock runs behind by the
        # time the child waited for a processor (analysis/execution/waiting.py), the batch's
        # own time or the child's CPU limit, whichever comes first: out of time either way
        ("wall-clock", "did not answer in time", "exceeded a CPU or memory limit"),
    ),
    "killed for memory": (
        "import os, signal\n",
        "        os.kill(os.getpid(), signal.SIGKILL)\n",  # what an OOM kill looks like from here
        "SIGKILL",
    ),
}


@pytest.mark.parametrize("how", list(FATAL))
def test_a_function_that_kills_its_sandbox_is_an_error_with_its_calls_and_static_findings(
    executor: BwrapExecutor, how: str
) -> None:
    imports, fatal, said = FATAL[how]
    source = f"{imports}\n\ndef premium(age, base):\n    if age > 60:\n{fatal}    return base * 2\n"
    engine = Engine(default_policy(), executor=executor, limits=LIMITS)
    report = engine.scan_function(source, "fatal.py", "premium")
    assert report.status == "error", (report.status, report.reason)
    saids = said if isinstance(said, tuple) else (said,)
    assert any(s in (report.reason or "") for s in saids), report.reason
    assert report.executions >= 1  # the fatal call ran, and is counted
    assert [(f.attribute, f.method) for f in report.findings] == [("age", "static")]
    assert_no_survivors()


def test_a_module_that_kills_its_sandbox_while_loading_is_an_error(
    executor: BwrapExecutor,
) -> None:
    source = "import ctypes\n\nctypes.string_at(0)\n\n\ndef premium(age):\n    return age > 60\n"
    engine = Engine(default_policy(), executor=executor, limits=LIMITS)
    report = engine.scan_function(source, "fatal.py", "premium")
    assert report.status == "error", (report.status, report.reason)
    assert "SIGSEGV" in (report.reason or "") and "load" in (report.reason or "")
    assert [(f.attribute, f.method) for f in report.findings] == [("age", "static")]
