"""Many sandboxes at once (2 x cores): each keeps its own uid and limits, and an abusive
one neither starves nor fails its neighbours."""

from __future__ import annotations

import ast
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sandbox_helpers import SANDBOX, SLOTS, UID_BASE, assert_no_survivors, open_session

from analysis.errors import SessionDied
from analysis.execution.process import Call, Limits, Session
from analysis.sandbox import BwrapExecutor

pytestmark = SANDBOX

N = 2 * (os.cpu_count() or 1)

INTROSPECT = """
import os, resource
def f(x):
    return [x * 2, os.getuid(), resource.getrlimit(resource.RLIMIT_AS)[0] >> 20,
            resource.getrlimit(resource.RLIMIT_NPROC)[0],
            resource.getrlimit(resource.RLIMIT_CPU)[0]]
"""

ORDINARY = """
def premium(age, smoker, base):
    rate = base * (1.5 if smoker else 1.0)
    return round(rate * (1.2 if age > 50 else 1.0), 2)
"""


def expected_premium(age: int, smoker: bool, base: int) -> float:
    rate = base * (1.5 if smoker else 1.0)
    return round(rate * (1.2 if age > 50 else 1.0), 2)


def test_concurrent_sandboxes_each_run_under_own_uid_with_own_limits(
    executor: BwrapExecutor,
) -> None:
    limits = [
        Limits(memory_mb=256 + 64 * i, processes=8 + i, cpu_seconds=10 + i, call_timeout=5.0)
        for i in range(N)
    ]
    sessions = [open_session(executor, INTROSPECT, "f", lim) for lim in limits]
    try:
        with ThreadPoolExecutor(N) as pool:
            answers = list(
                pool.map(lambda s: s.run([Call((7,))])[0], sessions)
            )
    finally:
        for s in sessions:
            s.close()
    seen = [ast.literal_eval(a.value) for a in answers]
    assert [x for x, *_ in seen] == [14] * N
    assert len({uid for _, uid, *_ in seen}) == N, "two sandboxes shared a uid"
    assert [(mem, nproc, cpu) for _, _, mem, nproc, cpu in seen] == [
        (lim.memory_mb, lim.processes, lim.cpu_seconds) for lim in limits
    ]
    assert_no_survivors()


HOG = """
import os, threading
def f():
    # Every process it may have, each spinning, plus memory, for as long as it is let live.
    hoard = []
    for _ in range(64):
        try:
            if os.fork() == 0:
                while True:
                    pass
        except OSError:
            break
    while True:
        hoard.append(bytearray(1 << 20))
"""


def test_abusive_sandbox_does_not_starve_or_fail_the_others(executor: BwrapExecutor) -> None:
    hostile = open_session(
        executor,
        HOG,
        "f",
        Limits(call_timeout=4.0, session_timeout=30.0, memory_mb=512, processes=32),
    )
    ordinary: list[Session] = []
    try:
        with ThreadPoolExecutor(N) as pool:
            bomb = pool.submit(hostile.run, [Call()])
            ordinary = [
                open_session(
                    executor, ORDINARY, "premium", Limits(call_timeout=5.0, session_timeout=60.0)
                )
                for _ in range(N - 1)
            ]
            cases = [
                (age, smoker, base)
                for age in (25, 50, 51, 70)
                for smoker in (False, True)
                for base in (100, 250)
            ]

            def scan(session: Session) -> list[Any]:
                assert session.load_error is None, session.load_error
                outcomes = session.run([Call(tuple(c)) for c in cases])
                return [float(o.value) if o.ok else o for o in outcomes]

            answers = list(pool.map(scan, ordinary))
            try:
                hostile_outcome: Any = bomb.result()
            except SessionDied as exc:
                hostile_outcome = str(exc)
    finally:
        hostile.close()
        for s in ordinary:
            s.close()
    want = [expected_premium(*c) for c in cases]
    assert answers == [want] * (N - 1)
    assert hostile_outcome != [] and not (
        isinstance(hostile_outcome, list) and hostile_outcome[0].ok
    )
    assert_no_survivors()


@pytest.mark.parametrize("slots", [2])
def test_sessions_wait_for_a_free_slot_when_all_are_taken(
    tmp_path: Any, slots: int
) -> None:
    small = BwrapExecutor(uid_base=UID_BASE + SLOTS, slots=slots, slot_dir=str(tmp_path / "slots"))
    held = [open_session(small, INTROSPECT, "f") for _ in range(slots)]
    try:
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(open_session, small, INTROSPECT, "f")
            held.pop().close()  # frees a slot: the waiting session gets it
            late = waiting.result(timeout=30)
            held.append(late)
            assert ast.literal_eval(late.run([Call((1,))])[0].value)[0] == 2
    finally:
        for s in held:
            s.close()
