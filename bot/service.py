"""The webhook service: `create_app(settings)` builds the starlette application.

`POST /webhook` does no work in the request: verify the signature over the raw bytes, parse,
drop repeats, route, enqueue, answer. Reviews run in RQ workers (`REDIS_URL`) or in the
embedded pool.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from redis import Redis
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot import events
from bot.metrics import CONTENT_TYPE, MemoryStore, Metrics, RedisStore
from bot.queue import EmbeddedJobQueue, JobQueue, RQJobQueue
from bot.settings import Settings
from bot.webhooks import Deduper, MemoryDeduper, RedisDeduper, signature_valid

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    queue: JobQueue
    deduper: Deduper
    metrics: Metrics


def build_services(settings: Settings) -> Services:
    if settings.redis_url is not None:
        redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
        metrics = Metrics(RedisStore(redis))
        return Services(
            settings,
            RQJobQueue(redis, settings.retry_intervals),
            RedisDeduper(redis, settings.delivery_ttl),
            metrics,
        )
    # Imported here: the job module pulls in the engine, which the RQ-mode service never needs.
    from bot.jobs import JobContext

    metrics = Metrics(MemoryStore())
    context = JobContext.build(settings, metrics=metrics)
    queue = EmbeddedJobQueue(
        context.run, settings.workers, settings.retry_intervals, on_done=metrics.job_finished
    )
    return Services(settings, queue, MemoryDeduper(settings.delivery_ttl), metrics)


def create_app(settings: Settings, services: Services | None = None) -> Starlette:
    services = services or build_services(settings)

    async def webhook(request: Request) -> Response:
        body = await request.body()
        event = request.headers.get("x-github-event", "")
        if not signature_valid(
            settings.webhook_secret, body, request.headers.get("x-hub-signature-256")
        ):
            services.metrics.inc(
                "codebias_webhooks_received_total",
                {"event": event or "?", "outcome": "unauthorized"},
            )
            return JSONResponse({"error": "bad or missing X-Hub-Signature-256"}, status_code=401)
        # Only a verified body reaches the parser.
        delivery = request.headers.get("x-github-delivery", "")
        if not event or not delivery:
            return _bad(services, event, "missing X-GitHub-Event or X-GitHub-Delivery")
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return _bad(services, event, "body is not JSON")
        if not isinstance(payload, dict):
            return _bad(services, event, "body is not a JSON object")
        try:
            routed = events.route(event, payload)
        except events.MalformedPayload as exc:
            return _bad(services, event, str(exc))

        def count(outcome: str) -> None:
            services.metrics.inc(
                "codebias_webhooks_received_total", {"event": event, "outcome": outcome}
            )

        if isinstance(routed, events.Ignored):
            count("ignored")
            return JSONResponse({"ignored": routed.reason})
        if isinstance(routed, events.Logged):
            log.info("delivery %s: %s", delivery, routed.message)
            count("logged")
            return JSONResponse({"logged": routed.message})
        try:
            if not services.deduper.first_time(delivery):
                count("duplicate")
                return JSONResponse({"duplicate": delivery})
            queued = services.queue.submit(routed)
        except (RedisError, RuntimeError) as exc:
            log.error("delivery %s: cannot enqueue: %s", delivery, exc)
            _forget(services, delivery)
            count("unavailable")
            return JSONResponse({"error": "queue unavailable"}, status_code=503)
        count("queued" if queued else "coalesced")
        if queued:
            services.metrics.inc("codebias_jobs_queued_total")
        return JSONResponse({"job": routed.logical_id, "queued": queued}, status_code=202)

    async def healthz(request: Request) -> Response:
        if services.queue.healthy():
            return JSONResponse({"ok": True, "mode": "embedded" if settings.embedded else "rq"})
        return JSONResponse({"ok": False}, status_code=503)

    async def metrics(request: Request) -> Response:
        try:
            text = services.metrics.render()
        except RedisError as exc:
            return PlainTextResponse(f"metrics unavailable: {exc}\n", status_code=503)
        return PlainTextResponse(text, media_type=CONTENT_TYPE)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        services.queue.close()

    app = Starlette(
        routes=[
            Route("/webhook", webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
    app.state.services = services
    return app


def _forget(services: Services, delivery: str) -> None:
    """Let GitHub's redelivery of this id through once the queue is back."""
    try:
        services.deduper.forget(delivery)
    except RedisError as exc:
        log.warning("delivery %s: could not be forgotten (%s); redeliver it by hand", delivery, exc)


def _bad(services: Services, event: str, message: str) -> Response:
    services.metrics.inc(
        "codebias_webhooks_received_total", {"event": event or "?", "outcome": "malformed"}
    )
    return JSONResponse({"error": message}, status_code=400)
