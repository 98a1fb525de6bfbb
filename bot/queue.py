"""Where review jobs wait: RQ on Redis when `REDIS_URL` is set, else an in-process pool.

Both run the same job code (`bot.jobs`) and coalesce by the job's logical id
`owner/repo#pr@head_sha`, so a burst of deliveries for one head runs one review.

Fairness: at most `installation_concurrency` reviews of one installation are queued or
running at once; the rest wait their turn (RQ's `RateLimit`, or the embedded pool's own
per-installation waiting lines). A burst of 150 reviews from one installation therefore
holds a few places in the queue, and a smaller installation's reviews go in right behind
them instead of behind all 150.

Timeout: a review job runs at most `JOB_TIMEOUT` seconds in both modes (bot/deadline.py):
RQ kills the work horse; the embedded pool gives the job up from a watchdog timer.

Retries: a failed review is tried again after `retry_intervals` (or after the wait GitHub
asked for, when longer), scheduled (RQ's scheduler, or a timer here) so that no worker slot
sleeps through the wait.

RQ accepts only `[A-Za-z0-9_-]` in a job id. `rq_job_id` maps the logical id into that
alphabet reversibly: letters, digits and `-` stay, every other character (including `_`
itself) becomes `_` followed by its two hex digits, e.g.
`octo/Hello-World#2@ab12` -> `octo_2fHello-World_232_40ab12`. The mapping is injective, so
two logical ids never share an RQ id, and `logical_id_of` reads it back.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import traceback
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, Retry, get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.rate_limit import RateLimit, RateLimitRegistry
from rq.registry import ScheduledJobRegistry, StartedJobRegistry

from bot.deadline import JOB_TIMEOUT, JobDeadline, job_deadline
from bot.events import ReviewRequest
from bot.logs import bound

log = logging.getLogger(__name__)

QUEUE_NAME = "codebias"
JOB_FUNCTION = "bot.jobs.review_job"
FAILED_KEPT_SECONDS = 7 * 24 * 3600
RESULT_KEPT_SECONDS = 24 * 3600
PENDING = {
    JobStatus.QUEUED,
    JobStatus.STARTED,
    JobStatus.DEFERRED,
    JobStatus.SCHEDULED,
    JobStatus.RATE_LIMITED,
}
RATE_LIMIT_PREFIX = "codebias-installation-"

_SAFE = re.compile(r"[A-Za-z0-9-]")
_ESCAPE = re.compile(r"_([0-9a-f]{2})")


def rq_job_id(logical_id: str) -> str:
    out = []
    for ch in logical_id:
        if _SAFE.fullmatch(ch):
            out.append(ch)
        else:
            out.extend(f"_{b:02x}" for b in ch.encode())
    return "".join(out)


def logical_id_of(job_id: str) -> str:
    raw = _ESCAPE.sub(lambda m: "\x00" + m.group(1), job_id)
    data = bytearray()
    parts = raw.split("\x00")
    data += parts[0].encode()
    for part in parts[1:]:
        data.append(int(part[:2], 16))
        data += part[2:].encode()
    return data.decode()


def installation_key(request: ReviewRequest) -> str:
    """Whose share of the queue a review counts against."""
    if request.installation_id is not None:
        return str(request.installation_id)
    return f"owner-{request.owner}"


@contextmanager
def fields_of(request: ReviewRequest) -> Iterator[None]:
    """The review's identity on every log line inside the block (bot.logs)."""
    with bound(
        delivery=request.delivery,
        installation=request.installation_id,
        repository=f"{request.owner}/{request.repo}",
        pull_request=request.number,
        head_sha=request.head_sha,
        job=request.logical_id,
    ):
        yield


def retry_after(exc: BaseException) -> float:
    """Seconds GitHub asked us to wait before trying again (0 when it did not say)."""
    wait = getattr(exc, "retry_after", None)
    return float(wait) if isinstance(wait, int | float) else 0.0


class JobQueue(Protocol):
    def submit(self, request: ReviewRequest) -> bool:
        """Queue a review; False when one for the same logical id is already pending."""

    def problem(self) -> str | None:
        """Why the queue cannot take jobs now; None when it can."""

    def depth(self) -> dict[str, int]:
        """Reviews by state: queued, waiting (their installation's share is taken),
        scheduled (a retry waiting for its time), started."""

    def close(self) -> None: ...


class RQJobQueue:
    def __init__(
        self, redis: Redis, retry_intervals: tuple[int, ...], installation_concurrency: int = 4
    ) -> None:
        self.redis = redis
        self.queue = Queue(QUEUE_NAME, connection=redis)
        self.installation_concurrency = installation_concurrency
        self.retry = (
            Retry(max=len(retry_intervals), interval=list(retry_intervals))
            if retry_intervals
            else None
        )

    def submit(self, request: ReviewRequest) -> bool:
        job_id = rq_job_id(request.logical_id)
        try:
            status = Job.fetch(job_id, connection=self.redis).get_status()
        except NoSuchJobError:
            status = None
        if status in PENDING:
            return False
        if status is not None:
            # A finished or failed run of this head exists: keep it (failed jobs stay for
            # inspection) and give the re-run its own id.
            job_id += f"-r{self.redis.incr('codebias:reruns:' + job_id)}"
        self.queue.enqueue(
            JOB_FUNCTION,
            request.to_dict(),
            job_id=job_id,
            description=request.logical_id,
            job_timeout=JOB_TIMEOUT,
            result_ttl=RESULT_KEPT_SECONDS,
            failure_ttl=FAILED_KEPT_SECONDS,
            retry=self.retry,
            rate_limit=RateLimit(
                RATE_LIMIT_PREFIX + installation_key(request), self.installation_concurrency
            ),
        )
        return True

    def problem(self) -> str | None:
        try:
            self.redis.ping()
        except RedisError as exc:
            return f"Redis at {redis_address(self.redis)} is unreachable: {exc}"
        return None

    def healthy(self) -> bool:
        return self.problem() is None

    def depth(self) -> dict[str, int]:
        waiting = sum(
            registry.get_rate_limited_job_count()
            for registry in RateLimitRegistry.all(self.redis)
            if registry.key.startswith(RATE_LIMIT_PREFIX)
        )
        return {
            "queued": self.queue.count,
            "waiting": waiting,
            "scheduled": ScheduledJobRegistry(queue=self.queue).count,  # type: ignore[no-untyped-call]
            "started": StartedJobRegistry(queue=self.queue).count,
        }

    def close(self) -> None:
        self.redis.close()


def redis_address(redis: Redis) -> str:
    """host:port (or socket path) of a connection, without its credentials."""
    kwargs: dict[str, Any] = redis.connection_pool.connection_kwargs
    if "path" in kwargs:
        return str(kwargs["path"])
    return f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"


def honour_retry_after(exc: BaseException) -> None:
    """Inside an RQ job about to fail: make its next retry wait at least as long as GitHub
    asked (RQ schedules the retry from the job's own list of intervals)."""
    wait = retry_after(exc)
    job = get_current_job()
    if not wait or job is None or not job.should_retry or not job.retry_intervals:
        return
    intervals = list(job.retry_intervals)
    assert job.retries_left is not None
    index = max(len(intervals) - job.retries_left, 0)
    intervals[index] = max(intervals[index], int(wait + 0.999))
    job.retry_intervals = intervals


@dataclass(frozen=True)
class FailedJob:
    logical_id: str
    error: str


class EmbeddedJobQueue:
    """A thread pool inside the service; the sandbox isolates the code under test anyway.

    Threads cannot be killed, so a job that outlives `job_timeout` is given up by a watchdog
    timer: it counts as failed (not retried), its place goes to the next review, and its
    thread stops at its next step (bot/deadline.py)."""

    def __init__(
        self,
        runner: Callable[[ReviewRequest], object],
        workers: int,
        retry_intervals: tuple[int, ...],
        on_done: Callable[[bool, float], None] | None = None,
        installation_concurrency: int = 4,
        job_timeout: float = JOB_TIMEOUT,
    ) -> None:
        self.runner = runner
        self.job_timeout = job_timeout
        self.retry_intervals = retry_intervals
        self.on_done = on_done
        self.installation_concurrency = installation_concurrency
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="codebias-job")
        self.failed: deque[FailedJob] = deque(maxlen=100)  # kept for inspection
        self._active: set[str] = set()  # logical ids queued, waiting, running or retrying
        self._holding: dict[str, int] = defaultdict(int)  # installation -> places it holds
        self._waiting: dict[str, deque[tuple[ReviewRequest, int]]] = defaultdict(deque)
        self._timers: dict[str, threading.Timer] = {}
        self._started = 0
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, request: ReviewRequest) -> bool:
        with self._lock:
            if request.logical_id in self._active or self._closed:
                return False
            self._active.add(request.logical_id)
            self._admit_or_wait(request, 0)
        return True

    def _admit_or_wait(self, request: ReviewRequest, attempt: int) -> None:
        """Called with the lock held."""
        key = installation_key(request)
        if self._holding[key] < self.installation_concurrency:
            self._holding[key] += 1
            self.pool.submit(self._run, request, attempt)
        else:
            self._waiting[key].append((request, attempt))

    def _release(self, request: ReviewRequest) -> None:
        """Called with the lock held: the installation's place goes to its next review."""
        key = installation_key(request)
        self._holding[key] -= 1
        if self._waiting[key] and not self._closed:
            self._admit_or_wait(*self._waiting[key].popleft())
        if not self._holding[key] and not self._waiting[key]:
            del self._holding[key], self._waiting[key]

    def _run(self, request: ReviewRequest, attempt: int) -> None:
        deadline = JobDeadline(self.job_timeout)
        settled = threading.Event()  # set by whichever ends the job first: it or its watchdog
        with self._lock:
            self._started += 1
        watchdog = threading.Timer(self.job_timeout, self._give_up, (request, deadline, settled))
        watchdog.daemon = True
        watchdog.start()
        with fields_of(request), job_deadline(deadline):
            try:
                self.runner(request)
            except Exception as exc:  # noqa: BLE001 - every failure is logged, retried or kept
                if self._settle(settled, watchdog):
                    self._failed(request, attempt, exc, deadline.started)
            else:
                if self._settle(settled, watchdog):
                    self._finish(request, True, deadline.started)
            finally:
                with self._lock:
                    self._started -= 1

    def _settle(self, settled: threading.Event, watchdog: threading.Timer | None = None) -> bool:
        """True for the first caller only: the job's own end, or its watchdog."""
        if watchdog is not None:
            watchdog.cancel()
        with self._lock:
            first = not settled.is_set()
            settled.set()
        return first

    def _give_up(
        self, request: ReviewRequest, deadline: JobDeadline, settled: threading.Event
    ) -> None:
        """The watchdog: the job outlived its timeout."""
        if not self._settle(settled):
            return
        deadline.given_up.set()
        message = f"review {request.logical_id} exceeded the job timeout of {self.job_timeout:g} s"
        with fields_of(request):
            log.error("%s; given up (its thread stops at its next step)", message)
        self.failed.append(FailedJob(request.logical_id, message))
        self._finish(request, False, deadline.started)

    def _failed(self, request: ReviewRequest, attempt: int, exc: Exception, started: float) -> None:
        intervals = self.retry_intervals
        if attempt >= len(intervals) or self._closed:
            self.failed.append(FailedJob(request.logical_id, traceback.format_exc()))
            log.error(
                "review %s failed for good after %d attempt(s): %s",
                request.logical_id,
                attempt + 1,
                exc,
                exc_info=True,
                extra={"attempt": attempt + 1},
            )
            self._finish(request, False, started)
            return
        pause = max(float(intervals[attempt]), retry_after(exc))
        log.warning(
            "review %s failed (attempt %d): %s; retry in %.0f s",
            request.logical_id,
            attempt + 1,
            exc,
            pause,
            extra={"attempt": attempt + 1, "retry_in": pause},
        )
        # The wait happens on a timer, not in this pool thread: the slot serves others.
        timer = threading.Timer(pause, self._retry, (request, attempt + 1))
        timer.daemon = True
        with self._lock:
            self._timers[request.logical_id] = timer
            self._release(request)
        timer.start()

    def _retry(self, request: ReviewRequest, attempt: int) -> None:
        with self._lock:
            self._timers.pop(request.logical_id, None)
            if self._closed:
                self._active.discard(request.logical_id)
                return
            self._admit_or_wait(request, attempt)

    def _finish(self, request: ReviewRequest, ok: bool, started: float) -> None:
        with self._lock:
            self._active.discard(request.logical_id)
            self._release(request)
        if self.on_done is not None:
            self.on_done(ok, time.monotonic() - started)

    def idle(self) -> bool:
        with self._lock:
            return not self._active

    def depth(self) -> dict[str, int]:
        with self._lock:
            waiting = sum(len(w) for w in self._waiting.values())
            scheduled = len(self._timers)
            started = self._started
            queued = len(self._active) - waiting - scheduled - started
        return {
            "queued": max(queued, 0),
            "waiting": waiting,
            "scheduled": scheduled,
            "started": started,
        }

    def problem(self) -> str | None:
        return "the service is shutting down" if self._closed else None

    def healthy(self) -> bool:
        return self.problem() is None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            timers = list(self._timers.values())
            self._timers.clear()
        for timer in timers:
            timer.cancel()
        self.pool.shutdown(wait=True)
