"""`codebias serve` under uvicorn on loopback against what an unauthenticated client can do
(issue 25, item 4).

Before: bodies were buffered whole before the signature was checked, any number at once, and
nothing timed a request out: 40 unsigned connections of 24 MB each held the service at
1.13 GB, and a client sending one byte every few seconds held its connection for minutes.
These run the real service as `codebias serve` runs it and talk raw HTTP to it.
"""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from botsupport import SECRET, codebias_serve, env_for
from fakegithub import FakeGitHub
from scenario import signed

from bot.intake import DEFAULT_LIMITS
from bot.serving import BODY_SECONDS, HEAD_SECONDS

MB = 1024 * 1024


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    port: int

    def memory_kb(self, field_name: str) -> int:
        """VmRSS (now) or VmHWM (the peak) of the service, in kB."""
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1])
        raise AssertionError(f"no {field_name} for {self.proc.pid}")

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=30)


@pytest.fixture
def served(github: FakeGitHub, app_keys: tuple[str, str]) -> Iterator[Served]:
    with codebias_serve(env_for(github, app_keys[0])) as (proc, port):
        yield Served(proc, port)


def head(length: int | None, signature: str = "sha256=" + "0" * 64) -> bytes:
    lines = [
        "POST /webhook HTTP/1.1",
        "Host: 127.0.0.1",
        "X-GitHub-Event: ping",
        "X-GitHub-Delivery: d",
        f"X-Hub-Signature-256: {signature}",
        "Content-Type: application/json",
    ]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@dataclass
class Outcome:
    answer: bytes = b""
    closed_after: float | None = None  # seconds from the first byte sent
    errors: list[str] = field(default_factory=list)


def read_answer(sock: socket.socket, outcome: Outcome, started: float) -> None:
    """What the service said, until it closed the connection (or 30 s passed)."""
    sock.settimeout(0.5)
    while time.monotonic() - started < 30:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        except OSError as exc:
            outcome.errors.append(repr(exc))
            break
        if not data:
            break
        outcome.answer += data
    outcome.closed_after = time.monotonic() - started


def unsigned_big_body(served: Served, outcome: Outcome, hold: threading.Event) -> None:
    """24 MB but its last byte, unsigned; then wait (the service cannot check it yet)."""
    size = 24 * MB
    chunk = b"x" * MB
    with served.connect() as sock:
        started = time.monotonic()
        try:
            sock.sendall(head(size))
            for _ in range(23):
                sock.sendall(chunk)
            sock.sendall(chunk[:-1])
        except OSError as exc:  # refused at once: the service closed the connection
            outcome.errors.append(repr(exc))
        hold.wait(60)
        read_answer(sock, outcome, started)


def test_forty_unsigned_24_mb_bodies_hold_little_memory(served: Served) -> None:
    before = served.memory_kb("VmRSS")
    outcomes = [Outcome() for _ in range(40)]
    hold = threading.Event()
    threads = [threading.Thread(target=unsigned_big_body, args=(served, o, hold)) for o in outcomes]
    for t in threads:
        t.start()
    time.sleep(8)  # every client has sent what it can, or been refused
    peak = served.memory_kb("VmHWM")
    hold.set()
    for t in threads:
        t.join(60)
    grown_mb = (peak - before) / 1024
    assert grown_mb < 150, f"the service grew by {grown_mb:.0f} MB"
    # As many as may be read at once were read, and answered 408 when their last byte never
    # came; the others were refused at once, unread.
    places = DEFAULT_LIMITS.unverified_bodies
    answers = [o.answer[:12] for o in outcomes]
    assert answers.count(b"HTTP/1.1 408") == places, answers
    assert answers.count(b"HTTP/1.1 503") == 40 - places, answers
    # A signed delivery of a few MB is still read, verified and answered.
    body, headers = signed("ping", {"zen": "x" * (3 * MB), "hook_id": 1}, SECRET)
    url = f"http://127.0.0.1:{served.port}/webhook"
    assert httpx.post(url, content=body, headers=headers, timeout=30).status_code == 200


def slow_client(served: Served, outcome: Outcome, opening: bytes, drip: bytes) -> None:
    """Send `opening`, then one byte of `drip` a second, until the service hangs up."""
    with served.connect() as sock:
        started = time.monotonic()
        sock.sendall(opening)
        sock.settimeout(0.5)
        for byte in drip:
            try:
                data = sock.recv(65536)
            except TimeoutError:
                data = None
            except OSError as exc:
                outcome.errors.append(repr(exc))
                break
            if data == b"":
                break
            outcome.answer += data or b""
            if time.monotonic() - started > 30:
                break
            try:
                sock.sendall(bytes([byte]))
            except OSError as exc:
                outcome.errors.append(repr(exc))
                break
            time.sleep(0.5)
        outcome.closed_after = time.monotonic() - started


def test_slow_headers_and_slow_bodies_are_cut_off(served: Served) -> None:
    idle, slow_head, slow_body, unread = Outcome(), Outcome(), Outcome(), Outcome()
    # A body the application answers without reading: only the protocol's deadline ends it.
    health = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n"
    clients = [
        (slow_head, b"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Padding: " + b"a" * 80),
        (slow_body, head(1000), b"x" * 1000),
        (unread, health, b"x" * 1000),
    ]
    threads = [
        threading.Thread(target=slow_client, args=(served, o, opening, drip))
        for o, opening, drip in clients
    ]
    for t in threads:
        t.start()
    # The idle client sends nothing: it only waits for the service to hang up.
    with served.connect() as sock:
        read_answer(sock, idle, time.monotonic())
    for t in threads:
        t.join(60)
    for name, outcome, limit in [
        ("idle", idle, HEAD_SECONDS),
        ("slow head", slow_head, HEAD_SECONDS),
        ("slow body", slow_body, DEFAULT_LIMITS.body_seconds),
        ("unread body", unread, BODY_SECONDS),
    ]:
        assert outcome.closed_after is not None, name
        assert limit - 1 < outcome.closed_after < limit + 5, (name, outcome)
    assert slow_body.answer.startswith(b"HTTP/1.1 408"), slow_body.answer[:100]
    assert unread.answer.startswith(b"HTTP/1.1 200"), unread.answer[:100]


def test_a_declared_oversize_body_is_refused_before_it_is_sent(served: Served) -> None:
    outcome = Outcome()
    with served.connect() as sock:
        started = time.monotonic()
        sock.sendall(head(26 * MB))
        read_answer(sock, outcome, started)
    assert outcome.answer.startswith(b"HTTP/1.1 413")
    assert outcome.closed_after is not None and outcome.closed_after < 5
