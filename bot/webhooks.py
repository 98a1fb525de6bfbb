"""Webhook authenticity and de-duplication: checked on the raw bytes, before any parsing.

GitHub signs the exact request body with HMAC-SHA256 and sends `X-Hub-Signature-256:
sha256=<hex>`. The body is compared in constant time and only then handed to the JSON parser,
so an unauthenticated sender never reaches it. GitHub may deliver the same event more than once
(retries, manual redelivery); `X-GitHub-Delivery` is remembered for a while and repeats are
dropped. That header is not signed, so the service also remembers what each signed body says
happened (`bot.events.event_identity`): a captured body replayed under fresh delivery ids is
a repeat too.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import OrderedDict
from typing import Protocol

from redis import Redis

SIGNATURE_PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub would send for `body`."""
    return SIGNATURE_PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def signature_valid(secret: bytes, body: bytes, header: str | None) -> bool:
    signature = BodySignature(secret)
    signature.update(body)
    return signature.matches(header)


class BodySignature:
    """The HMAC of a body as it streams in, so that no copy of it is needed to check it."""

    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self._mac = hmac.new(secret, digestmod=hashlib.sha256)

    def update(self, chunk: bytes) -> None:
        self._mac.update(chunk)

    def matches(self, header: str | None) -> bool:
        """The header is GitHub's signature of everything passed to `update`."""
        if not self.secret or not header or not header.startswith(SIGNATURE_PREFIX):
            return False
        expected = SIGNATURE_PREFIX + self._mac.hexdigest()
        return hmac.compare_digest(expected.encode(), header.strip().encode())


# How long a delivery is held before its job is known to be queued. If Redis fails between
# the claim and the enqueue and the claim cannot be released, it lapses by itself, so the
# redelivery of a delivery answered 503 always goes through.
CLAIM_SECONDS = 300


class Deduper(Protocol):
    def first_time(self, delivery_id: str) -> bool:
        """True exactly once per delivery id (within the time-to-live)."""

    def confirm(self, delivery_id: str) -> None:
        """The delivery's job is queued: remember it for the whole time-to-live."""

    def forget(self, delivery_id: str) -> None:
        """Let the delivery through again (when it could not be enqueued)."""


class RedisDeduper:
    """`SET NX` with a TTL: atomic across any number of service replicas."""

    def __init__(self, redis: Redis, ttl: int, prefix: str = "codebias:delivery:") -> None:
        self.redis = redis
        self.ttl = ttl
        self.prefix = prefix

    def first_time(self, delivery_id: str) -> bool:
        claim = min(CLAIM_SECONDS, self.ttl)
        return bool(self.redis.set(self.prefix + delivery_id, b"1", nx=True, ex=claim))

    def confirm(self, delivery_id: str) -> None:
        self.redis.expire(self.prefix + delivery_id, self.ttl)

    def forget(self, delivery_id: str) -> None:
        self.redis.delete(self.prefix + delivery_id)


class MemoryDeduper:
    """One process's memory of recent deliveries, bounded in size and time (embedded mode)."""

    def __init__(self, ttl: int, max_entries: int = 100_000) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, delivery_id: str) -> bool:
        now = time.monotonic()
        with self._lock:
            while self._seen and next(iter(self._seen.values())) < now:
                self._seen.popitem(last=False)
            if delivery_id in self._seen:
                return False
            # Room is made only to add: checking a repeat must not drop the oldest entry.
            while self._seen and len(self._seen) >= self.max_entries:
                self._seen.popitem(last=False)
            self._seen[delivery_id] = now + self.ttl
            return True

    def confirm(self, delivery_id: str) -> None:
        pass  # remembered for the whole time-to-live from the start

    def forget(self, delivery_id: str) -> None:
        with self._lock:
            self._seen.pop(delivery_id, None)
