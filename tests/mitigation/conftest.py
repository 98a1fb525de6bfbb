"""Language model servers for the tests: real HTTP on 127.0.0.1, scripted per test.

`openai_server` speaks the OpenAI chat-completions wire format, `anthropic_server` the
Anthropic messages format. A test scripts the replies in order (`answer`, `fail`, `hang`) and
reads back what the client sent (`requests`). A request beyond the script gets a 500 that
says so, which the SDKs report as an outage, so a missing script line shows up in the test.
"""

from __future__ import annotations

import gc
import json
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

# Retries are the SDKs' job; the servers ask them to wait only a few milliseconds, so the tests
# exercise real retries without sleeping through real backoff.
RETRY_HEADERS = {"retry-after-ms": "5"}


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class LLMServer:
    def __init__(self, wire: str) -> None:
        self.wire = wire  # "openai" | "anthropic"
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def root(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """What OPENAI_BASE_URL / ANTHROPIC_BASE_URL should be set to."""
        return self.root + "/v1" if self.wire == "openai" else self.root

    # --- scripting -------------------------------------------------------------------------

    def answer(self, text: str, prompt_tokens: int = 120, completion_tokens: int = 40) -> None:
        if self.wire == "openai":
            body: dict[str, Any] = {
                "id": f"chatcmpl-{len(self.script)}",
                "object": "chat.completion",
                "created": 0,
                "model": "test-model",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            }
        else:
            body = {
                "id": f"msg_{len(self.script)}",
                "type": "message",
                "role": "assistant",
                "model": "test-model",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
            }
        self.script.append(Reply(200, body))

    def fail(self, status: int, times: int = 1, message: str = "scripted failure") -> None:
        for _ in range(times):
            self.script.append(Reply(status, self._error(status, message), 0.0, RETRY_HEADERS))

    def hang(self, seconds: float, times: int = 1) -> None:
        """Answer only after `seconds` (longer than the client's timeout, in the tests)."""
        for _ in range(times):
            self.script.append(Reply(200, {}, seconds))

    # --- reading back ----------------------------------------------------------------------

    def conversation(self, index: int) -> str:
        """Every message text of request `index`, system prompt included, joined."""
        request = self.requests[index]
        texts = [str(request.get("system", ""))]
        for message in request["messages"]:
            content = message["content"]
            if isinstance(content, list):
                texts.extend(str(part.get("text", "")) for part in content)
            else:
                texts.append(str(content))
        return "\n".join(texts)

    def last_user_message(self, index: int) -> str:
        messages = [m for m in self.requests[index]["messages"] if m["role"] == "user"]
        content = messages[-1]["content"]
        return content if isinstance(content, str) else "".join(p["text"] for p in content)

    # --- plumbing --------------------------------------------------------------------------

    def _error(self, status: int, message: str) -> dict[str, Any]:
        kind = "rate_limit_error" if status == 429 else "api_error"
        if self.wire == "openai":
            return {"error": {"message": message, "type": kind, "code": None}}
        return {"type": "error", "error": {"type": kind, "message": message}}

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            if not self.script:
                return Reply(500, self._error(500, "unscripted request"), 0.0, RETRY_HEADERS)
            return self.script.pop(0)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self
        expected = "/v1/chat/completions" if self.wire == "openai" else "/v1/messages"

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                if self.path.split("?")[0] != expected:
                    self._send(Reply(404, {"error": {"message": f"no route {self.path}"}}))
                    return
                reply = server._next(
                    json.loads(raw), {k.lower(): v for k, v in self.headers.items()}
                )
                if reply.delay and server.stopping.wait(reply.delay):
                    return
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                data = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

        return Handler

    def start(self) -> LLMServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture(autouse=True)
def sdk_clients_collected() -> Iterator[None]:
    """The SDK clients a test's providers hold keep their connections to its server open
    until they are collected: collected here, at the end of the test that made them, not at
    a random moment of a later one (where pytest turns the ResourceWarning into an error in
    a test that has nothing to do with it). The product closes its own (bot/jobs.py)."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.fixture
def openai_server() -> Iterator[LLMServer]:
    server = LLMServer("openai").start()
    yield server
    server.stop()


@pytest.fixture
def anthropic_server() -> Iterator[LLMServer]:
    server = LLMServer("anthropic").start()
    yield server
    server.stop()


@pytest.fixture(params=["openai", "anthropic"])
def llm_server(request: pytest.FixtureRequest) -> Iterator[LLMServer]:
    """Each test that takes it runs once per wire format."""
    server = LLMServer(request.param).start()
    yield server
    server.stop()


def env_for(server: LLMServer, **extra: str) -> dict[str, str]:
    """The environment that points the provider selection at `server`."""
    if server.wire == "openai":
        env = {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.base_url}
    else:
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": server.base_url}
    env.update({"CODEBIAS_LLM_MODEL": "test-model", "CODEBIAS_LLM_MAX_RETRIES": "2"})
    env.update(extra)
    return env


@pytest.fixture
def server_env() -> Any:
    return env_for
