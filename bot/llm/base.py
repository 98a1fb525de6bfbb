"""What every SDK-backed provider holds: model, endpoint, the SDK's own timeout and retries, and
one translation of the SDK's errors into `ProviderError` (the OpenAI and Anthropic SDKs share
the shape of their exception tree, so one mapping serves both)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from analysis.mitigation.provider import ProviderError
from bot.llm.errors import status_error


@dataclass(frozen=True)
class SDKErrors:
    """The exception classes of one SDK, most specific first in `translate`."""

    timeout: type[Exception]
    connection: type[Exception]
    status: type[Exception]
    other: type[Exception]


class SDKProvider:
    name = "provider"
    default_base_url = ""
    errors: SDKErrors

    def __init__(
        self,
        model: str,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
    ) -> None:
        self.model = model
        self.base_url = base_url or self.default_base_url
        self.timeout = timeout
        self.max_retries = max_retries
        # The SDKs retry 429/5xx and timeouts with exponential backoff and jitter, honouring
        # Retry-After; the providers only translate what is left when they give up.
        self.connect(api_key)

    def connect(self, api_key: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Close the SDK client's connections (a worker makes a provider per review)."""
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()

    @contextmanager
    def translated_errors(self) -> Iterator[None]:
        """Whatever the SDK raises after its retries comes out as a ProviderError."""
        errors = self.errors
        try:
            yield
        except errors.timeout:
            raise ProviderError(
                self.name,
                "timeout",
                f"no answer from {self.base_url} within {self.timeout:g}s "
                f"(after {self.max_retries} retries)",
            ) from None
        except errors.connection as exc:
            raise ProviderError(
                self.name, "connection", f"cannot reach {self.base_url}: {message(exc)}"
            ) from None
        except errors.status as exc:
            status = int(getattr(exc, "status_code", 0))
            raise status_error(self.name, status, message(exc), self.max_retries) from None
        except errors.other as exc:
            raise ProviderError(self.name, "bad_response", message(exc)) from None


def message(exc: Any) -> str:
    return str(getattr(exc, "message", None) or exc)
