"""Where review jobs wait: RQ on Redis when `REDIS_URL` is set, else an in-process pool.

Both run the same job code (`bot.jobs`) and coalesce by the job's logical id
`owner/repo#pr@head_sha`, so a burst of deliveries for one head runs one review.

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
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from bot.events import ReviewRequest

log = logging.getLogger(__name__)

QUEUE_NAME = "codebias"
JOB_FUNCTION = "bot.jobs.review_job"
# Long enough for a large pull request tested function by function in the sandbox.
JOB_TIMEOUT = 30 * 60
FAILED_KEPT_SECONDS = 7 * 24 * 3600
RESULT_KEPT_SECONDS = 24 * 3600
PENDING = {JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED}

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


class JobQueue(Protocol):
    def submit(self, request: ReviewRequest) -> bool:
        """Queue a review; False when one for the same logical id is already pending."""

    def healthy(self) -> bool: ...

    def close(self) -> None: ...


class RQJobQueue:
    def __init__(self, redis: Redis, retry_intervals: tuple[int, ...]) -> None:
        self.redis = redis
        self.queue = Queue(QUEUE_NAME, connection=redis)
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
        )
        return True

    def healthy(self) -> bool:
        try:
            return bool(self.redis.ping())
        except RedisError:
            return False

    def close(self) -> None:
        self.redis.close()


@dataclass(frozen=True)
class FailedJob:
    logical_id: str
    error: str


class EmbeddedJobQueue:
    """A thread pool inside the service; the sandbox isolates the code under test anyway."""

    def __init__(
        self,
        runner: Callable[[ReviewRequest], object],
        workers: int,
        retry_intervals: tuple[int, ...],
        on_done: Callable[[bool, float], None] | None = None,
    ) -> None:
        self.runner = runner
        self.retry_intervals = retry_intervals
        self.on_done = on_done
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="codebias-job")
        self.failed: deque[FailedJob] = deque(maxlen=100)  # kept for inspection
        self._active: set[str] = set()
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, request: ReviewRequest) -> bool:
        with self._lock:
            if request.logical_id in self._active:
                return False
            self._active.add(request.logical_id)
        self.pool.submit(self._run, request)
        return True

    def _run(self, request: ReviewRequest) -> None:
        started = time.monotonic()
        ok = False
        try:
            for attempt, pause in enumerate((*self.retry_intervals, None)):
                try:
                    self.runner(request)
                    ok = True
                    return
                except Exception as exc:  # noqa: BLE001 - every failure is logged and retried or kept
                    log.warning(
                        "review %s failed (attempt %d): %s", request.logical_id, attempt + 1, exc
                    )
                    if pause is None or self._closed:
                        self.failed.append(FailedJob(request.logical_id, traceback.format_exc()))
                        log.error(
                            "review %s failed for good:\n%s",
                            request.logical_id,
                            traceback.format_exc(),
                        )
                        return
                    time.sleep(pause)
        finally:
            with self._lock:
                self._active.discard(request.logical_id)
            if self.on_done is not None:
                self.on_done(ok, time.monotonic() - started)

    def idle(self) -> bool:
        with self._lock:
            return not self._active

    def healthy(self) -> bool:
        return not self._closed

    def close(self) -> None:
        self._closed = True
        self.pool.shutdown(wait=True)
