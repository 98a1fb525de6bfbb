"""Taking in a delivery's body before anyone knows it is from GitHub.

Until its signature is checked a body is an unauthenticated stranger's, so what it may cost is
bounded: its size (GitHub's own limit, 25 MB, declared or streamed), how many are read at
once (beyond that the answer is 503 at once, before a byte of it is read), how long it may
take to arrive (GitHub gives up on a delivery after 10 s; a slower body is answered 408),
and memory: the HMAC is computed as the body streams in, and past a small threshold the
bytes wait in a temporary file, not in memory, until the signature says they are GitHub's.
A request without a signature header is refused before its body is read.

The request head is bounded by uvicorn's protocol (bot/serving.py).
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from starlette.requests import ClientDisconnect, Request

from bot.webhooks import SIGNATURE_PREFIX, BodySignature

MB = 1024 * 1024


@dataclass(frozen=True)
class IntakeLimits:
    # GitHub caps webhook payloads at 25 MB; anything larger is not from GitHub.
    body_bytes: int = 25 * MB
    # Bodies being read at once before their signature is known.
    unverified_bodies: int = 16
    # The whole body within this time of the request's head.
    body_seconds: float = 10.0
    # Bytes of one body held in memory; the rest waits in a temporary file.
    memory_bytes: int = 1 * MB


DEFAULT_LIMITS = IntakeLimits()


class Refused(Exception):
    """A delivery answered before it was trusted: `status`, and the metrics `outcome`."""

    def __init__(self, status: int, message: str, outcome: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.outcome = outcome


class UnverifiedBodies:
    """How many bodies are being read while their signature is unknown, up to a limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.reading = 0
        self._lock = threading.Lock()

    @contextmanager
    def place(self) -> Iterator[None]:
        with self._lock:
            if self.reading >= self.limit:
                raise Refused(
                    503, "too many unverified deliveries are being read; retry shortly", "busy"
                )
            self.reading += 1
        try:
            yield
        finally:
            with self._lock:
                self.reading -= 1


async def read_signed(
    request: Request, secret: bytes, limits: IntakeLimits, places: UnverifiedBodies
) -> bytes:
    """The raw body, once its `X-Hub-Signature-256` matched; Refused (401, 408, 413, 503)
    otherwise, with as little of the body read as it took to decide."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.body_bytes:
        too_large = f"Content-Length {declared} exceeds {limits.body_bytes} bytes"
        raise Refused(413, too_large, "too_large")
    header = request.headers.get("x-hub-signature-256")
    if not header or not header.startswith(SIGNATURE_PREFIX):
        raise Refused(401, "bad or missing X-Hub-Signature-256", "unauthorized")
    signature = BodySignature(secret)
    with places.place(), tempfile.SpooledTemporaryFile(max_size=limits.memory_bytes) as spool:
        size = 0
        try:
            async with asyncio.timeout(limits.body_seconds):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limits.body_bytes:
                        raise Refused(413, f"body exceeds {limits.body_bytes} bytes", "too_large")
                    signature.update(chunk)
                    spool.write(chunk)
        except TimeoutError:
            raise Refused(
                408, f"the body did not arrive within {limits.body_seconds:g} s", "timeout"
            ) from None
        except ClientDisconnect:
            gone = "the client went away before its body arrived"
            raise Refused(400, gone, "malformed") from None
        if not signature.matches(header):
            raise Refused(401, "bad or missing X-Hub-Signature-256", "unauthorized")
        spool.seek(0)
        return spool.read()
