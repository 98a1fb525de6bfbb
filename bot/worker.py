"""The RQ worker that runs review jobs (`codebias worker`), as rq's own `Worker` plus what a
fleet needs:

- **Heartbeats** every `heartbeat` seconds; a job silent for two of them is *abandoned* (its
  worker was SIGKILLed, OOM-killed, or its machine vanished). Registry maintenance runs every
  `2 × heartbeat`, and RQ's abandoned-job handling then retries the job like a failure.
- **Horses die with their worker.** Each job runs in a forked work horse; on Linux the horse
  asks the kernel to SIGKILL it when its worker dies, so that a killed worker's job cannot
  finish unseen and post a second time after its retry.
- **Graceful shutdown.** SIGTERM lets the running review finish; if it has not finished after
  `shutdown_grace` seconds, its horse is stopped and the job handed back to the queue (RQ
  retries it), so that the process exits before the orchestrator's own SIGKILL.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import threading
from types import FrameType
from typing import Any

from rq import Queue, Worker
from rq.job import Job

from bot.settings import Settings

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1


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

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        # RQ allows 60 s past the monitoring interval; a fleet notices a dead worker sooner.
        return 2 * int(self.job_monitoring_interval)

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
        if not self.horse_pid:
            return
        log.warning(
            "shutdown grace of %d s is over: stopping job %s and handing it back to the queue",
            self.settings.shutdown_grace,
            job_id,
            extra={"job": job_id},
        )
        # The worker then sees its horse die and fails the job into its retry, as for any
        # crashed job; the review's next run reuses the check run this one opened.
        self.kill_horse()
