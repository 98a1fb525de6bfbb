"""Constants and helpers shared by the bot's tests (a plain module: test files import it
directly, which `conftest` cannot be relied on for when several conftest files exist)."""

from __future__ import annotations

import socket

from fakegithub import FakeGitHub

APP_ID = "31337"
SECRET = "webhook-secret-for-tests"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(github: FakeGitHub, private_key: str, redis_url: str | None = None) -> dict[str, str]:
    env = {
        "GITHUB_APP_ID": APP_ID,
        "GITHUB_PRIVATE_KEY": private_key,
        "GITHUB_WEBHOOK_SECRET": SECRET,
        "GITHUB_API_URL": github.url,
        "CODEBIAS_RETRY_INTERVALS": "",
    }
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env
