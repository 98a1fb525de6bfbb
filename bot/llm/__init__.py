"""Language model providers behind one small interface (`analysis.mitigation.Provider`).

Which provider, in order:

1. `mitigation.enabled: false` in the policy: none.
2. `mitigation.provider` in the policy (`openai` or `anthropic`): that one, when its key is
   in the environment (for `openai`, an `OPENAI_BASE_URL` alone is enough: local servers such
   as vLLM, Ollama and LM Studio need no key).
3. No provider in the policy: `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) picks OpenAI chat
   completions at `OPENAI_BASE_URL`; otherwise `ANTHROPIC_API_KEY` picks Anthropic (at
   `ANTHROPIC_BASE_URL` when set).

The model is `CODEBIAS_LLM_MODEL`, else the policy's `mitigation.model`, else the provider's
default below. `CODEBIAS_LLM_TIMEOUT` (seconds per request, default 60) and
`CODEBIAS_LLM_MAX_RETRIES` (retries on 429/5xx/timeouts, default 3) tune the client.
Everything is read from the `env` mapping passed in, so that a job never depends on the
process environment by accident.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from analysis.mitigation.provider import Completion, Message, Provider, ProviderError
from bot.llm.errors import LLMConfigError
from config.policy import Policy

__all__ = [
    "DEFAULT_MODELS",
    "Completion",
    "LLMConfigError",
    "Message",
    "Provider",
    "ProviderError",
    "ProviderSettings",
    "enable_hint",
    "provider_from_env",
    "provider_settings",
]

DEFAULT_MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5"}
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 3
# OpenAI-compatible local servers ignore the key, but the SDK insists on one.
LOCAL_SERVER_KEY = "unused"

HOW_TO_ENABLE = (
    "to get fixes, set OPENAI_API_KEY (with OPENAI_BASE_URL for an OpenAI-compatible server) "
    "or ANTHROPIC_API_KEY, or choose one with mitigation.provider in .codebias.yml"
)


@dataclass(frozen=True)
class ProviderSettings:
    name: str  # "openai" | "anthropic"
    model: str
    api_key: str
    base_url: str | None
    timeout: float
    max_retries: int


def provider_settings(policy: Policy, env: Mapping[str, str]) -> ProviderSettings | None:
    """The provider the policy and environment select, or None (see `enable_hint` for why)."""
    if not policy.mitigation.enabled:
        return None
    name = policy.mitigation.provider or _auto_provider(env)
    if name is None:
        return None
    if name == "openai":
        key = _get(env, "OPENAI_API_KEY")
        base_url = _get(env, "OPENAI_BASE_URL")
        if key is None and base_url is None:
            return None
        key = key or LOCAL_SERVER_KEY
    else:
        key = _get(env, "ANTHROPIC_API_KEY")
        base_url = _get(env, "ANTHROPIC_BASE_URL")
        if key is None:
            return None
    model = _get(env, "CODEBIAS_LLM_MODEL") or policy.mitigation.model or DEFAULT_MODELS[name]
    return ProviderSettings(
        name=name,
        model=model,
        api_key=key,
        base_url=base_url,
        timeout=_number(env, "CODEBIAS_LLM_TIMEOUT", DEFAULT_TIMEOUT),
        max_retries=int(_number(env, "CODEBIAS_LLM_MAX_RETRIES", DEFAULT_MAX_RETRIES)),
    )


def provider_from_env(policy: Policy, env: Mapping[str, str] = os.environ) -> Provider | None:
    """The configured provider, ready to use; None when none is configured.

    Raises LLMConfigError for a setting that is present but unusable (a timeout that is no
    number, say)."""
    settings = provider_settings(policy, env)
    if settings is None:
        return None
    return build_provider(settings)


def build_provider(settings: ProviderSettings) -> Provider:
    # The SDKs are imported only when a provider is actually wanted.
    if settings.name == "openai":
        from bot.llm.openai_provider import OpenAIProvider

        return OpenAIProvider(
            settings.model, settings.api_key, settings.base_url, settings.timeout,
            settings.max_retries,
        )
    from bot.llm.anthropic_provider import AnthropicProvider

    return AnthropicProvider(
        settings.model, settings.api_key, settings.base_url, settings.timeout, settings.max_retries
    )


def enable_hint(policy: Policy, env: Mapping[str, str] = os.environ) -> str:
    """Why no provider was selected, and what to do about it."""
    if not policy.mitigation.enabled:
        return "fixes are switched off by the policy (mitigation.enabled: false)"
    wanted = policy.mitigation.provider
    if wanted == "openai":
        return "the policy asks for openai but OPENAI_API_KEY is not set; " + HOW_TO_ENABLE
    if wanted == "anthropic":
        return "the policy asks for anthropic but ANTHROPIC_API_KEY is not set; " + HOW_TO_ENABLE
    return "no LLM provider configured; " + HOW_TO_ENABLE


def _auto_provider(env: Mapping[str, str]) -> str | None:
    if _get(env, "OPENAI_API_KEY") or _get(env, "OPENAI_BASE_URL"):
        return "openai"
    if _get(env, "ANTHROPIC_API_KEY"):
        return "anthropic"
    return None


def _get(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = _get(env, name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise LLMConfigError(f"{name}={raw!r} is not a number") from None
    if value < 0:
        raise LLMConfigError(f"{name}={raw!r} must not be negative")
    return value
