"""A function whose every call is slow: the search's batches of calls end by its deadline
(Session.run `until`), and what the calls run so far show is kept. Before, a batch started
near the deadline ran past the session's wall clock, and the child died with every outcome
of the batch unread: the function ended an error, its bias unproved."""

from __future__ import annotations

import time

from analysis_kit import model_of, verdict

from analysis import Engine
from analysis.execution.process import TIMEOUT_ERROR, Call, Limits, ProcessExecutor, Target
from analysis.search.working_base import find_working_base
from config.policy import default_policy


def quick_engine(seconds_per_function: float) -> Engine:
    policy = default_policy()
    budget = policy.budget.model_copy(update={"seconds_per_function": seconds_per_function})
    return Engine(policy.model_copy(update={"budget": budget}), executor=ProcessExecutor())


def slow(seconds: float) -> str:
    return (
        "import time\n"
        "def premium(age, income):\n"
        f"    time.sleep({seconds})\n"
        "    return income * (2 if age > 40 else 1)\n"
    )


def test_a_function_slower_than_its_batches_is_still_proved_biased() -> None:
    # A first batch of the age's and the income's every value takes 20 s or more.
    report = quick_engine(4.0).scan_function(slow(0.8), "case.py", "premium")
    assert report.status == "biased", report.reason
    assert "age" in {f.attribute for f in report.findings if not f.is_static}


def test_calls_that_would_end_past_the_time_given_are_not_run() -> None:
    target = Target(source=slow(0.25), filename="case.py", qualname="premium")
    calls = [Call((age, 1000)) for age in range(20, 60)]
    with ProcessExecutor().open(target, Limits(session_timeout=30.0)) as session:
        outcomes = session.run(calls, until=time.monotonic() + 2.0)
        ended = time.monotonic()
        assert 2 <= len(outcomes) < len(calls)
        assert all(o.ok for o in outcomes)
        assert session.run(calls[:3]) and not session.run(calls, until=ended - 1.0)


def test_a_function_whose_one_call_takes_seconds_gets_more_time_per_call() -> None:
    # A model's prediction: 1.5 s a call, past the call timeout of 1 s.
    report = verdict(slow(1.5), "premium")
    assert report.status == "biased", report.reason
    assert "age" in {f.attribute for f in report.findings if not f.is_static}


def test_a_call_that_hangs_keeps_the_call_timeout_as_it_was() -> None:
    hangs = "import time\ndef f(age):\n    if age < 35:\n        time.sleep(60)\n    return age\n"
    target = Target(source=hangs, filename="case.py", qualname="f")
    with ProcessExecutor().open(target, Limits(session_timeout=30.0)) as session:
        first, *rest = session.run([Call((age,)) for age in (30, 40, 50, 20, 60)])
        assert first.error.startswith(TIMEOUT_ERROR) and session.call_timeout == 1.0
        assert [o.ok for o in rest] == [True, True, False, True]



def test_a_slow_first_call_gets_more_time_in_any_run() -> None:
    # A recorded call replayed (no time given): a prediction of the project's own model.
    target = Target(source=slow(1.5), filename="case.py", qualname="premium")
    with ProcessExecutor().open(target, Limits(session_timeout=30.0)) as session:
        outcomes = session.run([Call((age, 1000)) for age in (30, 50)])
    assert [o.value for o in outcomes] == ["1000", "2000"]


def test_the_walk_to_a_working_base_ends_by_the_sessions_wall_clock() -> None:
    # Every call fails the same way, slowly: the walk's one step of single changes (53
    # calls, 13 s) would outlive the session; it stops at its wall clock instead.
    source = (
        "import time\n"
        "def premium(age, income, region, years, score, level, plan):\n"
        "    time.sleep(0.25)\n"
        "    total = income * (2 if age > 40 else 1) + years + score + level\n"
        "    raise ValueError(f'no rate for {region} under {plan} yet: {total}')\n"
    )
    model = model_of(source, "premium")
    target = Target(source=source, filename="case.py", qualname="premium")
    with ProcessExecutor().open(target, Limits(session_timeout=4.0)) as session:
        assert not find_working_base(model, session, default_policy())
        assert time.monotonic() < session.deadline
        assert session.run([Call((30, 1000, "north", 3, 1, 1, "basic"))])[0].error
