"""Settings come from the environment once, and refuse to start when incomplete."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import DEFAULT_API_URL, Settings, SettingsError


def env(private_key: str, **extra: str) -> dict[str, str]:
    return {
        "GITHUB_APP_ID": "12",
        "GITHUB_PRIVATE_KEY": private_key,
        "GITHUB_WEBHOOK_SECRET": "s",
        **extra,
    }


def test_complete_environment_gives_embedded_settings(app_keys: tuple[str, str]) -> None:
    settings = Settings.from_env(env(app_keys[0]))
    assert (
        settings.embedded
        and settings.api_url == DEFAULT_API_URL
        and settings.webhook_secret == b"s"
    )


def test_redis_url_selects_rq_mode(app_keys: tuple[str, str]) -> None:
    settings = Settings.from_env(env(app_keys[0], REDIS_URL="redis://localhost:6379/0"))
    assert not settings.embedded and settings.redis_url == "redis://localhost:6379/0"


def test_private_key_can_come_from_a_file(app_keys: tuple[str, str], tmp_path: Path) -> None:
    key = tmp_path / "app.pem"
    key.write_text(app_keys[0])
    values = env("", GITHUB_PRIVATE_KEY_PATH=str(key))
    del values["GITHUB_PRIVATE_KEY"]
    assert Settings.from_env(values).private_key == app_keys[0]


def test_flattened_newlines_in_the_key_are_restored(app_keys: tuple[str, str]) -> None:
    flat = app_keys[0].replace("\n", "\\n")
    assert Settings.from_env(env(flat)).private_key == app_keys[0]


@pytest.mark.parametrize(
    "change,message",
    [
        ({"GITHUB_WEBHOOK_SECRET": ""}, "GITHUB_WEBHOOK_SECRET is not set"),
        ({"GITHUB_APP_ID": ""}, "GITHUB_APP_ID is not set"),
        ({"GITHUB_APP_ID": "abc"}, "must be a number"),
        ({"GITHUB_PRIVATE_KEY": ""}, "GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH must be set"),
        ({"GITHUB_PRIVATE_KEY": "not a key"}, "not a PEM private key"),
        (
            {"GITHUB_PRIVATE_KEY": "", "GITHUB_PRIVATE_KEY_PATH": "/nonexistent/key.pem"},
            "cannot be read",
        ),
        ({"GITHUB_API_URL": "api.github.com"}, "must be an http(s) URL"),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL must be"),
    ],
)
def test_bad_environment_refuses_to_start_with_a_clear_message(
    app_keys: tuple[str, str], change: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError, match="cannot start") as info:
        Settings.from_env(env(app_keys[0]) | change)
    assert message in str(info.value)


def test_every_problem_is_named_at_once() -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_env({})
    text = str(info.value)
    assert (
        "GITHUB_APP_ID" in text and "GITHUB_PRIVATE_KEY" in text and "GITHUB_WEBHOOK_SECRET" in text
    )


def test_serve_exits_2_without_a_secret(
    app_keys: tuple[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    for name, value in env(app_keys[0], GITHUB_WEBHOOK_SECRET="").items():
        monkeypatch.setenv(name, value)
    assert main(["serve", "--port", "0"]) == 2
    assert "refusing to accept unsigned webhooks" in capsys.readouterr().err


def test_worker_exits_2_without_redis(
    app_keys: tuple[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    for name, value in env(app_keys[0]).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(["worker", "--burst"]) == 2
    assert "REDIS_URL is not set" in capsys.readouterr().err
