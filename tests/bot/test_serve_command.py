"""`codebias serve` really serves: uvicorn on loopback, signed deliveries, health and metrics."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
from botsupport import SECRET, env_for, free_port
from fakegithub import FakeGitHub
from scenario import signed


def test_serve_answers_health_metrics_and_webhooks(
    github: FakeGitHub, app_keys: tuple[str, str]
) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env={**os.environ, **env_for(github, app_keys[0])},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                health = httpx.get(base + "/healthz")
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, (
                    "codebias serve did not start"
                )
                time.sleep(0.1)
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
    finally:
        proc.terminate()
        proc.wait(timeout=20)
