"""The RQ worker that runs review jobs (`codebias worker`), as rq's own `Worker` plus what a
fleet needs:

- **Heartbeats** every `heartbeat` seconds; a job silent for two of them is *abandoned* (its
  worker was SIGKILLed, OOM-killed, or its machine vanished). Registry maintenance runs every
  `2 × heartbeat`, and RQ's abandoned-job handling then retries the job like a failure.
- **Horses die with their worker.** Each job runs in a forked work horse; on Linux the horse
  asks the kernel to SIGKILL it when its worker dies, so that a killed worker's job cannot
  finish unseen and post a second time after its retry.
- **A prompt exit.** RQ's command listener waits up to 60 s for a message, and redis-py (8.2 on)
  joins that listener when it stops: a worker whose listener has just seen its own unsubscribe
  reply waited out the minute before exiting. The listener here waits a second at a time.
- **Graceful shutdown.** SIGTERM lets the running review finish; if it has not finished after
  `shutdown_grace` seconds, its horse gets SIGTERM, which unwinds the job (its locks are
  released) and fails it into RQ's retry: the job is handed back to the queue, and the
  process exits before the orchestrator's own SIGKILL.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import threading
import time
from types import FrameType
from typing import Any

from rq import Queue, Worker
from rq.exceptions import AbandonedJobError
from rq.job import Job

from bot.settings import Settings

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1
# After asking a horse to stop, how long to wait before killing it outright.
HORSE_STOP_SECONDS = 10
# The longest the command listener waits for a message, hence the longest an exit waits for it.
LISTENER_WAIT_SECONDS = 1.0


class ShutdownGraceOver(BaseException):
    """Raised inside a work horse when its worker's shutdown grace ran out. A BaseException,
    so that the job's own `except Exception` blocks let it through: the job unwinds (closing
    what it holds) and RQ records a failure, which its retry hands back to the queue."""


def _grace_over_in_horse(signum: int, frame: FrameType | None) -> None:
    raise ShutdownGraceOver("the worker's shutdown grace ran out; the job goes back to the queue")


def _die_with_parent(parent: int) -> None:
    """Linux: SIGKILL this process when its parent dies (and now, if it already has)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError) as exc:  # not Linux: the horse may outlive a killed worker
        log.warning("work horse cannot be tied to its worker: %s", exc)
    if os.getppid() != parent:
        os._exit(1)


class ReviewWorker(Worker):
    def __init__(self, *args: Any, settings: Settings, **kwargs: Any) -> None:
        heartbeat = settings.heartbeat
        kwargs.setdefault("job_monitoring_interval", heartbeat)
        kwargs.setdefault("maintenance_interval", 2 * heartbeat)
        # An idle worker wakes every `worker_ttl - 15` s; keep that near the maintenance pace.
        kwargs.setdefault("worker_ttl", max(2 * heartbeat, 5) + 15)
        super().__init__(*args, **kwargs)
        self.settings = settings
        self._grace_timer: threading.Timer | None = None
        self.push_exc_handler(self._report_abandoned)  # type: ignore[no-untyped-call]

    @staticmethod
    def _report_abandoned(job: Job, exc_type: type[BaseException], *rest: Any) -> bool:
        """RQ calls this for every failed job; the job logs its own failures, so only the
        abandoned ones (found by registry maintenance) are reported here."""
        if exc_type is AbandonedJobError:
            log.warning(
                "review %s abandoned: its worker stopped sending heartbeats (killed or lost); %s",
                job.description,
                "retrying it" if job.should_retry else "no retries left: moved to failed jobs",
                extra={"job": job.description},
            )
        return True  # let the other handlers run

    def subscribe(self) -> None:
        """RQ's own, with the listener waiting `LISTENER_WAIT_SECONDS` instead of 60 s."""
        self.log.info("Worker %s: subscribing to channel %s", self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]
            sleep_time=LISTENER_WAIT_SECONDS,
            daemon=True,
            exception_handler=self._pubsub_exception_handler,
        )

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        # RQ allows 60 s past the monitoring interval; a fleet notices a dead worker sooner.
        return 2 * int(self.job_monitoring_interval)

    def setup_work_horse_signals(self) -> None:
        super().setup_work_horse_signals()  # type: ignore[no-untyped-call]
        signal.signal(signal.SIGTERM, _grace_over_in_horse)

    def main_work_horse(self, job: Job, queue: Queue) -> None:
        _die_with_parent(self._parent_pid)
        super().main_work_horse(job, queue)

    def fork_work_horse(self, job: Job, queue: Queue) -> None:
        self._parent_pid = os.getpid()
        super().fork_work_horse(job, queue)

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        busy = bool(self.horse_pid)
        if busy:
            grace = self.settings.shutdown_grace
            job_id = self.get_current_job_id()
            log.warning(
                "shutdown requested (signal %d): finishing job %s, at most %d s more",
                signum,
                job_id,
                grace,
                extra={"job": job_id},
            )
            self._grace_timer = threading.Timer(grace, self._grace_over, (job_id,))
            self._grace_timer.daemon = True
            self._grace_timer.start()
        else:
            log.info("shutdown requested (signal %d): idle, stopping", signum)
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]

    def _grace_over(self, job_id: str | None) -> None:
        horse = self.horse_pid
        if not horse:
            return
        log.warning(
            "shutdown grace of %d s is over: stopping job %s and handing it back to the queue",
            self.settings.shutdown_grace,
            job_id,
            extra={"job": job_id},
        )
        try:
            os.kill(horse, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + HORSE_STOP_SECONDS
        while self.horse_pid == horse and time.monotonic() < deadline:
            time.sleep(0.1)
        if self.horse_pid == horse:
            # Stuck: kill it. The worker then fails the job into its retry, as for any crash;
            # the review's next run reuses the check run this one opened.
            self.kill_horse()
