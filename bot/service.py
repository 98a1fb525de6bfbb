"""The webhook service: `create_app(settings)` builds the starlette application.

`POST /webhook` does no work in the request: verify the signature over the raw bytes, parse,
drop repeats, route, enqueue, answer. Reviews run in RQ workers (`REDIS_URL`) or in the
embedded pool.

Hostile traffic: a body over GitHub's 25 MB limit is refused with 413 from its
Content-Length, or as soon as the stream passes the limit, before the signature check would
read it all; a signed body too deeply nested to parse is 400; metrics label only event
names the App knows. When the queue (Redis) is down the answer is 503 and the delivery id is
released, so that GitHub's redelivery of it goes through once the queue is back.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from redis import Redis
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot import events
from bot.logs import bound
from bot.metrics import CONTENT_TYPE, MemoryStore, Metrics, RedisStore, depth_series
from bot.queue import EmbeddedJobQueue, JobQueue, RQJobQueue
from bot.render.escape import printable
from bot.settings import Settings
from bot.webhooks import CLAIM_SECONDS, Deduper, MemoryDeduper, RedisDeduper, signature_valid

log = logging.getLogger(__name__)

# GitHub caps webhook payloads at 25 MB; anything larger is not from GitHub.
MAX_BODY_BYTES = 25 * 1024 * 1024
# Event names that may appear as a metrics label; any other header value counts as "other".
KNOWN_EVENTS = frozenset(
    {
        "pull_request",
        "check_run",
        "check_suite",
        "issue_comment",
        *events.LOGGED_EVENTS,
        "ping",
        "push",
        "pull_request_review",
        "pull_request_review_comment",
        "github_app_authorization",
        "meta",
    }
)


class BodyTooLarge(Exception):
    pass


@dataclass
class Services:
    settings: Settings
    queue: JobQueue
    deduper: Deduper
    metrics: Metrics


def build_services(settings: Settings) -> Services:
    if settings.redis_url is not None:
        redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
        rq_queue = RQJobQueue(redis, settings.retry_intervals, settings.installation_concurrency)
        return Services(
            settings,
            rq_queue,
            RedisDeduper(redis, settings.delivery_ttl),
            Metrics(RedisStore(redis), live=lambda: depth_series(rq_queue.depth())),
        )
    # Imported here: the job module pulls in the engine, which the RQ-mode service never needs.
    from bot.jobs import JobContext

    metrics = Metrics(MemoryStore())
    context = JobContext.build(settings, metrics=metrics)
    queue = EmbeddedJobQueue(
        context.run,
        settings.workers,
        settings.retry_intervals,
        on_done=metrics.job_finished,
        installation_concurrency=settings.installation_concurrency,
    )
    metrics.live = lambda: depth_series(queue.depth())
    return Services(settings, queue, MemoryDeduper(settings.delivery_ttl), metrics)


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The raw body, refused (BodyTooLarge) past `limit` without reading the rest."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"Content-Length {declared} exceeds {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"body exceeds {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(settings: Settings, services: Services | None = None) -> Starlette:
    services = services or build_services(settings)

    async def webhook(request: Request) -> Response:
        event = request.headers.get("x-github-event", "")
        delivery = request.headers.get("x-github-delivery", "")

        def reject(status: int, outcome: str, reason: str) -> Response:
            return _rejected(services, event, delivery, status, outcome, reason)

        try:
            body = await read_body(request)
        except BodyTooLarge as exc:
            return reject(413, "too_large", str(exc))
        if not signature_valid(
            settings.webhook_secret, body, request.headers.get("x-hub-signature-256")
        ):
            return reject(401, "unauthorized", "bad or missing X-Hub-Signature-256")
        # Only a verified body reaches the parser.
        if not event or not delivery:
            return reject(400, "malformed", "missing X-GitHub-Event or X-GitHub-Delivery")
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return reject(400, "malformed", "body is not JSON")
        except RecursionError:
            return reject(400, "malformed", "body is nested too deeply")
        if not isinstance(payload, dict):
            return reject(400, "malformed", "body is not a JSON object")
        try:
            routed = events.route(event, payload)
        except events.MalformedPayload as exc:
            return reject(400, "malformed", str(exc))

        def count(outcome: str) -> None:
            services.metrics.inc(
                "codebias_webhooks_received_total", {"event": _label(event), "outcome": outcome}
            )

        if isinstance(routed, events.Ignored):
            count("ignored")
            return JSONResponse({"ignored": routed.reason})
        if isinstance(routed, events.Logged):
            log.info("delivery %s: %s", delivery, routed.message)
            count("logged")
            return JSONResponse({"logged": routed.message})
        routed = dataclasses.replace(routed, delivery=delivery)
        with bound(
            delivery=delivery,
            event=_label(event),
            installation=routed.installation_id,
            repository=f"{routed.owner}/{routed.repo}",
            pull_request=routed.number,
            head_sha=routed.head_sha,
        ):
            return _enqueue(services, routed, count)

    async def healthz(request: Request) -> Response:
        mode = "embedded" if settings.embedded else "rq"
        problem = services.queue.problem()
        if problem is None:
            return JSONResponse({"ok": True, "mode": mode})
        return JSONResponse({"ok": False, "mode": mode, "reason": problem}, status_code=503)

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


def _enqueue(
    services: Services, routed: events.ReviewRequest, count: Callable[[str], None]
) -> Response:
    delivery = routed.delivery or ""
    try:
        if not services.deduper.first_time(delivery):
            count("duplicate")
            return JSONResponse({"duplicate": delivery})
        queued = services.queue.submit(routed)
        services.deduper.confirm(delivery)
    except (RedisError, RuntimeError) as exc:
        log.error(
            "delivery %s not queued (%s): answered 503, redeliver it once the queue is back",
            delivery,
            exc,
            extra={"outcome": "unavailable"},
        )
        _forget(services, delivery)
        count("unavailable")
        return JSONResponse({"error": "queue unavailable"}, status_code=503)
    count("queued" if queued else "coalesced")
    if queued:
        services.metrics.inc("codebias_jobs_queued_total")
    log.info(
        "review %s %s",
        routed.logical_id,
        "queued" if queued else "already pending",
        extra={"outcome": "queued" if queued else "coalesced"},
    )
    return JSONResponse({"job": routed.logical_id, "queued": queued}, status_code=202)


def _forget(services: Services, delivery: str) -> None:
    """Let GitHub's redelivery of this id through once the queue is back."""
    try:
        services.deduper.forget(delivery)
    except RedisError as exc:
        log.warning(
            "delivery %s: claim not released (%s); it lapses by itself within %d s",
            delivery,
            exc,
            CLAIM_SECONDS,
        )


def _label(event: str) -> str:
    return event if event in KNOWN_EVENTS else ("?" if not event else "other")


def _rejected(
    services: Services, event: str, delivery: str, status: int, outcome: str, reason: str
) -> Response:
    """Turn a delivery away: counted, logged with its id and the reason (never its body,
    which may come from anyone), and answered with the reason."""
    services.metrics.inc(
        "codebias_webhooks_received_total", {"event": _label(event), "outcome": outcome}
    )
    shown = printable(delivery[:100])  # a header anyone can send: no forged log lines
    log.warning(
        "delivery %s rejected (%d): %s",
        shown or "without an id",
        status,
        printable(reason[:200]),
        extra={"delivery": shown, "event": _label(event), "outcome": outcome, "status": status},
    )
    return JSONResponse({"error": reason}, status_code=status)
