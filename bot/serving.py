"""uvicorn as `codebias serve` runs it, bounded against slow and idle clients.

uvicorn times out only an idle keep-alive connection: a client that connects and sends
nothing, or sends its request head one byte every few seconds, or a body nobody reads, holds
its connection (and a place among the connections) for as long as it likes. The protocol
here gives each request a deadline: its head within `HEAD_SECONDS` of the connection (or of
the first byte after the previous answer), and its body within `BODY_SECONDS` of the head;
past either the connection is closed. The webhook answers a slow body with 408 before that
(bot/intake.py): this deadline is for the bodies the application does not read.
"""

from __future__ import annotations

import asyncio
import logging

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from bot.intake import DEFAULT_LIMITS

log = logging.getLogger(__name__)

HEAD_SECONDS = 10.0
# The webhook's own 408 comes first; then the connection goes.
BODY_SECONDS = DEFAULT_LIMITS.body_seconds + 5.0
# Connections at once; uvicorn answers 503 beyond (each one is cheap: see bot/intake.py).
MAX_CONNECTIONS = 500
# Request line and headers together (h11's default, said here on purpose).
MAX_HEAD_BYTES = 16 * 1024


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on receiving each request."""

    head_seconds = HEAD_SECONDS
    body_seconds = BODY_SECONDS

    _deadline: asyncio.TimerHandle | None = None
    _receiving_body = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.head_seconds, receiving_body=False)

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm(self.head_seconds, receiving_body=False)  # the next request's head
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            if not self._receiving_body:
                self._arm(self.body_seconds, receiving_body=True)
        elif state is not h11.IDLE:
            self._disarm()  # the whole request is in (or the connection is done with)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, seconds: float, receiving_body: bool) -> None:
        self._disarm()
        self._receiving_body = receiving_body
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._receiving_body = False

    def _expired(self) -> None:
        self._deadline = None
        part = "body" if self._receiving_body else "request head"
        log.warning("closed a connection from %s: its %s was too slow", self.client, part)
        self.transport.close()


def server_config(app: ASGIApp, host: str, port: int) -> uvicorn.Config:
    # log_config=None: uvicorn's records go through the service's own (JSON) handler.
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=DeadlineProtocol,
        limit_concurrency=MAX_CONNECTIONS,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        timeout_keep_alive=5,
        log_level="info",
        access_log=False,
        log_config=None,
    )
