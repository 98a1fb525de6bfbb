"""How GitHub signs a webhook delivery, written here independently of `bot.webhooks`.

Tests sign their deliveries with this helper, never with the production `sign()`: a test
that signs with the code under test agrees with whatever that code does, so a wrong
algorithm (HMAC-SHA1, a digest of the parsed JSON) would pass the suite and reject every
real delivery. GitHub's rule ("Validating webhook deliveries",
https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries):
the `X-Hub-Signature-256` header is `sha256=` followed by the lowercase hex HMAC-SHA256 of
the raw request body, keyed with the webhook secret.
"""

from __future__ import annotations

import hashlib
import hmac


def github_signature(secret: str | bytes, body: bytes) -> str:
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
