"""What is logged of a provider's failure keeps no credentials (bot/redact.py)."""

from __future__ import annotations

import pytest

from bot.redact import redacted, secrets_in


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "cannot reach http://user:pa55@llm.internal:8000/v1: refused",
            "cannot reach http://***@llm.internal:8000/v1: refused",
        ),
        (
            "no answer from https://x.openai.azure.com/openai?api-key=abc123&v=1 in 60s",
            "no answer from https://x.openai.azure.com/openai?*** in 60s",
        ),
        ("Incorrect API key provided: sk-live-0123456789.", "Incorrect API key provided: ***."),
        ("bad port http://u:p@host:99999/v1", "bad port http://***@host:99999/v1"),
    ],
    ids=["userinfo", "query", "key-in-body", "unparsable"],
)
def test_credentials_are_masked(text: str, shown: str) -> None:
    secrets = secrets_in({"OPENAI_API_KEY": "sk-live-0123456789", "OPENAI_BASE_URL": "x"})
    assert redacted(text, secrets) == shown


def test_only_credential_variables_are_secrets() -> None:
    env = {"ANTHROPIC_API_KEY": "a-key-value", "GITHUB_TOKEN": "ghs_x1", "CODEBIAS_LLM_MODEL": "m"}
    assert sorted(secrets_in(env)) == ["a-key-value", "ghs_x1"]
