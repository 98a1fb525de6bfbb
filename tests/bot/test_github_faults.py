"""GitHub and the LLM provider misbehaving, one review at a time (embedded mode): 502, secondary
rate limits with Retry-After, 404 for a deleted branch, a push during the review, the model
down. Nothing is lost, the waits GitHub asks for are honoured outside the worker slot, and
each case leaves a clear log line."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botsupport import APP_ID, free_port
from fleetgithub import Fault, FleetGitHub
from scenario import BASE, HEAD, PATH, REPO, set_pull

from bot.events import ReviewRequest, route
from bot.github_errors import GitHubError, GitHubUnavailable
from bot.jobs import JobContext
from bot.logs import BoundFields, JsonFormatter
from bot.metrics import MemoryStore, Metrics
from bot.queue import EmbeddedJobQueue, fields_of
from bot.settings import Settings

pytestmark = pytest.mark.sandbox


@pytest.fixture
def github(app_keys: tuple[str, str]) -> Iterator[FleetGitHub]:
    """conftest's fake GitHub, with faults (conftest's `embedded_settings` point at it)."""
    fake = FleetGitHub(public_key=app_keys[1], app_id=APP_ID).start()
    yield fake
    fake.stop()


Logs = Callable[[], list[dict[str, Any]]]


@pytest.fixture
def logs() -> Iterator[Logs]:
    """The JSON records logged so far (the service's own handler and formatter)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(BoundFields())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    root.removeHandler(handler)
    root.setLevel(old_level)


def request_for(event: dict[str, Any], delivery: str = "delivery-1") -> ReviewRequest:
    routed = route("pull_request", event)
    assert isinstance(routed, ReviewRequest)
    return dataclasses.replace(routed, delivery=delivery)


def run_in_queue(context: JobContext, request: ReviewRequest, intervals: tuple[int, ...]) -> None:
    queue = EmbeddedJobQueue(context.run, workers=1, retry_intervals=intervals)
    queue.submit(request)
    deadline = time.monotonic() + 60
    while not queue.idle():
        assert time.monotonic() < deadline, "the review did not finish"
        time.sleep(0.05)
    queue.close()
    assert not queue.failed, queue.failed[-1].error


def test_a_502_names_its_url_and_the_retry_succeeds(
    github: FleetGitHub, embedded_settings: Settings, logs: Logs
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    github.fail(Fault("GET", r"/pulls/7/files$", 502, message="Server Error"))
    context = JobContext.build(embedded_settings)
    with pytest.raises(GitHubUnavailable) as info:
        context.run(request_for(event))
    assert f"GET {github.url}/repos/{REPO}/pulls/7/files" in str(info.value)
    assert "answered 502" in str(info.value)
    run_in_queue(context, request_for(event), intervals=(0,))
    repo = github.repo(REPO)
    assert len(repo.reviews) == 1 and repo.check_runs[-1]["status"] == "completed"


def test_a_failed_checkout_of_the_imports_still_reviews_the_files(
    github: FleetGitHub, embedded_settings: Settings, logs: Logs
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    github.fail(Fault("GET", r"/git/trees/", 502, message="Server Error", times=5))
    result = JobContext.build(embedded_settings).run(request_for(event))
    assert result.startswith("failure:") and len(github.repo(REPO).reviews) == 1
    warning = next(r for r in logs() if "no checkout" in r["message"])
    assert "/git/trees/" in warning["message"] and "answered 502" in warning["message"]


@pytest.mark.parametrize("status", [403, 429])
def test_secondary_rate_limit_waits_for_retry_after_then_succeeds(
    github: FleetGitHub, embedded_settings: Settings, logs: Logs, status: int
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    github.fail(
        Fault(
            "POST",
            r"/check-runs$",
            status,
            headers={"retry-after": "2"},
            message="You have exceeded a secondary rate limit.",
        )
    )
    context = JobContext.build(embedded_settings)
    run_in_queue(context, request_for(event), intervals=(0,))
    posts = github.calls("POST", r"/check-runs$")
    assert [p.status for p in posts] == [status, 201]
    repo = github.repo(REPO)
    assert len(repo.reviews) == 1 and repo.check_runs[-1]["conclusion"] == "failure"
    retry = next(r for r in logs() if "retry in" in r["message"])
    assert retry["retry_in"] >= 2 and retry["repository"] == REPO
    assert "secondary rate limit" in retry["message"] and "/check-runs" in retry["message"]


def test_no_check_run_means_no_review(
    github: FleetGitHub, embedded_settings: Settings, logs: Logs
) -> None:
    # A 403 without Retry-After (the App lacks `checks: write`) is no rate limit: the job
    # fails at once, and a review is never posted without the check run that carries it.
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    github.fail(
        Fault(
            "POST", r"/check-runs$", 403, message="Resource not accessible by integration",
            times=100,
        )
    )
    with pytest.raises(GitHubError) as info:
        JobContext.build(embedded_settings).run(request_for(event))
    assert info.value.status == 403 and not isinstance(info.value, GitHubUnavailable)
    assert "/check-runs" in str(info.value)
    assert [p.status for p in github.calls("POST", r"/check-runs$")] == [403]
    repo = github.repo(REPO)
    assert repo.check_runs == [] and repo.reviews == [] and repo.review_comments == []


def test_rate_limit_remaining_is_a_metric(github: FleetGitHub, embedded_settings: Settings) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    metrics = Metrics(MemoryStore())
    JobContext.build(embedded_settings, metrics).run(request_for(event))
    text = metrics.render()
    line = next(x for x in text.splitlines() if x.startswith("codebias_github_ratelimit"))
    assert 'installation="4242"' in line and int(line.split()[-1]) < 5000
    assert 'codebias_cache_lookups_total{result="miss"} 3' in text
    assert "codebias_engine_executions_total 0" not in text


def test_a_deleted_branch_abandons_the_review_cleanly(
    github: FleetGitHub, embedded_settings: Settings, logs: Logs
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    repo = github.repo(REPO)
    head = event["pull_request"]["head"]["sha"]

    # The branch is deleted while the review lists the files: GitHub closes the pull request,
    # and what the review asks for next answers 404.
    def delete_branch(m: Any, q: Any, body: Any) -> Any:
        repo.pulls[7]["state"] = "closed"
        del repo.files[(head, PATH)]
        return 404, {"message": "Not Found"}, {}

    github.get_pull_files = delete_branch  # type: ignore[method-assign]
    result = JobContext.build(embedded_settings).run(request_for(event))
    assert result.startswith("abandoned: the pull request was closed")
    assert repo.reviews == []
    (run,) = repo.check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "neutral")
    assert run["output"]["title"] == "Review abandoned"
    line = next(r for r in logs() if "abandoned" in r["message"])
    assert line["level"] == "warning" and "answered 404" in line["message"]


def test_a_push_during_the_review_keeps_the_old_head_from_posting(
    github: FleetGitHub, embedded_settings: Settings, logs: Logs
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    repo = github.repo(REPO)
    original = github.update_check_run

    def finish_then_push(m: Any, q: Any, body: Any) -> Any:
        answer = original(m, q, body)
        repo.pulls[7]["head"]["sha"] = "f" * 40  # a newer push lands as the check completes
        return answer

    github.update_check_run = finish_then_push  # type: ignore[method-assign]
    result = JobContext.build(embedded_settings).run(request_for(event))
    assert result.startswith("superseded before posting: the head is now fffffff")
    assert repo.reviews == [] and repo.check_runs[-1]["status"] == "completed"


def test_the_llm_provider_down_still_posts_the_findings(
    github: FleetGitHub, embedded_settings: Settings, logs: Logs
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    down = {
        "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
        "CODEBIAS_LLM_MAX_RETRIES": "0",
    }
    context = JobContext.build(dataclasses.replace(embedded_settings, llm_env=down))
    result = context.run(request_for(event))
    assert result.startswith("failure:")
    repo = github.repo(REPO)
    (review,) = repo.reviews
    assert len(repo.review_comments) == 2
    # The mechanical rules' fixes are posted without the model; its failure is logged.
    assert any("made by the mechanical rule" in c["body"] for c in repo.review_comments)
    failed = [r for r in logs() if r["message"].startswith("the language model failed for ")]
    assert failed and all(r["level"] == "warning" for r in failed), failed


def test_log_lines_carry_the_review_fields_and_step_seconds(
    github: FleetGitHub, embedded_settings: Settings, logs: Logs
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    request = request_for(event, delivery="72d3162e-cc78-11e3-81ab-4c9367dc0958")
    with fields_of(request):
        JobContext.build(embedded_settings).run(request)
    steps = [r for r in logs() if r.get("step") and r["message"].endswith(" done")]
    assert {r["step"] for r in steps} >= {
        "read_pull_request",
        "load_policy",
        "start_check",
        "test_functions",
        "finish_check",
        "publish_review",
    }
    for record in steps:
        assert record["delivery"] == "72d3162e-cc78-11e3-81ab-4c9367dc0958"
        assert record["installation"] == 4242 and record["repository"] == REPO
        assert record["pull_request"] == 7 and record["head_sha"] == request.head_sha
        assert isinstance(record["seconds"], float)
    final = next(r for r in logs() if r["message"].startswith(f"review {request.logical_id}: "))
    assert final["outcome"].startswith("failure") and final["seconds"] > 0
