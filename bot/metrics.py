"""Counters for `GET /metrics`, in the Prometheus text format (version 0.0.4).

In RQ mode the counters live in a Redis hash, so the service's `/metrics` also counts what
workers on other machines did; in embedded mode they live in this process. Gauges that
describe the present (the queue's depth) are read when scraped (`live`).

Label values come only from closed sets (event names the App knows, fixed outcomes, queue
states, installation ids GitHub gave us), so no request can grow the series without bound.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

from redis import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# name -> (type, help)
FAMILIES: dict[str, tuple[str, str]] = {
    "codebias_webhooks_received_total": (
        "counter",
        "Webhook deliveries received, by event and outcome.",
    ),
    "codebias_jobs_queued_total": ("counter", "Review jobs queued."),
    "codebias_jobs_done_total": ("counter", "Review jobs finished."),
    "codebias_jobs_failed_total": ("counter", "Review job attempts that failed."),
    "codebias_job_seconds": ("summary", "Seconds a review job took."),
    "codebias_queue_depth": (
        "gauge",
        "Reviews by state: queued, waiting (their installation's share of the queue is "
        "taken), scheduled (a retry waiting for its time), started.",
    ),
    "codebias_engine_executions_total": (
        "counter",
        "Sandboxed calls of functions under test made by reviews.",
    ),
    "codebias_cache_lookups_total": (
        "counter",
        "Verdict cache lookups by result (hit, miss); hit rate = hit / (hit + miss).",
    ),
    "codebias_github_ratelimit_remaining": (
        "gauge",
        "Requests left in GitHub's rate-limit window, by installation, as last answered.",
    ),
}
# Scraped gauges: series name (with labels) -> value.
Live = Callable[[], dict[str, float]]


def _key(name: str, labels: dict[str, str] | None) -> str:
    if not labels:
        return name
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Store(Protocol):
    def add(self, key: str, amount: float) -> None: ...

    def set(self, key: str, value: float) -> None: ...

    def items(self) -> dict[str, float]: ...


class MemoryStore:
    def __init__(self) -> None:
        self._values: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, key: str, amount: float) -> None:
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

    def set(self, key: str, value: float) -> None:
        with self._lock:
            self._values[key] = value

    def items(self) -> dict[str, float]:
        with self._lock:
            return dict(self._values)


class RedisStore:
    def __init__(self, redis: Redis, key: str = "codebias:metrics") -> None:
        self.redis = redis
        self.key = key

    def add(self, key: str, amount: float) -> None:
        try:
            self.redis.hincrbyfloat(self.key, key, amount)
        except RedisError as exc:
            # A lost count must not turn a webhook answer or a finished job into an error.
            log.warning("metric %s not counted: %s", key, exc)

    def set(self, key: str, value: float) -> None:
        try:
            self.redis.hset(self.key, key, value)
        except RedisError as exc:
            log.warning("metric %s not set: %s", key, exc)

    def items(self) -> dict[str, float]:
        raw: dict[bytes, bytes] = self.redis.hgetall(self.key)  # type: ignore[assignment]
        return {k.decode(): float(v) for k, v in raw.items()}


class Metrics:
    def __init__(self, store: Store, live: Live | None = None) -> None:
        self.store = store
        self.live = live

    def inc(self, name: str, labels: dict[str, str] | None = None, amount: float = 1.0) -> None:
        self.store.add(_key(name, labels), amount)

    def gauge(self, name: str, labels: dict[str, str] | None, value: float) -> None:
        self.store.set(_key(name, labels), float(value))

    def rate_limit_seen(self, installation: int, remaining: int) -> None:
        self.gauge(
            "codebias_github_ratelimit_remaining", {"installation": str(installation)}, remaining
        )

    def review_tested(self, hits: int, misses: int, executions: int) -> None:
        if hits:
            self.inc("codebias_cache_lookups_total", {"result": "hit"}, hits)
        if misses:
            self.inc("codebias_cache_lookups_total", {"result": "miss"}, misses)
        if executions:
            self.inc("codebias_engine_executions_total", amount=executions)

    def job_finished(self, ok: bool, seconds: float) -> None:
        self.inc("codebias_jobs_done_total" if ok else "codebias_jobs_failed_total")
        self.inc("codebias_job_seconds_sum", amount=seconds)
        self.inc("codebias_job_seconds_count")

    def render(self) -> str:
        values = self.store.items()
        if self.live is not None:
            values.update(self.live())
        lines: list[str] = []
        for name, (kind, help_text) in FAMILIES.items():
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")
            series = sorted(
                (k, v)
                for k, v in values.items()
                if k == name or k.startswith((name + "{", name + "_"))
            )
            if (
                not series
                and kind in ("counter", "gauge")
                and name
                != (
                    "codebias_github_ratelimit_remaining"  # unknown until GitHub has answered
                )
            ):
                series = [(name, 0.0)]
            if not series and kind == "summary":
                series = [(name + "_sum", 0.0), (name + "_count", 0.0)]
            lines.extend(f"{k} {_number(v)}" for k, v in series)
        return "\n".join(lines) + "\n"


def depth_series(depth: dict[str, int]) -> dict[str, float]:
    return {_key("codebias_queue_depth", {"state": k}): float(v) for k, v in depth.items()}


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)
