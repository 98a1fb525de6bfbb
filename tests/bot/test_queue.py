"""Job ids, coalescing and retries, with a real Redis for RQ."""

from __future__ import annotations

import re
import threading
import time

from hypothesis import given
from hypothesis import strategies as st
from redis import Redis
from rq import Queue
from rq.job import Job

from bot.events import ReviewRequest
from bot.queue import QUEUE_NAME, EmbeddedJobQueue, RQJobQueue, logical_id_of, rq_job_id


def request(sha: str = "a" * 40, number: int = 7) -> ReviewRequest:
    return ReviewRequest("octo-org", "Hello.World_2", number, sha, 4242, "pull_request.opened")


@given(st.text(min_size=1, max_size=60))
def test_rq_job_id_uses_only_rq_characters_and_reads_back(logical: str) -> None:
    job_id = rq_job_id(logical)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", job_id)
    assert logical_id_of(job_id) == logical


@given(st.text(min_size=1, max_size=30), st.text(min_size=1, max_size=30))
def test_rq_job_id_never_maps_two_logical_ids_together(a: str, b: str) -> None:
    assert (rq_job_id(a) == rq_job_id(b)) == (a == b)


def test_rq_job_id_of_a_review_is_readable() -> None:
    assert rq_job_id("octo/Hello-World#2@ab12") == "octo_2fHello-World_232_40ab12"


def test_rq_queue_runs_a_head_once_while_pending(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    queue = RQJobQueue(redis, (1, 2))
    assert queue.submit(request()) is True
    assert queue.submit(request()) is False  # same head, still queued: coalesced
    assert queue.submit(request("c" * 40)) is True  # a new head is a new job
    jobs = Queue(QUEUE_NAME, connection=redis).jobs
    assert [j.description for j in jobs] == [request().logical_id, request("c" * 40).logical_id]
    job = jobs[0]
    assert job.id == rq_job_id(request().logical_id)
    assert job.func_name == "bot.jobs.review_job" and job.args == (request().to_dict(),)
    assert job.retries_left == 2 and job.failure_ttl == 7 * 24 * 3600


def test_rq_queue_gives_a_rerun_its_own_id_and_keeps_the_old_job(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    queue = RQJobQueue(redis, ())
    queue.submit(request())
    first = Job.fetch(rq_job_id(request().logical_id), connection=redis)
    first.set_status("failed")
    assert queue.submit(request()) is True
    ids = [j.id for j in Queue(QUEUE_NAME, connection=redis).jobs]
    assert ids[-1] == first.id + "-r1"
    assert Job.fetch(first.id, connection=redis).get_status() == "failed"


def test_embedded_queue_coalesces_retries_and_keeps_failures() -> None:
    gate = threading.Event()
    calls: list[str] = []

    def runner(req: ReviewRequest) -> None:
        calls.append(req.logical_id)
        gate.wait(5)
        if req.head_sha == "f" * 40:
            raise RuntimeError("GitHub is down")

    done: list[bool] = []
    queue = EmbeddedJobQueue(
        runner, workers=2, retry_intervals=(0, 0), on_done=lambda ok, s: done.append(ok)
    )
    assert queue.submit(request()) is True
    assert queue.submit(request()) is False
    assert queue.submit(request("f" * 40)) is True
    gate.set()
    deadline = time.monotonic() + 10
    while not queue.idle() and time.monotonic() < deadline:
        time.sleep(0.01)
    queue.close()
    assert calls.count(request().logical_id) == 1
    assert calls.count(request("f" * 40).logical_id) == 3  # first try and two retries
    assert [f.logical_id for f in queue.failed] == [request("f" * 40).logical_id]
    assert "GitHub is down" in queue.failed[0].error
    assert sorted(done) == [False, True]
    assert queue.idle() and not queue.healthy()
