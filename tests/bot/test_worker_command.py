"""`codebias worker` as an operator meets it (issue 12, item 8), and the settings it reads."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from botsupport import APP_ID

from bot.settings import Settings, SettingsError


def worker_env(private_key: str, **extra: str) -> dict[str, str]:
    return {"GITHUB_APP_ID": APP_ID, "GITHUB_PRIVATE_KEY": private_key, **extra}


def run_worker(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "worker", "--burst"],
        env={**os.environ, **env, "GITHUB_WEBHOOK_SECRET": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_worker_runs_without_the_webhook_secret(app_keys: tuple[str, str], redis_url: str) -> None:
    done = run_worker(worker_env(app_keys[0], REDIS_URL=redis_url))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "GITHUB_WEBHOOK_SECRET" not in done.stderr


def test_unreachable_redis_is_one_line_and_exit_2(app_keys: tuple[str, str]) -> None:
    done = run_worker(worker_env(app_keys[0], REDIS_URL="redis://:hunter2@127.0.0.1:1/0"))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "cannot reach Redis at 127.0.0.1:1" in lines[0]
    assert "Traceback" not in done.stderr and "hunter2" not in done.stderr


def test_serve_still_requires_the_webhook_secret(app_keys: tuple[str, str]) -> None:
    with pytest.raises(SettingsError, match="GITHUB_WEBHOOK_SECRET"):
        Settings.from_env(worker_env(app_keys[0]), role="serve")
    assert Settings.from_env(worker_env(app_keys[0]), role="worker").webhook_secret == b""


def test_engine_jobs_and_the_llm_environment_are_read_once_into_settings(
    app_keys: tuple[str, str],
) -> None:
    env = worker_env(
        app_keys[0],
        CODEBIAS_ENGINE_JOBS="3",
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        CODEBIAS_LLM_MODEL="m",
        UNRELATED="x",
    )
    settings = Settings.from_env(env, role="worker")
    assert settings.engine_jobs == 3
    assert dict(settings.llm_env) == {
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "CODEBIAS_LLM_MODEL": "m",
    }


@pytest.mark.parametrize(
    "name,value,message",
    [
        ("CODEBIAS_ENGINE_JOBS", "many", "CODEBIAS_ENGINE_JOBS must be an integer"),
        ("CODEBIAS_ENGINE_JOBS", "0", "CODEBIAS_ENGINE_JOBS must be at least 1"),
        ("CODEBIAS_INSTALLATION_CONCURRENCY", "0", "must be at least 1"),
        ("CODEBIAS_SHUTDOWN_GRACE", "-5", "must be at least 0"),
        ("CODEBIAS_LLM_TIMEOUT", "soon", "CODEBIAS_LLM_TIMEOUT must be a non-negative number"),
        ("CODEBIAS_RETRY_INTERVALS", "10,-1", "CODEBIAS_RETRY_INTERVALS must be"),
        ("CODEBIAS_LOG_FORMAT", "xml", "CODEBIAS_LOG_FORMAT must be json or text"),
    ],
)
def test_service_settings_are_validated_at_start(
    app_keys: tuple[str, str], name: str, value: str, message: str
) -> None:
    with pytest.raises(SettingsError, match="cannot start") as info:
        Settings.from_env(worker_env(app_keys[0], **{name: value}), role="worker")
    assert message in str(info.value)


def test_jobs_see_the_settings_not_the_process_environment(
    app_keys: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.jobs import JobContext

    settings = Settings.from_env(worker_env(app_keys[0], CODEBIAS_ENGINE_JOBS="2"), role="worker")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set-after-start")
    monkeypatch.setenv("CODEBIAS_ENGINE_JOBS", "7")
    context = JobContext.build(settings)
    assert context.engine_jobs == 2
    assert "OPENAI_API_KEY" not in context.env
