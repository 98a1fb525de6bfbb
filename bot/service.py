"""The webhook service: `create_app(settings)` builds the starlette application.

`POST /webhook` does no work in the request: verify the signature over the raw bytes, parse,
drop repeats (of the delivery id, and of the event the signed body describes), route,
enqueue, answer. Reviews run in RQ workers (`REDIS_URL`) or in the
embedded pool.

Hostile traffic: what an unsigned body may cost (size, number read at once, time, memory)
is bounded in bot/intake.py, and the request head by uvicorn's protocol (bot/serving.py);
a signed body too deeply nested to parse is 400; metrics label only event names the App
knows. When the queue (Redis) is down the answer is 503 and the delivery id is
released, so that GitHub's redelivery of it goes through once the queue is back.
"""

from __future__ import annotations

import dataclasses
import hashlib
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
from bot.intake import DEFAULT_LIMITS, IntakeLimits, Refused, UnverifiedBodies, read_signed
from bot.logs import bound
from bot.metrics import CONTENT_TYPE, MemoryStore, Metrics, RedisStore, depth_series
from bot.queue import EmbeddedJobQueue, JobQueue, RQJobQueue
from bot.render.escape import printable
from bot.settings import Settings
from bot.webhooks import CLAIM_SECONDS, Deduper, MemoryDeduper, RedisDeduper

log = logging.getLogger(__name__)

MAX_BODY_BYTES = DEFAULT_LIMITS.body_bytes
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


def create_app(
    settings: Settings, services: Services | None = None, limits: IntakeLimits = DEFAULT_LIMITS
) -> Starlette:
    services = services or build_services(settings)
    unverified = UnverifiedBodies(limits.unverified_bodies)

    async def webhook(request: Request) -> Response:
        event = request.headers.get("x-github-event", "")
        delivery = request.headers.get("x-github-delivery", "")

        def reject(status: int, outcome: str, reason: str) -> Response:
            return _rejected(services, event, delivery, status, outcome, reason)

        try:
            body = await read_signed(request, settings.webhook_secret, limits, unverified)
        except Refused as refused:
            # The body may still be on its way: end the connection rather than read it.
            headers = {"Connection": "close"}
            if refused.status == 503:
                headers["Retry-After"] = "1"
            return _rejected(
                services, event, delivery, refused.status, refused.outcome, refused.message,
                headers,
            )
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
    # The delivery id is not signed: a captured body replayed under fresh ids is caught by
    # what the body itself says (events.event_identity).
    claims = [delivery, *([_identity_claim(routed.identity)] if routed.identity else [])]
    held: list[str] = []
    try:
        for claim in claims:
            if not services.deduper.first_time(claim):
                for earlier in held:
                    services.deduper.confirm(earlier)
                count("duplicate")
                return JSONResponse({"duplicate": delivery})
            held.append(claim)
        queued = services.queue.submit(routed)
        for claim in held:
            services.deduper.confirm(claim)
    except (RedisError, RuntimeError) as exc:
        log.error(
            "delivery %s not queued (%s): answered 503, redeliver it once the queue is back",
            delivery,
            exc,
            extra={"outcome": "unavailable"},
        )
        for claim in held:
            _forget(services, claim)
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


def _identity_claim(identity: str) -> str:
    return "event:" + hashlib.sha256(identity.encode()).hexdigest()


def _forget(services: Services, claim: str) -> None:
    """Let GitHub's redelivery of this id through once the queue is back."""
    try:
        services.deduper.forget(claim)
    except RedisError as exc:
        log.warning(
            "delivery %s: claim not released (%s); it lapses by itself within %d s",
            claim,
            exc,
            CLAIM_SECONDS,
        )


def _label(event: str) -> str:
    return event if event in KNOWN_EVENTS else ("?" if not event else "other")


def _rejected(
    services: Services,
    event: str,
    delivery: str,
    status: int,
    outcome: str,
    reason: str,
    headers: dict[str, str] | None = None,
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
    return JSONResponse({"error": reason}, status_code=status, headers=headers)
