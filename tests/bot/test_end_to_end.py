"""The whole App, both modes: signed webhook -> queue -> review job -> fake GitHub.

Embedded: the service's own pool runs the job. RQ: the service enqueues into a real Redis and
`codebias worker --burst` (a real subprocess) runs it. The engine runs in its sandbox.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from botsupport import SECRET, env_for
from fakegithub import FakeGitHub
from scenario import BASE, HEAD, HEAD_FIXED, PATH, REPO, set_pull, signed
from starlette.testclient import TestClient

from bot.service import create_app
from bot.settings import Settings

pytestmark = pytest.mark.sandbox
DEADLINE = 30.0


def function_lines(source: str, name: str) -> range:
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines, 1) if line.startswith(f"def {name}("))
    end = start
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    return range(start, end + 1)


class Mode:
    """Runs deliveries through one mode and waits for the reviews to finish."""

    def __init__(self, client: TestClient, drain: Callable[[], None]) -> None:
        self.client = client
        self.drain = drain

    def deliver(self, event: str, data: dict[str, Any], delivery: str | None = None) -> Any:
        body, headers = signed(event, data, SECRET, delivery)
        return self.client.post("/webhook", content=body, headers=headers)


@contextmanager
def embedded(github: FakeGitHub, keys: tuple[str, str]) -> Iterator[Mode]:
    app = create_app(Settings.from_env(env_for(github, keys[0])))
    queue = app.state.services.queue

    def drain() -> None:
        deadline = time.monotonic() + DEADLINE
        while not queue.idle():
            assert time.monotonic() < deadline, "the review did not finish in time"
            time.sleep(0.05)
        assert not queue.failed, queue.failed[-1].error

    with TestClient(app) as client:
        yield Mode(client, drain)


@contextmanager
def rq_mode(github: FakeGitHub, keys: tuple[str, str], redis_url: str) -> Iterator[Mode]:
    env = env_for(github, keys[0], redis_url)
    app = create_app(Settings.from_env(env))

    def drain() -> None:
        worker = subprocess.run(
            [sys.executable, "-m", "bot.cli", "worker", "--burst"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=DEADLINE * 2,
        )
        assert worker.returncode == 0, worker.stderr[-3000:]
        assert "Traceback" not in worker.stderr, worker.stderr[-3000:]

    with TestClient(app) as client:
        yield Mode(client, drain)


@pytest.fixture(params=["embedded", "rq"])
def mode(
    request: pytest.FixtureRequest, github: FakeGitHub, app_keys: tuple[str, str]
) -> Iterator[Mode]:
    if request.param == "embedded":
        with embedded(github, app_keys) as m:
            yield m
    else:
        with rq_mode(github, app_keys, request.getfixturevalue("redis_url")) as m:
            yield m


def test_pull_request_review_end_to_end(mode: Mode, github: FakeGitHub) -> None:
    repo = github.repo(REPO)
    repo.files[("main", ".codebias.yml")] = "fail_on: new\n"
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    started = time.monotonic()

    answer = mode.deliver("pull_request", event, delivery="delivery-1")
    assert answer.status_code == 202
    mode.drain()
    assert time.monotonic() - started < DEADLINE

    # One completed check run, failing on the new findings, annotated on the biased functions only.
    (run,) = repo.check_runs
    assert run["status"] == "completed" and run["conclusion"] == "failure"
    head_sha = event["pull_request"]["head"]["sha"]
    assert run["head_sha"] == head_sha
    biased = function_lines(HEAD, "salary_offer"), function_lines(HEAD, "eligible_for_training")
    annotated = {a["start_line"] for a in run["annotations"]}
    assert annotated and all(any(n in r for r in biased) for n in annotated)
    assert any(n in biased[0] for n in annotated) and any(n in biased[1] for n in annotated)
    assert not any(n in function_lines(HEAD, "shortlist") for n in annotated)

    # One review; its inline comments sit inside the two biased functions, on diff lines.
    (review,) = repo.reviews
    comments = list(repo.review_comments)
    assert len(comments) == 2
    diff_lines = {
        n for n in range(1, HEAD.count("\n") + 2)
    }  # fake server already enforces the diff
    for comment, span in zip(sorted(comments, key=lambda c: c["line"]), biased, strict=True):
        assert comment["line"] in span and comment["line"] in diff_lines
        assert "codebias:fp=" in comment["body"]
    assert "| **output** |" in comments[0]["body"]

    # Redelivery of the same delivery id creates nothing new.
    before = len(github.requests)
    again = mode.deliver("pull_request", event, delivery="delivery-1")
    assert again.status_code == 200 and again.json() == {"duplicate": "delivery-1"}
    mode.drain()
    assert len(repo.check_runs) == 1 and len(repo.reviews) == 1 and len(repo.review_comments) == 2
    assert not [r for r in github.requests[before:] if r.method in ("POST", "PATCH")]

    # A second push fixes salary_offer: its comment is resolved, the other one updated; nothing new.
    pushed = set_pull(github, 7, {PATH: (BASE, HEAD_FIXED)})
    sync = pushed | {"action": "synchronize"}
    assert mode.deliver("pull_request", sync, delivery="delivery-2").status_code == 202
    mode.drain()
    assert len(repo.review_comments) == 2 and len(repo.reviews) == 1
    by_line = sorted(repo.review_comments, key=lambda c: c["line"])
    assert "Resolved" in by_line[0]["body"] and "resolved -->" in by_line[0]["body"]
    assert pushed["pull_request"]["head"]["sha"][:7] in by_line[1]["body"]
    assert "Resolved" not in by_line[1]["body"]
    last = repo.check_runs[-1]
    assert (
        last["head_sha"] == pushed["pull_request"]["head"]["sha"] and last["status"] == "completed"
    )
    assert last["conclusion"] == "failure"  # the age rule is still new in this pull request
