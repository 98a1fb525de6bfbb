"""The webhook endpoint's answers, through the real starlette app (TestClient).

The queue is the real embedded queue; its runner records the requests instead of reviewing,
so these tests pin the HTTP edge only (the review itself: test_end_to_end.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from botsupport import SECRET, env_for
from fakegithub import FakeGitHub
from scenario import comment_event, payload, pull_request_event, signed
from starlette.testclient import TestClient

from bot.events import ReviewRequest
from bot.metrics import MemoryStore, Metrics
from bot.queue import EmbeddedJobQueue, RQJobQueue
from bot.service import Services, create_app
from bot.settings import Settings
from bot.webhooks import MemoryDeduper, RedisDeduper


class Recorder:
    def __init__(self) -> None:
        self.requests: list[ReviewRequest] = []

    def __call__(self, request: ReviewRequest) -> None:
        self.requests.append(request)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def client(embedded_settings: Settings, recorder: Recorder) -> Iterator[TestClient]:
    queue = EmbeddedJobQueue(recorder, workers=1, retry_intervals=())
    services = Services(embedded_settings, queue, MemoryDeduper(60), Metrics(MemoryStore()))
    with TestClient(create_app(embedded_settings, services)) as c:
        yield c
    queue.close()


def post(client: TestClient, event: str, data: object, **override: str) -> object:
    body, headers = signed(
        event, data if isinstance(data, bytes) else json.dumps(data).encode(), SECRET
    )
    headers.update(override)
    return client.post("/webhook", content=body, headers=headers)


def healthy(client: TestClient) -> bool:
    return client.get("/healthz").status_code == 200


def test_signed_pull_request_is_queued_with_202(client: TestClient, recorder: Recorder) -> None:
    answer = post(client, "pull_request", pull_request_event("opened", 7, "a" * 40, "b" * 40))
    assert answer.status_code == 202
    assert answer.json()["job"] == f"octo-org/hiring#7@{'a' * 40}"
    client.app.state.services.queue.close()
    assert [r.number for r in recorder.requests] == [7]


@pytest.mark.parametrize(
    "label,signature",
    [
        ("missing", None),
        ("wrong secret", "sha256=" + "0" * 64),
        ("not sha256", "sha1=abc"),
        ("empty", ""),
    ],
)
def test_bad_signature_is_401_and_service_keeps_serving(
    client: TestClient, recorder: Recorder, label: str, signature: str | None
) -> None:
    body = json.dumps(pull_request_event("opened", 7, "a" * 40, "b" * 40)).encode()
    headers = {"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": "d-" + label}
    if signature is not None:
        headers["X-Hub-Signature-256"] = signature
    assert client.post("/webhook", content=body, headers=headers).status_code == 401
    assert healthy(client)
    assert recorder.requests == []


def test_signature_is_checked_on_the_raw_bytes(client: TestClient) -> None:
    data = pull_request_event("opened", 7, "a" * 40, "b" * 40)
    body, headers = signed("pull_request", data, SECRET)
    # Same JSON, different bytes: the signature no longer matches.
    reformatted = json.dumps(json.loads(body), indent=2).encode()
    assert client.post("/webhook", content=reformatted, headers=headers).status_code == 401


@pytest.mark.parametrize(
    "label,event,body",
    [
        ("not json", "pull_request", b"{not json"),
        ("not an object", "pull_request", b"[1, 2]"),
        ("not utf-8", "pull_request", b"\xff\xfe"),
        (
            "pull request without head",
            "pull_request",
            json.dumps({"action": "opened", "pull_request": {"number": 1}}).encode(),
        ),
    ],
)
def test_malformed_signed_body_is_400(
    client: TestClient, label: str, event: str, body: bytes
) -> None:
    assert post(client, event, body).status_code == 400
    assert healthy(client)


def test_missing_event_header_is_400(client: TestClient) -> None:
    body, headers = signed("pull_request", {"action": "opened"}, SECRET)
    del headers["X-GitHub-Event"]
    assert client.post("/webhook", content=body, headers=headers).status_code == 400


@pytest.mark.parametrize(
    "event,name",
    [
        ("ping", "ping"),
        ("pull_request", "pull_request.closed"),
        ("star", "ping"),  # an event the App never asked for
        ("installation", "installation.created"),
    ],
)
def test_events_it_does_not_review_get_200(
    client: TestClient, recorder: Recorder, event: str, name: str
) -> None:
    answer = post(client, event, payload(name))
    assert answer.status_code == 200
    assert healthy(client)
    client.app.state.services.queue.close()
    assert recorder.requests == []


def test_same_delivery_id_is_queued_once(client: TestClient, recorder: Recorder) -> None:
    data = pull_request_event("opened", 7, "a" * 40, "b" * 40)
    first = post(client, "pull_request", data, **{"X-GitHub-Delivery": "same"})
    second = post(client, "pull_request", data, **{"X-GitHub-Delivery": "same"})
    assert (first.status_code, second.status_code) == (202, 200)
    assert second.json() == {"duplicate": "same"}
    client.app.state.services.queue.close()
    assert len(recorder.requests) == 1


def test_comment_by_a_bot_is_ignored(client: TestClient) -> None:
    answer = post(
        client, "issue_comment", comment_event(7, "/codebias recheck", "other[bot]", "Bot")
    )
    assert answer.status_code == 200


def test_metrics_count_deliveries_in_prometheus_text(client: TestClient) -> None:
    post(client, "pull_request", pull_request_event("opened", 7, "a" * 40, "b" * 40))
    client.post("/webhook", content=b"{}", headers={"X-GitHub-Event": "ping"})
    text = client.get("/metrics")
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/plain")
    assert 'codebias_webhooks_received_total{event="pull_request",outcome="queued"} 1' in text.text
    assert 'codebias_webhooks_received_total{event="ping",outcome="unauthorized"} 1' in text.text
    assert "codebias_jobs_queued_total 1" in text.text
    assert "# TYPE codebias_job_seconds summary" in text.text


def test_rq_mode_dedupes_in_redis_across_service_instances(
    github: FakeGitHub, app_keys: tuple[str, str], redis_url: str
) -> None:
    settings = Settings.from_env(env_for(github, app_keys[0], redis_url))
    data = pull_request_event("opened", 7, "a" * 40, "b" * 40)
    answers = []
    for _ in range(2):  # two replicas of the service, one Redis
        with TestClient(create_app(settings)) as c:
            answers.append(
                post(c, "pull_request", data, **{"X-GitHub-Delivery": "one"}).status_code
            )
            assert isinstance(c.app.state.services.deduper, RedisDeduper)
            assert isinstance(c.app.state.services.queue, RQJobQueue)
            assert c.get("/healthz").json() == {"ok": True, "mode": "rq"}
    assert answers == [202, 200]


def test_healthz_is_503_when_redis_is_unreachable(
    github: FakeGitHub, app_keys: tuple[str, str]
) -> None:
    from botsupport import free_port

    settings = Settings.from_env(env_for(github, app_keys[0], f"redis://127.0.0.1:{free_port()}/0"))
    with TestClient(create_app(settings)) as c:
        assert c.get("/healthz").status_code == 503
        assert (
            post(c, "pull_request", pull_request_event("opened", 7, "a" * 40, "b" * 40)).status_code
            == 503
        )


def settle(client: TestClient) -> None:
    """Wait until the embedded queue has run what it took (so a repeat is not coalesced)."""
    import time

    queue = client.app.state.services.queue
    deadline = time.monotonic() + 10
    while not queue.idle():
        assert time.monotonic() < deadline
        time.sleep(0.01)


@pytest.mark.parametrize(
    "event,data",
    [
        ("pull_request", pull_request_event("synchronize", 7, "a" * 40, "b" * 40)),
        ("issue_comment", comment_event(7, "/codebias fix salary_offer")),
    ],
    ids=["pull_request", "fix-command"],
)
def test_a_captured_body_replayed_with_new_delivery_ids_runs_once(
    client: TestClient, recorder: Recorder, event: str, data: dict[str, object]
) -> None:
    """Issue 25, item 12: the delivery id is not signed, so a replay under fresh ids ran a job
    (and for `/codebias fix`, a model call) each time."""
    answers = []
    for replay in range(3):
        answers.append(post(client, event, data, **{"X-GitHub-Delivery": f"fresh-{replay}"}))
        settle(client)
    assert [a.status_code for a in answers] == [202, 200, 200]
    assert all("duplicate" in a.json() for a in answers[1:])
    assert len(recorder.requests) == 1


def test_distinct_events_of_one_head_are_not_taken_for_replays(
    client: TestClient, recorder: Recorder
) -> None:
    first = pull_request_event("synchronize", 7, "a" * 40, "b" * 40)
    later = pull_request_event("synchronize", 7, "c" * 40, "b" * 40)
    suite = payload("check_suite.rerequested")
    suite["check_suite"]["pull_requests"] = [{"number": 7}]
    again = json.loads(json.dumps(suite))
    again["check_suite"]["updated_at"] = "2019-05-15T16:00:00Z"  # re-run once more, later
    for event, data in [
        ("pull_request", first),
        ("pull_request", later),
        ("check_suite", suite),
        ("check_suite", again),
    ]:
        assert post(client, event, data).status_code == 202
        settle(client)
    assert len(recorder.requests) == 4
