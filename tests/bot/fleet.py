"""A fleet on one machine: one `codebias serve` process and N `codebias worker` processes on
one real Redis, against the fleet fake GitHub on loopback; and bursts of pull-request
deliveries to throw at it. Used by tests/bot/test_fleet*.py and benchmarks/fleet_scale.py.

A burst is planned up front (`plan_burst`): pull requests spread over repositories and
installations, each adding one module with 1–30 functions (one of them biased, so that every
review posts a review), some of them pushed again (a superseding head), and some deliveries
sent twice with the same delivery id, as GitHub does when it retries.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from botsupport import SECRET, free_port
from fleetgithub import FleetGitHub
from scenario import adapt_repository, patch_of, payload
from signing import github_signature

ROOT = Path(__file__).resolve().parents[2]


def module_source(pr: int, functions: int, push: int) -> str:
    """A module of `functions` functions: one biased (ten variants across pull requests, so
    the engine runs some and the cache answers the rest), the others plain rules."""
    parts = [
        f"def screen_{pr % 10}(applicant_age, score):\n"
        f"    if applicant_age > {40 + pr % 10}:\n"
        "        return False\n"
        "    return score >= 70\n"
    ]
    for i in range(functions - 1):
        parts.append(
            f"def rule_{i}(score, years):\n    return score >= {i + push} and years >= 2\n"
        )
    return "\n\n".join(parts)


def sha_of(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


@dataclass
class Head:
    repo: str
    number: int
    installation: int
    sha: str
    source: str
    push: int  # 0 for the opening head, 1 for the push that supersedes it


@dataclass
class Delivery:
    event: str
    delivery: str
    head: Head
    action: str


@dataclass
class Burst:
    deliveries: list[Delivery]
    heads: list[Head]

    @property
    def final_heads(self) -> list[Head]:
        last: dict[tuple[str, int], Head] = {}
        for head in self.heads:
            key = (head.repo, head.number)
            if key not in last or head.push > last[key].push:
                last[key] = head
        return list(last.values())

    @property
    def reviews(self) -> int:
        """Review requests in the burst (heads), duplicates not counted."""
        return len(self.heads)


def plan_burst(
    reviews: int = 200,
    installations: dict[int, int] | None = None,
    repos_per_installation: int = 2,
    supersede_share: float = 0.15,
    duplicate_share: float = 0.10,
    seed: int = 13,
    prefix: str = "fleet",
) -> Burst:
    """`installations`: installation id -> reviews it sends (default: 5 installations
    sharing `reviews`)."""
    rng = random.Random(seed)
    if installations is None:
        ids = [5000 + i for i in range(5)]
        installations = {i: reviews // len(ids) for i in ids}
        installations[ids[0]] += reviews - sum(installations.values())
    heads: list[Head] = []
    order: list[Delivery] = []
    number = 0
    for installation, count in installations.items():
        pushes = int(count * supersede_share)
        opened = count - pushes
        mine: list[Delivery] = []
        for k in range(opened):
            number += 1
            repo = f"{prefix}-{installation}/repo-{k % repos_per_installation}"
            source = module_source(number, rng.randint(1, 30), 0)
            head = Head(repo, number, installation, sha_of(f"{repo}#{number}:{source}"), source, 0)
            heads.append(head)
            mine.append(Delivery("pull_request", f"d-{number}-0", head, "opened"))
        for first in rng.sample([d.head for d in mine], pushes):
            source = module_source(first.number, first.source.count("def "), 1)
            head = Head(
                first.repo,
                first.number,
                installation,
                sha_of(f"{first.repo}#{first.number}:{source}"),
                source,
                1,
            )
            heads.append(head)
            at = next(i for i, d in enumerate(mine) if d.head is first)
            mine.insert(
                min(at + rng.randint(1, 20), len(mine)),
                Delivery("pull_request", f"d-{first.number}-1", head, "synchronize"),
            )
        order.extend(mine)
    # Interleave the installations as their deliveries would arrive, keeping each one's order.
    queues = {i: [d for d in order if d.head.installation == i] for i in installations}
    merged: list[Delivery] = []
    while any(queues.values()):
        weights = [len(q) for q in queues.values()]
        pick = rng.choices(list(queues), weights=weights)[0]
        merged.append(queues[pick].pop(0))
    for d in rng.sample(merged, int(len(merged) * duplicate_share)):
        at = merged.index(d)
        merged.insert(min(at + rng.randint(1, 10), len(merged)), d)  # GitHub's retry: same id
    return Burst(merged, heads)


def event_for(delivery: Delivery, base_sha: str) -> dict[str, Any]:
    head = delivery.head
    data = payload(f"pull_request.{delivery.action}")
    adapt_repository(data, head.repo)
    data["installation"]["id"] = head.installation
    data["number"] = head.number
    pr = data["pull_request"]
    pr["number"], pr["draft"], pr["state"] = head.number, False, "open"
    pr["head"]["sha"], pr["base"]["sha"] = head.sha, base_sha
    return data


PATH = "hiring/rules.py"


def publish_head(github: FleetGitHub, head: Head) -> dict[str, Any]:
    """Make `head` the pull request's head on the fake GitHub (a push), and return the event
    GitHub would deliver for it."""
    repo = github.repo(head.repo)
    base_sha = sha_of("base:" + head.repo)
    delivery = Delivery("pull_request", "", head, "opened" if head.push == 0 else "synchronize")
    event = event_for(delivery, base_sha)
    with github.lock:
        repo.files[(head.sha, PATH)] = head.source
        repo.pulls[head.number] = copy.deepcopy(event["pull_request"])
        patch = patch_of("", head.source)
        repo.pull_files[head.number] = [
            {
                "sha": sha_of(head.source),
                "filename": PATH,
                "status": "added",
                "additions": patch.count("\n+"),
                "deletions": 0,
                "changes": 0,
                "blob_url": f"https://github.com/{head.repo}/blob/{head.sha}/{PATH}",
                "raw_url": f"https://github.com/{head.repo}/raw/{head.sha}/{PATH}",
                "contents_url": f"https://api.github.com/repos/{head.repo}/contents/{PATH}",
                "patch": patch,
            }
        ]
    return event


@dataclass
class Fleet:
    """One web process and its workers, as subprocesses with JSON logs in `logs`."""

    github: FleetGitHub
    redis_url: str
    private_key: str
    logs: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    web: subprocess.Popen[bytes] | None = None
    port: int = 0
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    client: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30))

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "GITHUB_APP_ID": self.github.app_id,
            "GITHUB_PRIVATE_KEY": self.private_key,
            "GITHUB_WEBHOOK_SECRET": SECRET,
            "GITHUB_API_URL": self.github.url,
            "REDIS_URL": self.redis_url,
            "CODEBIAS_LOG_FORMAT": "json",
            **self.extra_env,
        }

    def _spawn(self, args: list[str], name: str) -> subprocess.Popen[bytes]:
        with open(self.logs / f"{name}.log", "ab") as log:  # the child keeps its own copy
            return subprocess.Popen(
                [sys.executable, "-m", "bot.cli", *args],
                env=self.env,
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_web(self) -> None:
        self.port = free_port()
        self.web = self._spawn(["serve", "--host", "127.0.0.1", "--port", str(self.port)], "web")
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.client.get(self.url("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert self.web.poll() is None, self.log_text("web")
            assert time.monotonic() < deadline, "codebias serve did not start"
            time.sleep(0.1)

    def start_worker(self, burst: bool = False) -> subprocess.Popen[bytes]:
        name = f"worker-{len(self.workers)}"
        worker = self._spawn(["worker", *(["--burst"] if burst else [])], name)
        self.workers.append(worker)
        return worker

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def deliver(self, event: str, data: dict[str, Any], delivery: str) -> int:
        body = json.dumps(data).encode()
        headers = {
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": github_signature(SECRET, body),
            "Content-Type": "application/json",
        }
        return self.client.post(self.url("/webhook"), content=body, headers=headers).status_code

    def log_text(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def log_records(self, name: str) -> list[dict[str, Any]]:
        out = []
        for line in self.log_text(name).splitlines():
            if line.startswith("{"):
                out.append(json.loads(line))
        return out

    def stop(self) -> None:
        for proc in [*self.workers, *([self.web] if self.web else [])]:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in [*self.workers, *([self.web] if self.web else [])]:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        self.client.close()


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@dataclass
class BurstResult:
    seconds: float
    reviews_per_minute: float
    p50: float
    p95: float
    statuses: dict[int, int]


def run_burst(fleet: Fleet, burst: Burst, timeout: float) -> BurstResult:
    """Sends the burst (pushing each head to the fake first), waits until every final head
    has its review, and measures."""
    github = fleet.github
    sent_at: dict[str, float] = {}
    statuses: dict[int, int] = {}
    started = time.monotonic()
    for d in burst.deliveries:
        if d.head.sha not in sent_at:
            event = publish_head(github, d.head)
            sent_at[d.head.sha] = time.monotonic()
        else:
            event = event_for(d, sha_of("base:" + d.head.repo))
        status = fleet.deliver(d.event, event, d.delivery)
        statuses[status] = statuses.get(status, 0) + 1
    finals = {h.sha for h in burst.final_heads}

    def done() -> bool:
        with github.lock:
            return finals <= {p.head_sha for p in github.reviews_posted}

    wait_for(done, timeout, "every final head's review")
    with github.lock:
        completed = {p.head_sha: p.at for p in github.checks_completed if p.head_sha in finals}
    latencies = sorted(completed[sha] - sent_at[sha] for sha in finals)
    seconds = max(completed.values()) - started
    return BurstResult(
        seconds=seconds,
        reviews_per_minute=len(finals) / seconds * 60,
        p50=latencies[len(latencies) // 2],
        p95=latencies[min(int(len(latencies) * 0.95), len(latencies) - 1)],
        statuses=statuses,
    )


def check_exactly_once(github: FleetGitHub, burst: Burst) -> list[str]:
    """Problems with the outcome of a burst: every final head reviewed exactly once, no head
    reviewed or checked twice, and no superseded head's review posted after the newer one."""
    problems: list[str] = []
    with github.lock:
        reviews = list(github.reviews_posted)
        runs = [r for repo in github.repos.values() for r in repo.check_runs]
    by_head: dict[str, int] = {}
    for review in reviews:
        by_head[review.head_sha] = by_head.get(review.head_sha, 0) + 1
    checks: dict[str, int] = {}
    for run in runs:
        checks[run["head_sha"]] = checks.get(run["head_sha"], 0) + 1
    for head in burst.final_heads:
        if by_head.get(head.sha) != 1:
            problems.append(
                f"{head.repo}#{head.number}@{head.sha[:7]}: {by_head.get(head.sha, 0)} reviews"
            )
    for sha, count in {**by_head, **checks}.items():
        if count > 1:
            problems.append(f"{sha[:7]}: posted {count} times")
    push_of = {h.sha: h.push for h in burst.heads}
    newest: dict[tuple[str, int | None], int] = {}
    for review in sorted(reviews, key=lambda r: r.at):
        key = (review.repo, review.number)
        push = push_of.get(review.head_sha, 0)
        if push < newest.get(key, 0):
            problems.append(
                f"{review.repo}#{review.number}: superseded head {review.head_sha[:7]} "
                "posted after the newer one"
            )
        newest[key] = max(newest.get(key, 0), push)
    for run in runs:
        if run["head_sha"] in {h.sha for h in burst.final_heads} and run["status"] != "completed":
            problems.append(f"{run['head_sha'][:7]}: check run left {run['status']}")
    return problems
