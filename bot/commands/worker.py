"""`codebias worker [--burst]`: an RQ worker for the review jobs (needs `REDIS_URL`)."""

from __future__ import annotations

import argparse
import logging
import sys

from bot.settings import Settings, SettingsError


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"codebias worker: {exc}", file=sys.stderr)
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
