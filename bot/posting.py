"""One review posts at a time per pull request, fleet-wide.

The job re-reads the pull request's head and posts its review while holding this lock, so
that a slow review of an older head can never post after the review of a newer one (the
newer one waits for the lock, then posts; the older one sees the new head and stands down).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from redis import Redis

# Longest a review may hold its pull request's posting lock (re-read the head, post); a
# worker killed while holding it delays that pull request's next review this long at most.
POSTING_LOCK_SECONDS = 30


class PostingLock(Protocol):
    def hold(self, pull: str) -> AbstractContextManager[None]: ...


class MemoryPostingLock:
    """One process (embedded mode): a lock per pull request."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @contextmanager
    def hold(self, pull: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(pull, threading.Lock())
        with lock:
            yield


class RedisPostingLock:
    """Every worker of the fleet: a Redis lock per pull request."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    @contextmanager
    def hold(self, pull: str) -> Iterator[None]:
        with self.redis.lock(
            f"codebias:posting:{pull}",
            timeout=POSTING_LOCK_SECONDS,
            blocking_timeout=2 * POSTING_LOCK_SECONDS,
        ):
            yield
