"""Routing deliveries (GitHub's example payloads) to reviews, logs or nothing."""

from __future__ import annotations

import pytest
from scenario import comment_event, payload, pull_request_event

from bot.events import Ignored, Logged, MalformedPayload, ReviewRequest, parse_command, route


@pytest.mark.parametrize("action", ["opened", "reopened", "synchronize", "ready_for_review"])
def test_pull_request_actions_that_change_code_are_reviewed(action: str) -> None:
    routed = route("pull_request", pull_request_event(action, 7, "a" * 40, "b" * 40))
    assert isinstance(routed, ReviewRequest)
    assert (routed.owner, routed.repo, routed.number, routed.head_sha) == (
        "octo-org",
        "hiring",
        7,
        "a" * 40,
    )
    assert routed.installation_id == 4242
    assert routed.logical_id == f"octo-org/hiring#7@{'a' * 40}"


def test_closed_pull_request_is_ignored() -> None:
    assert isinstance(route("pull_request", payload("pull_request.closed")), Ignored)


@pytest.mark.parametrize("event", ["check_run", "check_suite"])
def test_rerequested_checks_rerun_the_review_of_their_pull_request(event: str) -> None:
    data = payload(f"{event}.rerequested")
    data[event]["pull_requests"] = [{"number": 3, "head": {"sha": data[event]["head_sha"]}}]
    routed = route(event, data)
    assert isinstance(routed, ReviewRequest)
    assert routed.number == 3 and routed.head_sha == data[event]["head_sha"]


def test_rerequested_check_without_pull_request_is_ignored() -> None:
    data = payload("check_run.rerequested")
    assert data["check_run"]["pull_requests"] == []
    assert isinstance(route("check_run", data), Ignored)


def test_installation_events_are_logged() -> None:
    routed = route("installation", payload("installation.created"))
    assert isinstance(routed, Logged) and "installation.created" in routed.message


def test_comment_on_plain_issue_is_ignored() -> None:
    assert isinstance(route("issue_comment", payload("issue_comment.created")), Ignored)


@pytest.mark.parametrize(
    "body,command,target",
    [
        ("/codebias recheck", "recheck", None),
        ("Looks odd.\n/codebias recheck\nthanks", "recheck", None),
        ("/codebias fix", "fix", None),
        ("/codebias fix salary_offer", "fix", "salary_offer"),
        ("/codebias fix Screener.assess", "fix", "Screener.assess"),
        ("/codebias recheck fail_on=none", "refuse", None),
        ("/codebias recheck --config other.yml", "refuse", None),
        ("/codebias fix allow: age", "refuse", None),
        ("/codebias disable", "refuse", None),
        ("/codebias", "refuse", None),
    ],
)
def test_commands_and_refusals(body: str, command: str, target: str | None) -> None:
    routed = route("issue_comment", comment_event(5, body))
    assert isinstance(routed, ReviewRequest)
    assert (routed.command, routed.target, routed.commenter) == (command, target, "maintainer")
    assert routed.head_sha is None and routed.logical_id.endswith(f"@comment-{routed.comment_id}")
    if command == "refuse":
        assert routed.reason


def test_settings_in_a_command_are_refused_with_a_reason() -> None:
    parsed = parse_command("/codebias recheck fail_on=none")
    assert parsed is not None and parsed[0] == "refuse" and ".codebias.yml" in (parsed[2] or "")


@pytest.mark.parametrize(
    "body", ["no command here", "please run codebias recheck", "`/codebias` is a bot"]
)
def test_comments_without_a_command_are_ignored(body: str) -> None:
    assert isinstance(route("issue_comment", comment_event(5, body)), Ignored)


def test_comments_by_bots_are_not_commands() -> None:
    assert isinstance(
        route("issue_comment", comment_event(5, "/codebias recheck", "ci[bot]", "Bot")), Ignored
    )


def test_payload_missing_required_fields_is_malformed() -> None:
    with pytest.raises(MalformedPayload):
        route("pull_request", {"action": "opened", "pull_request": {"number": 1}})


def test_request_round_trips_through_a_dict() -> None:
    routed = route("pull_request", pull_request_event("opened", 7, "a" * 40, "b" * 40))
    assert isinstance(routed, ReviewRequest)
    assert ReviewRequest.from_dict(routed.to_dict()) == routed
