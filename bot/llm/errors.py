"""Errors of the LLM providers.

    CodebiasError
    ├── ProviderError     the model could not answer after the client's retries (kind says why:
    │                     timeout, rate_limited, server_error, connection, auth, rejected,
    │                     bad_response); defined next to the Provider protocol in
    │                     analysis.mitigation so the engine can catch it without importing us
    └── LLMConfigError    a provider setting in the environment that cannot be used
"""

from __future__ import annotations

from analysis.errors import CodebiasError
from analysis.mitigation.provider import ErrorKind, ProviderError

__all__ = ["LLMConfigError", "ProviderError", "status_error"]


class LLMConfigError(CodebiasError):
    pass


def status_error(provider: str, status: int, message: str, retries: int) -> ProviderError:
    """A ProviderError for an HTTP error status the SDK gave up on."""
    kind: ErrorKind
    if status == 429:
        kind = "rate_limited"
    elif status >= 500:
        kind = "server_error"
    elif status in (401, 403):
        kind = "auth"
    else:
        kind = "rejected"
    retried = f" (after {retries} retries)" if kind in ("rate_limited", "server_error") else ""
    return ProviderError(provider, kind, f"{message}{retried}", status=status)
