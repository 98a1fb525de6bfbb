"""OpenAI chat completions, and every server that speaks them (vLLM, Ollama, LM Studio)."""

from __future__ import annotations

from typing import Any, cast

import openai

from analysis.mitigation.provider import Completion, Message, ProviderError
from bot.llm.base import SDKErrors, SDKProvider

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIProvider(SDKProvider):
    name = "openai"
    default_base_url = DEFAULT_BASE_URL
    errors = SDKErrors(
        timeout=openai.APITimeoutError,
        connection=openai.APIConnectionError,
        status=openai.APIStatusError,
        other=openai.APIError,
    )

    def connect(self, api_key: str) -> None:
        self._send_temperature = True
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=self.max_retries,
        )

    def complete(self, messages: list[Message], temperature: float) -> Completion:
        with self.translated_errors():
            try:
                response = self._client.chat.completions.create(
                    model=self.model,
                    messages=cast(Any, messages),
                    **self._sampling(temperature),
                )
            except openai.BadRequestError as exc:
                # Reasoning models refuse any temperature but their own: ask again without.
                if not self._send_temperature or "temperature" not in exc.message.lower():
                    raise
                self._send_temperature = False
                response = self._client.chat.completions.create(
                    model=self.model, messages=cast(Any, messages)
                )
        if not response.choices:
            raise ProviderError(self.name, "bad_response", "the answer has no choices")
        choice = response.choices[0]
        text = choice.message.content
        if not text:
            refusal = getattr(choice.message, "refusal", None)
            why = f"refused: {refusal}" if refusal else f"empty answer ({choice.finish_reason})"
            raise ProviderError(self.name, "bad_response", why)
        usage = response.usage
        return Completion(
            text=text,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            model=response.model or self.model,
        )

    def _sampling(self, temperature: float) -> dict[str, Any]:
        return {"temperature": temperature} if self._send_temperature else {}
