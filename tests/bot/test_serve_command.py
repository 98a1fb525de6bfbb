"""`codebias serve` really serves: uvicorn on loopback, signed deliveries, health and metrics,
and a log line for each delivery it turns away."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from botsupport import SECRET, codebias_serve, env_for
from fakegithub import FakeGitHub
from scenario import signed

BODY_SECRET = "a-line-of-the-body-that-must-never-be-logged"


def test_serve_answers_health_metrics_and_webhooks(
    github: FakeGitHub, app_keys: tuple[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    with codebias_serve(env_for(github, app_keys[0]), log) as (_, port):
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

        # Turned away: each says why, with the delivery's id, and never what it carried.
        forged, forged_headers = signed("ping", {"zen": BODY_SECRET}, "not the secret", "d-401")
        assert (
            httpx.post(base + "/webhook", content=forged, headers=forged_headers).status_code == 401
        )
        broken, broken_headers = signed("ping", BODY_SECRET.encode(), SECRET, "d-400")
        assert (
            httpx.post(base + "/webhook", content=broken, headers=broken_headers).status_code == 400
        )
    text = log.read_text()
    assert BODY_SECRET not in text
    records = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    rejected = {
        r.get("delivery"): r for r in records if r.get("outcome") in ("unauthorized", "malformed")
    }
    assert (
        rejected["d-401"]["status"] == 401 and "X-Hub-Signature-256" in rejected["d-401"]["message"]
    )
    assert rejected["d-400"]["status"] == 400 and "not JSON" in rejected["d-400"]["message"]
    assert rejected["d-401"]["event"] == "ping" and rejected["d-401"]["level"] == "warning"
