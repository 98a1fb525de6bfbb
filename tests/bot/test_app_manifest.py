"""`app.yml` asks for exactly what the service uses."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.events import LOGGED_EVENTS

MANIFEST = Path(__file__).resolve().parents[2] / "app.yml"


def test_manifest_permissions_are_the_documented_ones() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text())
    assert manifest["default_permissions"] == {
        "checks": "write",
        "pull_requests": "write",
        "contents": "read",
        "metadata": "read",
        "issues": "write",
    }


def test_manifest_subscribes_to_every_event_the_service_acts_on() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text())
    assert set(manifest["default_events"]) == {
        "pull_request",
        "check_run",
        "check_suite",
        "issue_comment",
    }
    # Installation events reach every App without a subscription; the service logs them.
    assert LOGGED_EVENTS == {"installation", "installation_repositories"}
    assert manifest["hook_attributes"]["url"].endswith("/webhook")
