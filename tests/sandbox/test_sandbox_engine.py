"""The engine over the sandbox: hostile functions in a module do not spoil the verdicts of
the ordinary functions next to them."""

from __future__ import annotations

from collections.abc import Callable

from sandbox_helpers import SANDBOX, assert_no_survivors

from analysis import Engine, FunctionReport
from analysis.execution.process import Limits
from analysis.sandbox import BwrapExecutor
from config.policy import default_policy

pytestmark = SANDBOX

MODULE = '''
import os, signal


def hire(age, years_experience):
    if age > 55:
        return False
    return years_experience >= 3


def loan_rate(gender, income):
    base = 0.05 if income > 50000 else 0.08
    return base + (0.01 if gender == "female" else 0.0)


def shortlist(applicant):
    if applicant["age"] is None:
        raise ValueError("missing age")
    return applicant["score"] >= 70


def eligible(age, income):
    if not isinstance(age, int):
        raise TypeError("age must be a whole number of years")
    return income > 30000


# Hostile functions read the protected input first, so that the engine has to run them.
def fork_bomb(age):
    if age is None:
        return None
    while True:
        try:
            os.fork()
        except OSError:
            pass


def ignores_alarms(gender):
    if gender is None:
        return None
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        pass


def exfiltrate(region):
    if region is None:
        return None
    return open("/etc/shadow").read()


def memory_bomb(age):
    if age is None:
        return None
    return len(bytearray(1 << 40))


def crash(race):
    if race is None:
        return None
    import ctypes
    return ctypes.string_at(0)
'''


def test_engine_over_sandbox_keeps_ordinary_verdicts_beside_hostile_functions(
    executor: BwrapExecutor,
) -> None:
    limits = Limits(call_timeout=1.0, session_timeout=5.0, memory_mb=512, processes=32)
    engine = Engine(default_policy(), executor=executor, jobs=2, limits=limits)
    reports = {r.qualname: r for r in engine.scan_source(MODULE, "pr/hostile.py")}
    expectations: dict[str, Callable[[FunctionReport], bool]] = {
        "hire": lambda r: r.status == "biased" and r.biased_attributes == ["age"],
        "loan_rate": lambda r: r.status == "biased" and r.biased_attributes == ["gender"],
        "shortlist": lambda r: r.status == "clean",
        "eligible": lambda r: r.status == "clean",
    }
    for name, ok in expectations.items():
        assert ok(reports[name]), reports[name]
    for name in ("fork_bomb", "ignores_alarms", "exfiltrate", "memory_bomb", "crash"):
        report = reports[name]
        assert report.executions > 0 or report.status in ("unverified", "error"), report
        assert report.status != "biased" and not report.findings, report
    assert_no_survivors()
