"""Constants and helpers shared by the bot's tests (a plain module: test files import it
directly, which `conftest` cannot be relied on for when several conftest files exist)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fakegithub import FakeGitHub
from redis import Redis
from redis.exceptions import RedisError

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


def app_key_pair() -> tuple[str, str]:
    """A fresh App key: (private PEM for the bot, public PEM for the fake GitHub)."""
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


def redis_command(workdir: Path, port: int, *extra: str) -> list[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (scripts/install installs it)")
    return [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir), *extra]


def start_redis(
    workdir: Path, *extra: str, port: int | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server on loopback (no persistence unless `extra` asks for it), once it answers."""
    port = port or free_port()
    args = redis_command(workdir, port, "--save", "", *(extra or ("--appendonly", "no")))
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = Redis.from_url(url, socket_connect_timeout=1)
    deadline = time.monotonic() + 10
    try:
        while True:
            try:
                client.ping()
                return proc, url
            except RedisError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    proc.kill()
                    raise
                time.sleep(0.05)
    finally:
        client.close()


@contextmanager
def codebias_serve(
    env: dict[str, str], log: Path | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """`codebias serve` on a free loopback port, once /healthz answers: (process, port).
    With `log`, its stderr (the JSON log) goes to that file."""
    port = free_port()
    with open(log if log is not None else os.devnull, "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz")
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.1)
        yield proc, port
    finally:
        proc.terminate()
        proc.wait(timeout=30)
