"""The service's settings, read once from the environment and passed explicitly.

A missing or malformed required setting fails at start-up with one message naming every
problem, never mid-request. Nothing in the service or its jobs reads the environment again
after `Settings.from_env()`: the few variables the LLM providers read are copied into
`llm_env` here and handed to them.

`serve` and `worker` need different things: the worker never sees a webhook, so it does not
ask for the webhook secret (`role="worker"`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

DEFAULT_API_URL = "https://api.github.com"
Role = Literal["serve", "worker"]
LogFormat = Literal["json", "text"]
# What the LLM layer reads (bot.llm.provider_settings); copied once, passed explicitly.
LLM_PREFIXES = ("OPENAI_", "ANTHROPIC_", "CODEBIAS_LLM_")


class SettingsError(Exception):
    """The environment does not describe a service that can start."""


@dataclass(frozen=True)
class Settings:
    app_id: str
    private_key: str
    # Empty for the worker, which never verifies a delivery.
    webhook_secret: bytes
    api_url: str = DEFAULT_API_URL
    redis_url: str | None = None
    # Embedded mode: how many reviews run at once inside the service process.
    workers: int = 2
    # How long a delivery id is remembered (GitHub redelivers on request, days later too).
    delivery_ttl: int = 3 * 24 * 3600
    check_name: str = "codebias"
    # Seconds between attempts of a failed review (both modes); a GitHub Retry-After that
    # asks for longer wins.
    retry_intervals: tuple[int, ...] = (10, 30, 60)
    # Functions tested at once inside one review (CODEBIAS_ENGINE_JOBS).
    engine_jobs: int = 1
    # Reviews of one installation queued or running at once, so that one installation's
    # burst cannot starve the others (CODEBIAS_INSTALLATION_CONCURRENCY).
    installation_concurrency: int = 4
    # Worker: how often a running job proves it is alive; a job silent for two of these is
    # abandoned (its worker died) and re-queued (CODEBIAS_HEARTBEAT).
    heartbeat: int = 30
    # Worker: seconds a running review may take to finish after SIGTERM before it is handed
    # back to the queue (CODEBIAS_SHUTDOWN_GRACE); keep it below the orchestrator's own grace.
    shutdown_grace: int = 25
    log_format: LogFormat = "json"
    llm_env: Mapping[str, str] = field(default_factory=dict)

    @property
    def embedded(self) -> bool:
        return self.redis_url is None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, role: Role = "serve") -> Settings:
        env = os.environ if env is None else env
        problems: list[str] = []

        app_id = env.get("GITHUB_APP_ID", "").strip()
        if not app_id:
            problems.append("GITHUB_APP_ID is not set (the App's numeric id)")
        elif not app_id.isdigit():
            problems.append(f"GITHUB_APP_ID must be a number, not {app_id!r}")

        private_key = _private_key(env, problems)

        secret = env.get("GITHUB_WEBHOOK_SECRET", "")
        if not secret and role == "serve":
            # Verification is never skipped: without a secret, every delivery would be trusted.
            problems.append(
                "GITHUB_WEBHOOK_SECRET is not set; refusing to accept unsigned webhooks"
            )

        api_url = env.get("GITHUB_API_URL", "").strip() or DEFAULT_API_URL
        if not api_url.startswith(("http://", "https://")):
            problems.append(f"GITHUB_API_URL must be an http(s) URL, not {api_url!r}")

        redis_url = env.get("REDIS_URL", "").strip() or None
        if redis_url is not None and not redis_url.startswith(("redis://", "rediss://", "unix://")):
            problems.append(
                f"REDIS_URL must be a redis://, rediss:// or unix:// URL, not {redis_url!r}"
            )

        retries = env.get("CODEBIAS_RETRY_INTERVALS", "10,30,60")
        try:
            intervals = tuple(int(x) for x in retries.split(",") if x.strip())
        except ValueError:
            intervals = (-1,)
        if any(i < 0 for i in intervals):
            problems.append(
                f"CODEBIAS_RETRY_INTERVALS must be comma-separated seconds, not {retries!r}"
            )
            intervals = ()
        log_format = env.get("CODEBIAS_LOG_FORMAT", "json").strip() or "json"
        if log_format not in ("json", "text"):
            problems.append(f"CODEBIAS_LOG_FORMAT must be json or text, not {log_format!r}")
        llm_env = {k: v for k, v in env.items() if k.startswith(LLM_PREFIXES)}
        for name in ("CODEBIAS_LLM_TIMEOUT", "CODEBIAS_LLM_MAX_RETRIES"):
            _number(llm_env, name, problems)

        settings = cls(
            app_id=app_id,
            private_key=private_key,
            webhook_secret=secret.encode(),
            api_url=api_url.rstrip("/"),
            redis_url=redis_url,
            workers=_int(env, "CODEBIAS_WORKERS", 2, problems, minimum=1),
            check_name=env.get("CODEBIAS_CHECK_NAME", "codebias") or "codebias",
            retry_intervals=intervals,
            engine_jobs=_int(env, "CODEBIAS_ENGINE_JOBS", 1, problems, minimum=1),
            installation_concurrency=_int(
                env, "CODEBIAS_INSTALLATION_CONCURRENCY", 4, problems, minimum=1
            ),
            heartbeat=_int(env, "CODEBIAS_HEARTBEAT", 30, problems, minimum=1),
            shutdown_grace=_int(env, "CODEBIAS_SHUTDOWN_GRACE", 25, problems, minimum=0),
            log_format="text" if log_format == "text" else "json",
            llm_env=llm_env,
        )
        if problems:
            raise SettingsError("cannot start:\n  - " + "\n  - ".join(dict.fromkeys(problems)))
        return settings


def _private_key(env: Mapping[str, str], problems: list[str]) -> str:
    inline = env.get("GITHUB_PRIVATE_KEY", "")
    path = env.get("GITHUB_PRIVATE_KEY_PATH", "")
    if inline:
        # Many secret stores flatten newlines; PEM needs them back.
        key = inline.replace("\\n", "\n")
    elif path:
        try:
            key = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            problems.append(f"GITHUB_PRIVATE_KEY_PATH {path!r} cannot be read: {exc.strerror}")
            return ""
    else:
        problems.append(
            "GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH must be set (the App's PEM key)"
        )
        return ""
    if "-----BEGIN" not in key or "PRIVATE KEY-----" not in key:
        problems.append("the App's private key is not a PEM private key")
    return key


def _int(
    env: Mapping[str, str], name: str, default: int, problems: list[str], minimum: int = 0
) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        problems.append(f"{name} must be an integer, not {raw!r}")
        return default
    if value < minimum:
        problems.append(f"{name} must be at least {minimum}, not {value}")
        return default
    return value


def _number(env: Mapping[str, str], name: str, problems: list[str]) -> None:
    raw = env.get(name, "").strip()
    if not raw:
        return
    try:
        if float(raw) >= 0:
            return
    except ValueError:
        pass
    problems.append(f"{name} must be a non-negative number, not {raw!r}")


def settings_for(command: Role) -> Settings | None:
    """Logging set up and settings read for a service command; None, after saying why on
    stderr, when a required setting is missing or wrong."""
    import sys

    from bot.logs import configure

    try:
        settings = Settings.from_env(role=command)
    except SettingsError as exc:
        print(f"codebias {command}: {exc}", file=sys.stderr)
        return None
    configure(settings.log_format)
    return settings
