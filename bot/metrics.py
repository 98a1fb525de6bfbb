"""Counters for `GET /metrics`, in the Prometheus text format (version 0.0.4).

In RQ mode the counters live in a Redis hash, so the service's `/metrics` also counts what
workers on other machines did; in embedded mode they live in this process.
"""

from __future__ import annotations

import logging
import threading
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
}


def _key(name: str, labels: dict[str, str] | None) -> str:
    if not labels:
        return name
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Store(Protocol):
    def add(self, key: str, amount: float) -> None: ...

    def items(self) -> dict[str, float]: ...


class MemoryStore:
    def __init__(self) -> None:
        self._values: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, key: str, amount: float) -> None:
        with self._lock:
            self._values[key] = self._values.get(key, 0.0) + amount

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

    def items(self) -> dict[str, float]:
        raw: dict[bytes, bytes] = self.redis.hgetall(self.key)  # type: ignore[assignment]
        return {k.decode(): float(v) for k, v in raw.items()}


class Metrics:
    def __init__(self, store: Store) -> None:
        self.store = store

    def inc(self, name: str, labels: dict[str, str] | None = None, amount: float = 1.0) -> None:
        self.store.add(_key(name, labels), amount)

    def job_finished(self, ok: bool, seconds: float) -> None:
        self.inc("codebias_jobs_done_total" if ok else "codebias_jobs_failed_total")
        self.inc("codebias_job_seconds_sum", amount=seconds)
        self.inc("codebias_job_seconds_count")

    def render(self) -> str:
        values = self.store.items()
        lines: list[str] = []
        for name, (kind, help_text) in FAMILIES.items():
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")
            series = sorted(
                (k, v)
                for k, v in values.items()
                if k == name or k.startswith((name + "{", name + "_"))
            )
            if not series and kind == "counter":
                series = [(name, 0.0)]
            if not series and kind == "summary":
                series = [(name + "_sum", 0.0), (name + "_count", 0.0)]
            lines.extend(f"{k} {_number(v)}" for k, v in series)
        return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)
