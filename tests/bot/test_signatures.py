"""Webhook signatures against GitHub's published example, not against our own `sign()`.

GitHub's documentation, "Validating webhook deliveries"
(https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries, section
"Testing the webhook payload validation"), gives a secret, a payload and the header GitHub
sends for them. A known answer catches what a self-consistent test cannot: signing with
HMAC-SHA1, hashing the parsed JSON instead of the raw bytes, or an uppercase digest.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator

import pytest
from botsupport import env_for
from fakegithub import FakeGitHub
from signing import github_signature
from starlette.testclient import TestClient

from bot.metrics import MemoryStore, Metrics
from bot.queue import EmbeddedJobQueue
from bot.service import Services, create_app
from bot.settings import Settings
from bot.webhooks import MemoryDeduper, sign, signature_valid

# The documentation's figures, verbatim.
DOC_SECRET = "It's a Secret to Everybody"
DOC_PAYLOAD = b"Hello, World!"
DOC_HEADER = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
# The same payload signed as GitHub's legacy `X-Hub-Signature` header is (HMAC-SHA1).
LEGACY_HEADER = "sha1=" + hmac.new(DOC_SECRET.encode(), DOC_PAYLOAD, hashlib.sha1).hexdigest()


def test_production_sign_gives_the_documented_header() -> None:
    assert sign(DOC_SECRET.encode(), DOC_PAYLOAD) == DOC_HEADER


def test_the_tests_signing_helper_gives_the_documented_header() -> None:
    # The helper every delivery in tests/bot is signed with: wrong here, wrong everywhere.
    assert github_signature(DOC_SECRET, DOC_PAYLOAD) == DOC_HEADER


def test_the_documented_header_is_valid_for_the_documented_payload() -> None:
    assert signature_valid(DOC_SECRET.encode(), DOC_PAYLOAD, DOC_HEADER)


@pytest.mark.parametrize(
    ("label", "header"),
    [
        (
            "sha1 digest under the sha256 prefix",
            "sha256=" + hmac.new(DOC_SECRET.encode(), DOC_PAYLOAD, hashlib.sha1).hexdigest(),
        ),
        ("uppercase digest", "sha256=" + DOC_HEADER.removeprefix("sha256=").upper()),
        ("plain sha256 of the body, no key", "sha256=" + hashlib.sha256(DOC_PAYLOAD).hexdigest()),
        ("digest of another payload", github_signature(DOC_SECRET, b"Hello, World")),
        ("another secret", github_signature("It's a secret to everybody", DOC_PAYLOAD)),
        ("no prefix", DOC_HEADER.removeprefix("sha256=")),
        ("sha1 prefix", "sha1=" + DOC_HEADER.removeprefix("sha256=")),
        # What GitHub's legacy X-Hub-Signature carries: a valid HMAC, of the weaker hash.
        ("sha1 prefix and an HMAC-SHA1 digest", LEGACY_HEADER),
    ],
)
def test_near_misses_of_the_documented_header_are_rejected(label: str, header: str) -> None:
    assert not signature_valid(DOC_SECRET.encode(), DOC_PAYLOAD, header), label


@pytest.fixture
def documented_secret_client(github: FakeGitHub, app_keys: tuple[str, str]) -> Iterator[TestClient]:
    env = {**env_for(github, app_keys[0]), "GITHUB_WEBHOOK_SECRET": DOC_SECRET}
    settings = Settings.from_env(env)
    queue = EmbeddedJobQueue(lambda request: None, workers=1, retry_intervals=())
    services = Services(settings, queue, MemoryDeduper(60), Metrics(MemoryStore()))
    with TestClient(create_app(settings, services)) as client:
        yield client
    queue.close()


def test_the_service_lets_the_documented_delivery_past_the_signature_check(
    documented_secret_client: TestClient,
) -> None:
    headers = {"X-GitHub-Event": "ping", "X-GitHub-Delivery": "doc-example"}
    # "Hello, World!" is not JSON: 400 means the signature passed and the parser refused it.
    answer = documented_secret_client.post(
        "/webhook", content=DOC_PAYLOAD, headers={**headers, "X-Hub-Signature-256": DOC_HEADER}
    )
    assert answer.status_code == 400, answer.text
    sha1 = "sha256=" + hmac.new(DOC_SECRET.encode(), DOC_PAYLOAD, hashlib.sha1).hexdigest()
    refused = documented_secret_client.post(
        "/webhook", content=DOC_PAYLOAD, headers={**headers, "X-Hub-Signature-256": sha1}
    )
    assert refused.status_code == 401


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Hub-Signature-256": LEGACY_HEADER},
        {"X-Hub-Signature": LEGACY_HEADER},
        {"X-Hub-Signature": DOC_HEADER},
    ],
    ids=["sha1 in the sha256 header", "legacy header alone", "sha256 in the legacy header"],
)
def test_the_service_refuses_a_delivery_signed_only_with_hmac_sha1(
    documented_secret_client: TestClient, headers: dict[str, str]
) -> None:
    # GitHub still sends X-Hub-Signature (HMAC-SHA1) beside X-Hub-Signature-256; only the
    # latter is checked, so a body whose only valid signature is SHA-1 never gets through.
    answer = documented_secret_client.post(
        "/webhook",
        content=DOC_PAYLOAD,
        headers={"X-GitHub-Event": "ping", "X-GitHub-Delivery": "legacy", **headers},
    )
    assert answer.status_code == 401, answer.text
