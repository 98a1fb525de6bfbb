"""The fake GitHub with what a fleet of workers meets: latency on every answer, several
installations, rate-limit headers, scripted faults (502, 403/429 with Retry-After, 404),
and a clock on every check run and review, for the fleet benchmark and the fault tests."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from fakegithub import TOKEN, FakeGitHub


@dataclass
class Fault:
    """Answer `status` (with `headers`) to the next `times` requests matching method and path."""

    method: str
    pattern: str
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "fault injected by the test"
    times: int = 1


@dataclass(frozen=True)
class Posted:
    """A review or a check run conclusion, when GitHub received it."""

    at: float
    repo: str
    number: int | None
    head_sha: str


class FleetGitHub(FakeGitHub):
    def __init__(
        self,
        public_key: str,
        app_id: str,
        installations: tuple[int, ...] = (4242,),
        latency: float = 0.0,
    ) -> None:
        super().__init__(public_key, app_id, installation_id=installations[0])
        self.installations = set(installations)
        self.latency = latency
        self.faults: list[Fault] = []
        self.rate_limit_remaining = 5000
        self.reviews_posted: list[Posted] = []
        self.checks_completed: list[Posted] = []
        self.fault_lock = threading.Lock()

    def fail(self, fault: Fault) -> None:
        with self.fault_lock:
            self.faults.append(fault)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self.fault_lock:
            for fault in self.faults:
                if fault.method == method and re.search(fault.pattern, path) and fault.times:
                    fault.times -= 1
                    return fault
        return None

    def dispatch(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, auth: str
    ) -> tuple[int, Any, dict[str, str]]:
        if self.latency:
            time.sleep(self.latency)  # in this request's own server thread
        fault = self._take_fault(method, path)
        if fault is not None:
            return fault.status, {"message": fault.message}, dict(fault.headers)
        status, payload, headers = super().dispatch(method, path, query, body, auth)
        with self.lock:
            self.rate_limit_remaining = max(self.rate_limit_remaining - 1, 0)
            remaining = self.rate_limit_remaining
        return (
            status,
            payload,
            {**headers, "x-ratelimit-limit": "5000", "x-ratelimit-remaining": str(remaining)},
        )

    def access_token(self, m: re.Match[str], q: Any, body: Any) -> tuple[int, Any, dict[str, str]]:
        if int(m["id"]) not in self.installations:
            return 404, {"message": "Not Found"}, {}
        self.tokens_issued += 1
        return (
            201,
            {
                "token": TOKEN,
                "expires_at": "2999-01-01T00:00:00Z",
                "permissions": {},
                "repository_selection": "all",
            },
            {},
        )

    def update_check_run(
        self, m: re.Match[str], q: Any, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        status, run, headers = super().update_check_run(m, q, body)
        if status == 200 and body.get("status") == "completed":
            self.checks_completed.append(
                Posted(time.monotonic(), f"{m['owner']}/{m['repo']}", None, run["head_sha"])
            )
        return status, run, headers

    def create_review(self, m: re.Match[str], q: Any, body: Any) -> tuple[int, Any, dict[str, str]]:
        status, review, headers = super().create_review(m, q, body)
        if status == 200:
            self.reviews_posted.append(
                Posted(
                    time.monotonic(),
                    f"{m['owner']}/{m['repo']}",
                    int(m["n"]),
                    str(body.get("commit_id")),
                )
            )
        return status, review, headers
