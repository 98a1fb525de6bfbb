"""The real OpenAI and Anthropic SDK clients against scripted servers on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import pytest

from analysis.mitigation import Message
from bot.llm import (
    DEFAULT_MODELS,
    LLMConfigError,
    ProviderError,
    enable_hint,
    provider_from_env,
    provider_settings,
)
from config.policy import build_policy, default_policy

CONVERSATION: list[Message] = [
    {"role": "system", "content": "You fix code."},
    {"role": "user", "content": "Fix this."},
]


def test_answer_text_and_token_counts_come_back(llm_server: Any, server_env: Any) -> None:
    llm_server.answer("def f():\n    return 1\n", prompt_tokens=321, completion_tokens=45)
    provider = provider_from_env(default_policy(), server_env(llm_server))
    assert provider is not None and provider.name == llm_server.wire
    completion = provider.complete(CONVERSATION, 0.2)
    assert completion.text == "def f():\n    return 1\n"
    assert (completion.prompt_tokens, completion.completion_tokens) == (321, 45)
    assert llm_server.requests[0]["model"] == "test-model"


def test_openai_wire_carries_system_message_and_temperature(
    openai_server: Any, server_env: Any
) -> None:
    openai_server.answer("ok")
    provider = provider_from_env(default_policy(), server_env(openai_server))
    assert provider is not None
    provider.complete(CONVERSATION, 0.3)
    sent = openai_server.requests[0]
    assert sent["messages"][0] == {"role": "system", "content": "You fix code."}
    assert sent["temperature"] == 0.3
    assert openai_server.headers[0]["authorization"] == "Bearer test-key"


def test_anthropic_wire_moves_system_prompt_out_of_the_turns(
    anthropic_server: Any, server_env: Any
) -> None:
    anthropic_server.answer("ok")
    provider = provider_from_env(default_policy(), server_env(anthropic_server))
    assert provider is not None
    provider.complete(CONVERSATION, 0.3)
    sent = anthropic_server.requests[0]
    assert sent["system"] == "You fix code."
    assert [m["role"] for m in sent["messages"]] == ["user"]
    assert sent["max_tokens"] > 0
    headers = anthropic_server.headers[0]
    # Older SDKs send the key as x-api-key, newer ones as a bearer token.
    assert "test-key" in (headers.get("x-api-key"), headers.get("authorization", "")[7:])


def test_server_errors_are_retried_until_an_answer_comes(llm_server: Any, server_env: Any) -> None:
    llm_server.fail(500, times=2)
    llm_server.answer("fine at last")
    provider = provider_from_env(default_policy(), server_env(llm_server))
    assert provider is not None
    assert provider.complete(CONVERSATION, 0.2).text == "fine at last"
    assert len(llm_server.requests) == 3


@pytest.mark.parametrize(
    ("status", "kind"),
    [(500, "server_error"), (503, "server_error"), (429, "rate_limited")],
)
def test_persistent_outage_raises_provider_error_after_retries(
    llm_server: Any, server_env: Any, status: int, kind: str
) -> None:
    llm_server.fail(status, times=3)
    provider = provider_from_env(default_policy(), server_env(llm_server))
    assert provider is not None
    with pytest.raises(ProviderError) as caught:
        provider.complete(CONVERSATION, 0.2)
    assert caught.value.kind == kind
    assert caught.value.status == status
    assert "after 2 retries" in str(caught.value)
    assert len(llm_server.requests) == 3  # the first try and two retries


def test_bad_key_is_reported_without_retrying(llm_server: Any, server_env: Any) -> None:
    llm_server.fail(401, message="invalid x-api-key")
    provider = provider_from_env(default_policy(), server_env(llm_server))
    assert provider is not None
    with pytest.raises(ProviderError) as caught:
        provider.complete(CONVERSATION, 0.2)
    assert caught.value.kind == "auth"
    assert len(llm_server.requests) == 1


def test_slow_server_times_out_with_a_clear_error(llm_server: Any, server_env: Any) -> None:
    llm_server.hang(10, times=2)
    env = server_env(llm_server, CODEBIAS_LLM_TIMEOUT="0.3", CODEBIAS_LLM_MAX_RETRIES="1")
    provider = provider_from_env(default_policy(), env)
    assert provider is not None
    with pytest.raises(ProviderError) as caught:
        provider.complete(CONVERSATION, 0.2)
    assert caught.value.kind == "timeout"
    assert "0.3s" in str(caught.value)


def test_unreachable_server_is_a_connection_error(server_env: Any) -> None:
    env = {
        "OPENAI_API_KEY": "k",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",  # discard port: nothing listens
        "CODEBIAS_LLM_MAX_RETRIES": "0",
    }
    provider = provider_from_env(default_policy(), env)
    assert provider is not None
    with pytest.raises(ProviderError) as caught:
        provider.complete(CONVERSATION, 0.2)
    assert caught.value.kind == "connection"


# --- which provider ---------------------------------------------------------------------------

SELECTION = [
    ("no keys", {}, {}, None),
    ("openai key", {}, {"OPENAI_API_KEY": "k"}, ("openai", DEFAULT_MODELS["openai"])),
    ("anthropic key", {}, {"ANTHROPIC_API_KEY": "k"}, ("anthropic", DEFAULT_MODELS["anthropic"])),
    (
        "both keys: openai first",
        {},
        {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"},
        ("openai", DEFAULT_MODELS["openai"]),
    ),
    (
        "local server without key",
        {},
        {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"},
        ("openai", DEFAULT_MODELS["openai"]),
    ),
    (
        "policy picks anthropic",
        {"provider": "anthropic"},
        {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"},
        ("anthropic", DEFAULT_MODELS["anthropic"]),
    ),
    ("policy provider without its key", {"provider": "anthropic"}, {"OPENAI_API_KEY": "k"}, None),
    ("policy switches fixes off", {"enabled": False}, {"OPENAI_API_KEY": "k"}, None),
    ("policy model", {"model": "gpt-x"}, {"OPENAI_API_KEY": "k"}, ("openai", "gpt-x")),
    (
        "environment model wins",
        {"model": "gpt-x"},
        {"OPENAI_API_KEY": "k", "CODEBIAS_LLM_MODEL": "local-7b"},
        ("openai", "local-7b"),
    ),
    ("empty key is no key", {}, {"OPENAI_API_KEY": " "}, None),
]


@pytest.mark.parametrize(
    ("mitigation", "env", "expected"),
    [case[1:] for case in SELECTION],
    ids=[case[0] for case in SELECTION],
)
def test_provider_selection(
    mitigation: dict[str, Any], env: dict[str, str], expected: tuple[str, str] | None
) -> None:
    policy = build_policy([{"mitigation": mitigation}])
    settings = provider_settings(policy, env)
    if expected is None:
        assert settings is None
        assert provider_from_env(policy, env) is None
    else:
        assert settings is not None
        assert (settings.name, settings.model) == expected


def test_provider_settings_default_to_sdk_retries_and_a_timeout() -> None:
    settings = provider_settings(default_policy(), {"OPENAI_API_KEY": "k"})
    assert settings is not None
    assert settings.max_retries >= 1 and settings.timeout > 0


def test_unusable_timeout_is_a_configuration_error() -> None:
    with pytest.raises(LLMConfigError, match="CODEBIAS_LLM_TIMEOUT"):
        provider_settings(default_policy(), {"OPENAI_API_KEY": "k", "CODEBIAS_LLM_TIMEOUT": "soon"})


@pytest.mark.parametrize(
    ("mitigation", "says"),
    [
        ({}, "OPENAI_API_KEY"),
        ({}, "ANTHROPIC_API_KEY"),
        ({"provider": "anthropic"}, "asks for anthropic"),
        ({"enabled": False}, "switched off"),
    ],
)
def test_enable_hint_says_how_to_get_fixes(mitigation: dict[str, Any], says: str) -> None:
    assert says in enable_hint(build_policy([{"mitigation": mitigation}]), {})


def test_model_that_refuses_a_temperature_is_asked_again_without(
    openai_server: Any, server_env: Any
) -> None:
    openai_server.fail(400, message="Unsupported value: 'temperature' does not support 0.2")
    openai_server.answer("first")
    openai_server.answer("second")
    provider = provider_from_env(default_policy(), server_env(openai_server))
    assert provider is not None
    assert provider.complete(CONVERSATION, 0.2).text == "first"
    assert provider.complete(CONVERSATION, 0.2).text == "second"
    sent = openai_server.requests
    assert "temperature" in sent[0]
    assert "temperature" not in sent[1] and "temperature" not in sent[2]  # remembered
