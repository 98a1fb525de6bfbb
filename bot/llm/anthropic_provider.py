"""Anthropic messages API (or any server that speaks it, through ANTHROPIC_BASE_URL)."""

from __future__ import annotations

from typing import Any, cast

import anthropic

from analysis.mitigation.provider import Completion, Message, ProviderError
from bot.llm.base import SDKErrors, SDKProvider

DEFAULT_BASE_URL = "https://api.anthropic.com"
MAX_TOKENS = 4096  # a rewritten function plus its reasoning fits comfortably


class AnthropicProvider(SDKProvider):
    name = "anthropic"
    default_base_url = DEFAULT_BASE_URL
    errors = SDKErrors(
        timeout=anthropic.APITimeoutError,
        connection=anthropic.APIConnectionError,
        status=anthropic.APIStatusError,
        other=anthropic.APIError,
    )

    def connect(self, api_key: str) -> None:
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=self.max_retries,
        )

    def complete(self, messages: list[Message], temperature: float) -> Completion:
        # The messages API takes the system prompt apart from the turns.
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [
            {"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"
        ]
        extra: dict[str, Any] = {"system": system} if system else {}
        # `temperature` is not sent: the messages API of the SDK we run (anthropic 2.x) no longer
        # takes it, and the model's default sampling serves a code fix well.
        del temperature
        with self.translated_errors():
            response = self._client.messages.create(
                model=self.model,
                max_tokens=MAX_TOKENS,
                messages=cast(Any, turns),
                **extra,
            )
        text = "".join(
            getattr(block, "text", "") for block in response.content if block.type == "text"
        )
        if not text:
            raise ProviderError(
                self.name, "bad_response", f"no text in the answer ({response.stop_reason})"
            )
        return Completion(
            text=text,
            prompt_tokens=response.usage.input_tokens,
            completion_tokens=response.usage.output_tokens,
            model=response.model or self.model,
        )
