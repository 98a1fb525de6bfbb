"""`codebias serve` really serves: uvicorn on loopback, signed deliveries, health and metrics."""

from __future__ import annotations

import httpx
from botsupport import SECRET, codebias_serve, env_for
from fakegithub import FakeGitHub
from scenario import signed


def test_serve_answers_health_metrics_and_webhooks(
    github: FakeGitHub, app_keys: tuple[str, str]
) -> None:
    with codebias_serve(env_for(github, app_keys[0])) as (_, port):
        base = f"http://127.0.0.1:{port}"
        health = httpx.get(base + "/healthz")
        assert health.json() == {"ok": True, "mode": "embedded"}
        body, headers = signed("ping", {"zen": "Keep it logically awesome.", "hook_id": 1}, SECRET)
        assert httpx.post(base + "/webhook", content=body, headers=headers).status_code == 200
        assert (
            httpx.post(
                base + "/webhook",
                content=body,
                headers={**headers, "X-Hub-Signature-256": "sha256=0"},
            ).status_code
            == 401
        )
        assert 'outcome="ignored"} 1' in httpx.get(base + "/metrics").text
