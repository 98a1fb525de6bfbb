"""The RQ worker's own settings and reports, in this process (the fleet tests run it as a
real subprocess and kill it; those runs are not seen by coverage)."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from botsupport import APP_ID
from redis import Redis
from rq.exceptions import AbandonedJobError
from rq.job import Job

from bot.events import ReviewRequest
from bot.queue import QUEUE_NAME, RQJobQueue, rq_job_id
from bot.settings import Settings
from bot.worker import ReviewWorker


def settings_for_worker(private_key: str, redis_url: str, **extra: str) -> Settings:
    env = {"GITHUB_APP_ID": APP_ID, "GITHUB_PRIVATE_KEY": private_key, "REDIS_URL": redis_url}
    return Settings.from_env({**env, **extra}, role="worker")


def test_heartbeat_drives_monitoring_maintenance_and_abandonment(
    app_keys: tuple[str, str], redis_url: str
) -> None:
    settings = settings_for_worker(app_keys[0], redis_url, CODEBIAS_HEARTBEAT="5")
    worker = ReviewWorker([QUEUE_NAME], connection=Redis.from_url(redis_url), settings=settings)
    assert worker.job_monitoring_interval == 5 and worker.maintenance_interval == 10
    job = Job.create("bot.jobs.review_job", connection=worker.connection, timeout=1800)
    # A job silent for two heartbeats is abandoned (RQ's own default: a minute more).
    assert worker.get_heartbeat_ttl(job) == 10


def test_the_worker_stops_listening_promptly_after_its_listener_saw_the_unsubscribe(
    app_keys: tuple[str, str], redis_url: str
) -> None:
    # The race that held a burst worker a minute at exit: the listener thread handles the
    # unsubscribe reply before it is told to stop, then waits for a subscription that never
    # comes (RQ's 60 s) while redis-py's stop() joins it.
    settings = settings_for_worker(app_keys[0], redis_url)
    worker = ReviewWorker([QUEUE_NAME], connection=Redis.from_url(redis_url), settings=settings)
    worker.subscribe()
    worker.pubsub.unsubscribe()
    deadline = time.monotonic() + 10
    while worker.pubsub.subscribed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not worker.pubsub.subscribed
    stopping = threading.Thread(target=worker.unsubscribe, daemon=True)
    stopping.start()
    stopping.join(timeout=15)
    assert not stopping.is_alive(), "unsubscribe waited for the listener's long poll"


def test_an_abandoned_review_is_reported_with_what_happens_next(
    app_keys: tuple[str, str], redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    redis = Redis.from_url(redis_url)
    request = ReviewRequest("o", "r", 7, "a" * 40, 1, "pull_request.opened")
    RQJobQueue(redis, (1, 2)).submit(request)
    job = Job.fetch(rq_job_id(request.logical_id), connection=redis)
    with caplog.at_level(logging.WARNING, logger="bot.worker"):
        assert ReviewWorker._report_abandoned(job, AbandonedJobError, AbandonedJobError(), None)
        assert ReviewWorker._report_abandoned(job, RuntimeError, RuntimeError(), None)
    (record,) = caplog.records
    assert record.getMessage() == (
        f"review {request.logical_id} abandoned: its worker stopped sending heartbeats "
        "(killed or lost); retrying it"
    )


def test_worker_command_starts_and_drains_in_burst_mode(
    app_keys: tuple[str, str], redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.cli import main

    for name, value in {
        "GITHUB_APP_ID": APP_ID,
        "GITHUB_PRIVATE_KEY": app_keys[0],
        "REDIS_URL": redis_url,
        "CODEBIAS_LOG_FORMAT": "text",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GITHUB_WEBHOOK_SECRET", raising=False)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        assert main(["worker", "--burst"]) == 0
    finally:  # the command configures the process's logging; give pytest its own back
        root.handlers[:] = handlers
        root.setLevel(level)
