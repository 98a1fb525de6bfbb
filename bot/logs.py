"""Service logs: one JSON object a line (the default), or plain text for a person at a terminal.

Every record carries the fields of the review it belongs to — delivery id, installation,
repository, pull request, head sha, job step, seconds — without each call passing them:
`bound(**fields)` sets them for everything logged inside it (a context variable, so each
thread of the embedded pool and each RQ job has its own), and `step(name)` times one step
of a job and logs it with its seconds.

    {"time": "2024-05-01T12:00:00.123Z", "level": "info", "logger": "bot.jobs",
     "message": "step test_functions done", "delivery": "72d3...", "installation": 4242,
     "repository": "octo-org/hiring", "pull_request": 7, "head_sha": "ab12...",
     "step": "test_functions", "seconds": 1.84}
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

# The structured fields, in the order they are written.
FIELDS = (
    "delivery",
    "event",
    "installation",
    "repository",
    "pull_request",
    "head_sha",
    "job",
    "step",
    "seconds",
    "outcome",
    "attempt",
    "retry_in",
    "url",
    "status",
)

# Immutable default: every `bound` block sets a fresh dict, none is ever changed in place.
_bound: ContextVar[Mapping[str, Any]] = ContextVar(
    "codebias_log_fields", default=MappingProxyType({})
)


@contextmanager
def bound(**fields: Any) -> Iterator[None]:
    """Adds `fields` (those not None) to every record logged inside the block."""
    token = _bound.set({**_bound.get(), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        _bound.reset(token)


@contextmanager
def step(log: logging.Logger, name: str) -> Iterator[None]:
    """Logs `step <name> done` with its seconds (or `failed`, and re-raises)."""
    started = time.monotonic()
    with bound(step=name):
        try:
            yield
        except BaseException:
            log.info("step %s failed", name, extra={"seconds": _since(started)})
            raise
        log.info("step %s done", name, extra={"seconds": _since(started)})


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)


class BoundFields(logging.Filter):
    """Copies the bound fields onto each record (a handler filter: it sees every record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in _bound.get().items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC)
        data: dict[str, Any] = {
            "time": stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in FIELDS:
            if hasattr(record, key):
                data[key] = getattr(record, key)
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        extra = " ".join(f"{k}={getattr(record, k)}" for k in FIELDS if hasattr(record, k))
        text = super().format(record)
        return f"{text} [{extra}]" if extra else text


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is when a record is emitted, not when it was made."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass  # always sys.stderr


def configure(log_format: str = "json", level: int = logging.INFO) -> None:
    """One handler on stderr for everything (uvicorn's and RQ's loggers included)."""
    handler = StderrHandler()
    handler.addFilter(BoundFields())
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    logging.basicConfig(level=level, handlers=[handler], force=True)
    # One line per HTTP request is noise at this volume; failures are logged by the job.
    logging.getLogger("httpx").setLevel(logging.WARNING)
