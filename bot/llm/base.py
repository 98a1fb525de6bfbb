"""What every SDK-backed provider holds: model, endpoint, and the SDK's own timeout and retries."""

from __future__ import annotations


class SDKProvider:
    name = "provider"
    default_base_url = ""

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
