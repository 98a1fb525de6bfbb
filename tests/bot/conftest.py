"""Fixtures for the bot: a real Redis per session, a fake GitHub REST server per test, an App
key pair, and settings pointing the bot at both."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from botsupport import APP_ID, env_for, free_port
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fakegithub import FakeGitHub
from redis import Redis

from bot.settings import Settings


@pytest.fixture(scope="session")
def app_keys() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed (scripts/install installs it)")
    port = free_port()
    workdir: Path = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = Redis.from_url(url)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except Exception:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.05)
    client.close()
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
