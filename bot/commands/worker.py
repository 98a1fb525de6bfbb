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
    from redis import Redis
    from rq import Worker

    from bot.queue import QUEUE_NAME

    redis = Redis.from_url(settings.redis_url)
    worker = Worker([QUEUE_NAME], connection=redis)
    # The scheduler moves retried jobs (backoff) back into the queue when their time comes.
    worker.work(burst=args.burst, with_scheduler=True, logging_level="INFO")
    return 0
