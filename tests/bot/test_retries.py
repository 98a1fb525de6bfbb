"""Retries and fairness in the embedded pool: a retry waits on a timer, never in a worker slot;
GitHub's Retry-After is honoured; one installation's burst does not starve another."""

from __future__ import annotations

import threading
import time

from bot.events import ReviewRequest
from bot.github_errors import GitHubUnavailable
from bot.queue import EmbeddedJobQueue


def request(n: int, installation: int = 1) -> ReviewRequest:
    return ReviewRequest("o", "r", n, f"{n:040x}", installation, "pull_request.opened")


def drain(queue: EmbeddedJobQueue, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not queue.idle():
        assert time.monotonic() < deadline, "the queue did not drain"
        time.sleep(0.01)


def test_a_retry_waits_on_a_timer_while_the_slot_serves_other_reviews() -> None:
    calls: list[tuple[int, float]] = []
    failed_once = threading.Event()

    def runner(req: ReviewRequest) -> None:
        calls.append((req.number, time.monotonic()))
        if req.number == 1 and not failed_once.is_set():
            failed_once.set()
            raise RuntimeError("GitHub answered 502")

    queue = EmbeddedJobQueue(runner, workers=1, retry_intervals=(2,))
    queue.submit(request(1))
    assert failed_once.wait(5)
    queue.submit(request(2))
    drain(queue)
    queue.close()
    assert [n for n, _ in calls] == [1, 2, 1]
    # The only worker ran review 2 during review 1's wait.
    assert calls[1][1] < calls[2][1] and calls[2][1] - calls[0][1] >= 2
    assert not queue.failed


def test_github_retry_after_is_honoured_when_longer_than_the_backoff() -> None:
    calls: list[float] = []

    def runner(req: ReviewRequest) -> None:
        calls.append(time.monotonic())
        if len(calls) == 1:
            raise GitHubUnavailable(
                "POST", "http://github/x", 403, "secondary rate limit", retry_after=2.0
            )

    queue = EmbeddedJobQueue(runner, workers=2, retry_intervals=(0,))
    queue.submit(request(1))
    drain(queue)
    queue.close()
    assert len(calls) == 2 and calls[1] - calls[0] >= 2.0
    assert queue.depth() == {"queued": 0, "waiting": 0, "scheduled": 0, "started": 0}


def test_one_installations_burst_does_not_starve_another() -> None:
    finished: list[int] = []
    lock = threading.Lock()

    def runner(req: ReviewRequest) -> None:
        time.sleep(0.005)
        with lock:
            finished.append(req.installation_id or 0)

    queue = EmbeddedJobQueue(runner, workers=2, retry_intervals=(), installation_concurrency=2)
    for n in range(150):
        queue.submit(request(n, installation=1))
    for n in range(150, 155):
        queue.submit(request(n, installation=2))
    depth = queue.depth()
    assert depth["waiting"] >= 150 - 2 and depth["queued"] + depth["started"] <= 4
    drain(queue)
    queue.close()
    assert len(finished) == 155
    last_small = max(i for i, who in enumerate(finished) if who == 2)
    # Without the per-installation share, the 5 would finish after all 150 (index 154).
    assert last_small < 20, finished[:25]


def test_shutting_down_cancels_pending_retries_and_keeps_them_as_failed() -> None:
    def runner(req: ReviewRequest) -> None:
        raise RuntimeError("down")

    queue = EmbeddedJobQueue(runner, workers=1, retry_intervals=(60,))
    queue.submit(request(1))
    deadline = time.monotonic() + 5
    while queue.depth()["scheduled"] != 1:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    started = time.monotonic()
    queue.close()
    assert time.monotonic() - started < 5  # not waiting out the 60 s
    assert not queue.healthy() and queue.problem() == "the service is shutting down"
