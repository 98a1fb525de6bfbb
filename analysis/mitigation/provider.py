"""What the mitigation loop needs from a language model, and nothing more.

The engine stays free of SDKs: it talks to any object with a `complete` method. The
implementations (OpenAI, Anthropic, OpenAI-compatible servers) live in `bot.llm`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, TypedDict

from analysis.errors import CodebiasError

Role = Literal["system", "user", "assistant"]


class Message(TypedDict):
    role: Role
    content: str


@dataclass(frozen=True)
class Completion:
    """One answer and what it cost. Token counts are 0 when the server did not say."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None


class Provider(Protocol):
    name: str
    model: str

    def complete(self, messages: list[Message], temperature: float) -> Completion:
        """Answer the conversation; raise ProviderError when no answer can be had."""
        ...


ErrorKind = Literal[
    "timeout", "rate_limited", "server_error", "connection", "auth", "rejected", "bad_response"
]


class ProviderError(CodebiasError):
    """The language model could not answer (after the client's own retries)."""

    def __init__(
        self, provider: str, kind: ErrorKind, detail: str, status: int | None = None
    ) -> None:
        where = f"{provider} ({status})" if status is not None else provider
        super().__init__(f"{where}: {kind.replace('_', ' ')}: {detail}")
        self.provider = provider
        self.kind = kind
        self.detail = detail
        self.status = status
