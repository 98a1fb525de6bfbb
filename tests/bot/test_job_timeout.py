"""The job timeout in embedded mode (issue 11, item 6): a review job that outlives it is given
up (its place freed, counted as failed, not retried), its thread stops at its next step and
closes its check run instead of posting late; near the timeout the scan stops starting
functions and the review posts what it found, saying what was cut."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from botsupport import APP_ID
from fleetgithub import FleetGitHub
from scenario import BASE, HEAD, PATH, REPO, set_pull

from analysis import Engine
from analysis.scan.budget import Deadline
from bot.deadline import JobDeadline, JobTimedOut, current_deadline, job_deadline
from bot.events import ReviewRequest, route
from bot.jobs import JobContext
from bot.queue import EmbeddedJobQueue
from bot.settings import Settings
from config.policy import default_policy

REQUEST = ReviewRequest("octo", "hiring", 1, "a" * 40, 4242, "pull_request.opened")


def wait_until(condition: object, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def test_a_job_past_its_timeout_is_given_up_and_its_place_freed() -> None:
    release = threading.Event()
    seen: list[BaseException] = []
    done: list[bool] = []

    def stuck(request: ReviewRequest) -> None:
        # A job blocked past its timeout, as a hung step would be; then, at its next step,
        # it learns that it was given up.
        release.wait(30)
        try:
            current_deadline().check()
        except JobTimedOut as exc:
            seen.append(exc)
            raise

    queue = EmbeddedJobQueue(
        stuck, workers=2, retry_intervals=(0,), on_done=lambda ok, s: done.append(ok),
        job_timeout=0.3,
    )  # fmt: skip
    started = time.monotonic()
    assert queue.submit(REQUEST)
    wait_until(queue.idle)
    assert time.monotonic() - started < 5
    assert done == [False]
    assert "exceeded the job timeout of 0.3 s" in queue.failed[-1].error
    # The logical id is free again: a redelivery (or a re-run) is taken, not deduplicated.
    release.set()
    wait_until(lambda: seen)
    assert "exceeded its timeout of 0.3 s" in str(seen[0])
    time.sleep(0.2)
    assert done == [False]  # the late end of the given-up job is not counted twice
    assert queue.depth()["scheduled"] == 0  # and not retried
    queue.close()


def test_a_job_that_ends_in_time_is_not_given_up() -> None:
    done: list[bool] = []
    queue = EmbeddedJobQueue(
        lambda request: None, workers=1, retry_intervals=(),
        on_done=lambda ok, s: done.append(ok), job_timeout=0.5,
    )  # fmt: skip
    queue.submit(REQUEST)
    wait_until(queue.idle)
    time.sleep(0.7)  # past the timeout: the watchdog was stopped
    assert done == [True] and not queue.failed
    queue.close()


@pytest.mark.sandbox
def test_past_the_testing_deadline_the_scan_cuts_functions_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "rules.py").write_text("def rule(age):\n    return 1 if age > 60 else 0\n")
    over = Deadline(time.monotonic() - 1, "the review job's time limit (10 s) is near")
    report = Engine(default_policy(), deadline=over).scan_paths([str(tmp_path / "rules.py")])
    (function,) = report.functions
    assert function.status == "unverified" and function.executions == 0
    assert "not run: the review job's time limit (10 s) is near" in (function.reason or "")
    assert any("1 function(s) not run" in w and "split the pull request" in w
               for w in report.warnings)  # fmt: skip


@pytest.fixture
def github(app_keys: tuple[str, str]) -> Iterator[FleetGitHub]:
    fake = FleetGitHub(public_key=app_keys[1], app_id=APP_ID, latency=0.3).start()
    yield fake
    fake.stop()


def request_for(event: dict[str, object]) -> ReviewRequest:
    routed = route("pull_request", event)
    assert isinstance(routed, ReviewRequest)
    return dataclasses.replace(routed, delivery="delivery-1")


@pytest.mark.sandbox
def test_a_review_near_its_timeout_posts_what_it_found_and_what_was_cut(
    github: FleetGitHub, embedded_settings: Settings
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    late = JobDeadline(timeout=100, started=time.monotonic() - 90)  # testing ends at 80 s
    with job_deadline(late):
        result = JobContext.build(embedded_settings).run(request_for(event))
    assert result.startswith("neutral") or result.startswith("success"), result
    run = github.repo(REPO).check_runs[-1]
    assert run["status"] == "completed"
    print(run["output"])
    assert "the review job's time limit (100 s) is near" in run["output"]["summary"]


@pytest.mark.sandbox
def test_a_review_given_up_closes_its_check_run_and_posts_no_review(
    github: FleetGitHub, embedded_settings: Settings
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    context = JobContext.build(embedded_settings)
    # Every GitHub call takes 0.3 s: the review cannot finish within 1.5 s.
    queue = EmbeddedJobQueue(context.run, workers=1, retry_intervals=(0,), job_timeout=1.5)
    queue.submit(request_for(event))
    wait_until(queue.idle)
    assert "exceeded the job timeout of 1.5 s" in queue.failed[-1].error
    queue.close()  # waits for the given-up thread, which stops at its next step
    repo = github.repo(REPO)
    assert not repo.reviews
    for run in repo.check_runs:
        assert run["status"] == "completed"
        assert run["output"]["title"] == "The review timed out"
