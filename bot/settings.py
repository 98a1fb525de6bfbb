"""The service's settings, read once from the environment and passed explicitly.

A missing or malformed required setting fails at start-up with one message naming every
problem, never mid-request. Nothing here is read again after `Settings.from_env()`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_API_URL = "https://api.github.com"


class SettingsError(Exception):
    """The environment does not describe a service that can start."""


@dataclass(frozen=True)
class Settings:
    app_id: str
    private_key: str
    webhook_secret: bytes
    api_url: str = DEFAULT_API_URL
    redis_url: str | None = None
    # Embedded mode: how many reviews run at once inside the service process.
    workers: int = 2
    # How long a delivery id is remembered (GitHub redelivers on request, days later too).
    delivery_ttl: int = 3 * 24 * 3600
    check_name: str = "codebias"
    # Embedded mode retries: seconds between attempts (RQ mode uses the same list).
    retry_intervals: tuple[int, ...] = (10, 30, 60)

    @property
    def embedded(self) -> bool:
        return self.redis_url is None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        problems: list[str] = []

        app_id = env.get("GITHUB_APP_ID", "").strip()
        if not app_id:
            problems.append("GITHUB_APP_ID is not set (the App's numeric id)")
        elif not app_id.isdigit():
            problems.append(f"GITHUB_APP_ID must be a number, not {app_id!r}")

        private_key = _private_key(env, problems)

        secret = env.get("GITHUB_WEBHOOK_SECRET", "")
        if not secret:
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

        workers = _int(env, "CODEBIAS_WORKERS", 2, problems)
        retries = env.get("CODEBIAS_RETRY_INTERVALS", "10,30,60")
        try:
            intervals = tuple(int(x) for x in retries.split(",") if x.strip())
        except ValueError:
            problems.append(
                f"CODEBIAS_RETRY_INTERVALS must be comma-separated seconds, not {retries!r}"
            )
            intervals = ()

        if problems:
            raise SettingsError("cannot start:\n  - " + "\n  - ".join(problems))
        return cls(
            app_id=app_id,
            private_key=private_key,
            webhook_secret=secret.encode(),
            api_url=api_url.rstrip("/"),
            redis_url=redis_url,
            workers=max(1, workers),
            check_name=env.get("CODEBIAS_CHECK_NAME", "codebias") or "codebias",
            retry_intervals=intervals,
        )


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


def _int(env: Mapping[str, str], name: str, default: int, problems: list[str]) -> int:
    raw = env.get(name, "")
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        problems.append(f"{name} must be an integer, not {raw!r}")
        return default


def settings_for(command: str) -> Settings | None:
    """Logging set up and settings read for a service command; None, after saying why on
    stderr, when a required setting is missing or wrong."""
    import logging
    import sys

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        return Settings.from_env()
    except SettingsError as exc:
        print(f"codebias {command}: {exc}", file=sys.stderr)
        return None
