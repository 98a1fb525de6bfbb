"""`codebias worker [--burst]`: an RQ worker for the review jobs (needs `REDIS_URL`)."""

from __future__ import annotations

import argparse
import sys

from bot.settings import settings_for


def run(args: argparse.Namespace) -> int:
    settings = settings_for("worker")
    if settings is None:
        return 2
    if settings.redis_url is None:
        print(
            "codebias worker: REDIS_URL is not set; "
            "without it `codebias serve` runs reviews itself",
            file=sys.stderr,
        )
        return 2
    from redis.exceptions import RedisError

    from bot.jobs import JobContext, use_worker_context
    from bot.queue import QUEUE_NAME, redis_address
    from bot.worker import ReviewWorker

    context = JobContext.for_worker(settings)
    redis = context.redis
    assert redis is not None
    try:
        redis.ping()
    except RedisError as exc:
        print(
            f"codebias worker: cannot reach Redis at {redis_address(redis)}: {exc}", file=sys.stderr
        )
        return 2
    context.warm()
    use_worker_context(context)
    worker = ReviewWorker([QUEUE_NAME], connection=redis, settings=settings)
    # The scheduler moves retried jobs (backoff) back into the queue when their time comes.
    worker.work(burst=args.burst, with_scheduler=True, logging_level="INFO")
    return 0
