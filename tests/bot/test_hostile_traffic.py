"""Hostile traffic at the webhook (issue 11, item 7), and what /healthz and /metrics say.

Each of the first four failed before its change: 26 MB bodies were read whole and then
answered 401; any X-GitHub-Event value became a metrics label; a signed body nested 1,000
deep raised RecursionError (500)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from botsupport import SECRET
from prometheus_client.parser import text_string_to_metric_families
from scenario import pull_request_event, signed
from starlette.testclient import TestClient

from bot.metrics import MemoryStore, Metrics, depth_series
from bot.queue import EmbeddedJobQueue
from bot.service import MAX_BODY_BYTES, Services, create_app
from bot.settings import Settings
from bot.webhooks import MemoryDeduper


@pytest.fixture
def client(embedded_settings: Settings) -> Iterator[TestClient]:
    queue = EmbeddedJobQueue(lambda request: None, workers=1, retry_intervals=())
    metrics = Metrics(MemoryStore(), live=lambda: depth_series(queue.depth()))
    services = Services(embedded_settings, queue, MemoryDeduper(60), metrics)
    with TestClient(create_app(embedded_settings, services)) as c:
        yield c
    queue.close()


def test_a_body_over_25_mb_is_413_by_its_content_length(client: TestClient) -> None:
    body = b"x" * (MAX_BODY_BYTES + 1)
    answer = client.post("/webhook", content=body, headers={"X-GitHub-Event": "ping"})
    assert answer.status_code == 413
    assert "exceeds" in answer.json()["error"]


def test_a_streamed_body_is_cut_off_at_25_mb(client: TestClient) -> None:
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        for _ in range(40):  # 40 MB offered, no Content-Length (chunked)
            sent += 1
            yield b"x" * (1024 * 1024)

    # A signature header (a wrong one): a body without any is refused before it is read.
    headers = {"X-GitHub-Event": "ping", "X-Hub-Signature-256": "sha256=" + "0" * 64}
    answer = client.post("/webhook", content=chunks(), headers=headers)
    assert answer.status_code == 413
    assert "Content-Length" not in answer.json()["error"]  # caught while streaming


def test_metrics_label_only_event_names_the_app_knows(client: TestClient) -> None:
    for i in range(50):
        client.post("/webhook", content=b"{}", headers={"X-GitHub-Event": f"made-up-{i}"})
    text = client.get("/metrics").text
    assert "made-up" not in text
    assert 'event="other",outcome="unauthorized"} 50' in text


def test_a_signed_body_nested_1000_deep_is_400(client: TestClient) -> None:
    body = b'{"a":' * 1000 + b"1" + b"}" * 1000
    data, headers = signed("pull_request", body, SECRET)
    answer = client.post("/webhook", content=data, headers=headers)
    assert answer.status_code == 400
    assert "nested" in answer.json()["error"]


def test_metrics_are_valid_prometheus_text_with_the_fleet_families(client: TestClient) -> None:
    data, headers = signed(
        "pull_request", pull_request_event("opened", 7, "a" * 40, "b" * 40), SECRET
    )
    assert client.post("/webhook", content=data, headers=headers).status_code == 202
    families = {f.name: f for f in text_string_to_metric_families(client.get("/metrics").text)}
    for name in (
        "codebias_queue_depth",
        "codebias_job_seconds",
        "codebias_engine_executions",
        "codebias_cache_lookups",
        "codebias_webhooks_received",
    ):
        assert name in families, sorted(families)
    states = {s.labels["state"] for s in families["codebias_queue_depth"].samples}
    assert states == {"queued", "waiting", "scheduled", "started"}


def test_healthz_names_what_is_wrong(embedded_settings: Settings) -> None:
    import dataclasses

    settings = dataclasses.replace(embedded_settings, redis_url="redis://127.0.0.1:1/0")
    with TestClient(create_app(settings)) as c:
        answer = c.get("/healthz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["ok"] is False and body["mode"] == "rq"
    assert "127.0.0.1:1" in body["reason"] and "unreachable" in body["reason"]


def test_the_answer_to_a_big_but_allowed_body_is_still_about_its_signature(
    client: TestClient,
) -> None:
    body = json.dumps({"padding": "x" * (1024 * 1024)}).encode()
    answer = client.post("/webhook", content=body, headers={"X-GitHub-Event": "ping"})
    assert answer.status_code == 401
