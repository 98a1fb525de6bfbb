"""OpenAI chat completions, and every server that speaks them (vLLM, Ollama, LM Studio)."""

from __future__ import annotations

from typing import Any, cast

import openai

from analysis.mitigation.provider import Completion, Message, ProviderError
from bot.llm.base import SDKProvider
from bot.llm.errors import status_error

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIProvider(SDKProvider):
    name = "openai"
    default_base_url = DEFAULT_BASE_URL

    def connect(self, api_key: str) -> None:
        self._send_temperature = True
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=self.max_retries,
        )

    def complete(self, messages: list[Message], temperature: float) -> Completion:
        try:
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
        except openai.APITimeoutError:
            raise ProviderError(
                self.name,
                "timeout",
                f"no answer from {self.base_url} within {self.timeout:g}s "
                f"(after {self.max_retries} retries)",
            ) from None
        except openai.APIConnectionError as exc:
            raise ProviderError(
                self.name, "connection", f"cannot reach {self.base_url}: {exc.message}"
            ) from None
        except openai.APIStatusError as exc:
            raise status_error(self.name, exc.status_code, exc.message, self.max_retries) from None
        except openai.APIError as exc:
            raise ProviderError(self.name, "bad_response", exc.message) from None
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
