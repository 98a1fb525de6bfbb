"""Fixtures for the bot: a real Redis per session, a fake GitHub REST server per test, an App
key pair, and settings pointing the bot at both."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from botsupport import APP_ID, app_key_pair, env_for, start_redis
from fakegithub import FakeGitHub
from redis import Redis

from bot.settings import Settings


@pytest.fixture(scope="session")
def app_keys() -> tuple[str, str]:
    return app_key_pair()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = start_redis(tmp_path_factory.mktemp("redis"))
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    client = Redis.from_url(redis_server)
    client.flushall()
    client.close()
    yield redis_server


@pytest.fixture
def github(app_keys: tuple[str, str]) -> Iterator[FakeGitHub]:
    fake = FakeGitHub(public_key=app_keys[1], app_id=APP_ID).start()
    yield fake
    fake.stop()


@pytest.fixture
def embedded_settings(github: FakeGitHub, app_keys: tuple[str, str]) -> Settings:
    return Settings.from_env(env_for(github, app_keys[0]))
