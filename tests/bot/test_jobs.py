"""The review job against the fake GitHub server: policy, drafts, commands, caching, skips."""

from __future__ import annotations

from typing import Any

import pytest
from fakegithub import FakeGitHub
from markdown_it import MarkdownIt
from scenario import BASE, HEAD, PATH, REPO, post_comment, set_pull

from bot.events import ReviewRequest, route
from bot.jobs import JobContext
from bot.settings import Settings

pytestmark = pytest.mark.sandbox


def request_for(event: dict[str, Any]) -> ReviewRequest:
    routed = route("pull_request", event)
    assert isinstance(routed, ReviewRequest)
    return routed


@pytest.fixture
def context(embedded_settings: Settings) -> JobContext:
    return JobContext.build(embedded_settings)


def summary(github: FakeGitHub) -> str:
    return str(github.repo(REPO).check_runs[-1]["output"]["summary"])


def test_invalid_policy_is_reported_as_a_neutral_check_run(
    github: FakeGitHub, context: JobContext
) -> None:
    github.repo(REPO).files[("main", ".codebias.yml")] = "fail_on: sometimes\n"
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    assert context.run(request_for(event)).startswith("invalid policy")
    (run,) = github.repo(REPO).check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "neutral")
    assert "fail_on" in run["output"]["summary"] and ".codebias.yml" in run["output"]["summary"]
    assert github.repo(REPO).reviews == []


def alias_bomb() -> str:
    """Nine levels of nested aliases: 9^9 strings once expanded (as the fingerprint used to)."""
    levels = ["  - &l0 [" + ",".join(["lol"] * 9) + "]"]
    levels += [f"  - &l{n} [" + ",".join([f"*l{n - 1}"] * 9) + "]" for n in range(1, 9)]
    return "protected:\n age:\n  values:\n" + "\n".join(levels) + "\n"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (alias_bomb(), "aliases"),
        # Served as bytes: GitHub's contents API returns whatever the file holds.
        ("fail_on: none # \u00e9\n".encode("latin-1"), "utf-8"),
    ],
    ids=["alias-bomb", "latin-1"],
)
def test_hostile_policy_file_is_an_invalid_policy_at_once(
    github: FakeGitHub, context: JobContext, content: str | bytes, said: str
) -> None:
    """Issue 11: a bomb was expanded by the policy fingerprint; a latin-1 file made the job
    fail (UnreadableFile) without any check. Both are now a neutral check saying why."""
    github.repo(REPO).files[("main", ".codebias.yml")] = content
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    assert context.run(request_for(event)).startswith("invalid policy")
    (run,) = github.repo(REPO).check_runs
    assert run["conclusion"] == "neutral" and said in run["output"]["summary"]


def test_policy_comes_from_the_default_branch_over_the_org(
    github: FakeGitHub, context: JobContext
) -> None:
    github.repo("octo-org/.github").files[("main", ".codebias.yml")] = "fail_on: none\n"
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    # The pull request's own head cannot loosen the policy: only the default branch counts.
    github.repo(REPO).files[(event["pull_request"]["head"]["sha"], ".codebias.yml")] = (
        "fail_on: any\n"
    )
    context.run(request_for(event))
    run = github.repo(REPO).check_runs[-1]
    assert run["conclusion"] == "neutral"  # biased, but the org says fail_on: none
    assert not github.calls("GET", r"/contents/\.codebias\.yml$") or all(
        "ref" not in r.query for r in github.calls("GET", r"/contents/\.codebias\.yml$")
    )


def test_drafts_are_skipped_unless_the_policy_reviews_them(
    github: FakeGitHub, context: JobContext
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)}, draft=True)
    assert context.run(request_for(event)).startswith("draft")
    assert github.repo(REPO).check_runs == []
    github.repo(REPO).files[("main", ".codebias.yml")] = "review_drafts: true\n"
    context.run(request_for(event))
    assert github.repo(REPO).check_runs[-1]["status"] == "completed"


def test_superseded_head_is_not_reviewed(github: FakeGitHub, context: JobContext) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    event["pull_request"]["head"]["sha"] = "0" * 40
    assert context.run(request_for(event)).startswith("superseded")
    assert github.repo(REPO).check_runs == []


@pytest.mark.parametrize(
    "body,permission,expect",
    [
        ("/codebias recheck", "read", "needs write access"),
        ("/codebias recheck", None, "needs write access"),
        ("/codebias recheck fail_on=none", "admin", "settings cannot be changed"),
    ],
)
def test_commands_that_are_refused_get_an_answer(
    github: FakeGitHub,
    context: JobContext,
    monkeypatch: pytest.MonkeyPatch,
    body: str,
    permission: str | None,
    expect: str,
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        context.env.pop(name, None)  # type: ignore[attr-defined]
    set_pull(github, 7, {PATH: (BASE, HEAD)})
    if permission:
        github.repo(REPO).permissions["maintainer"] = permission
    routed = route("issue_comment", post_comment(github, 7, body))
    assert isinstance(routed, ReviewRequest)
    context.run(routed)
    (reply,) = [c for c in github.repo(REPO).issue_comments if c["user"]["type"] == "Bot"]
    assert expect in reply["body"] and reply["body"].startswith("@maintainer")
    assert github.repo(REPO).check_runs == []


def test_recheck_by_a_writer_reviews_the_current_head(
    github: FakeGitHub, context: JobContext
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    github.repo(REPO).permissions["maintainer"] = "write"
    routed = route("issue_comment", post_comment(github, 7, "/codebias recheck"))
    assert isinstance(routed, ReviewRequest)
    context.run(routed)
    run = github.repo(REPO).check_runs[-1]
    assert run["head_sha"] == event["pull_request"]["head"]["sha"] and run["status"] == "completed"


def test_unchanged_functions_come_from_the_results_cache(
    github: FakeGitHub, context: JobContext
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    context.run(request_for(event))
    assert "reused from an earlier run" not in summary(github)
    context.run(request_for(event))
    assert "3 unchanged function(s) reused from an earlier run" in summary(github)
    assert github.repo(REPO).check_runs[-1]["conclusion"] == "failure"


@pytest.mark.parametrize(
    "fail_on,conclusion", [("new", "neutral"), ("any", "failure"), ("none", "neutral")]
)
def test_fail_on_decides_the_conclusion_for_pre_existing_bias(
    github: FakeGitHub, context: JobContext, fail_on: str, conclusion: str
) -> None:
    biased_base = BASE.replace(
        "    return base\n",
        '    if candidate["gender"] == "male":\n        base += 5000\n    return base\n',
    )
    touched = biased_base.replace("base = 50000", "base = 50000  # yearly")
    github.repo(REPO).files[("main", ".codebias.yml")] = f"fail_on: {fail_on}\n"
    event = set_pull(github, 7, {PATH: (biased_base, touched)})
    context.run(request_for(event))
    run = github.repo(REPO).check_runs[-1]
    assert run["conclusion"] == conclusion
    assert "**0** new in this pull request, **1** pre-existing" in run["output"]["summary"]
    assert {a["annotation_level"] for a in run["annotations"]} == {
        "failure" if fail_on == "any" else "warning"
    }


def test_allow_list_and_ignore_comment_are_honoured_and_listed(
    github: FakeGitHub, context: JobContext
) -> None:
    github.repo(REPO).files[("main", ".codebias.yml")] = (
        "allow:\n  - function: eligible_for_training\n    attribute: age\n"
        "    reason: statutory training age limit\n"
    )
    head = HEAD.replace(
        "def salary_offer(candidate):",
        "def salary_offer(candidate):  # codebias: ignore[gender] union pay scale",
    )
    event = set_pull(github, 7, {PATH: (BASE, head)})
    context.run(request_for(event))
    run = github.repo(REPO).check_runs[-1]
    assert run["conclusion"] == "success" and run["annotations"] == []
    assert "statutory training age limit" in run["output"]["summary"]
    assert "union pay scale" in run["output"]["summary"]
    assert github.repo(REPO).reviews == []


def test_removed_and_binary_files_are_skipped_with_a_note_and_files_are_paginated(
    github: FakeGitHub, context: JobContext
) -> None:
    github.page_size_cap = 2  # three files: two pages, followed through the Link header
    event = set_pull(
        github, 7, {PATH: (BASE, HEAD), "hiring/old.py": (BASE, ""), "hiring/blob.py": (BASE, "x")}
    )
    files = github.repo(REPO).pull_files[7]
    files[1]["status"] = "removed"
    del files[2]["patch"]
    context.run(request_for(event))
    text = summary(github)
    assert "`hiring/old.py`: `removed in this pull request`" in text
    assert "`hiring/blob.py`: `no textual diff" in text
    assert len(github.calls("GET", r"/pulls/7/files$")) == 2
    assert github.repo(REPO).check_runs[-1]["conclusion"] == "failure"


def test_installation_token_is_fetched_once_and_reused(
    github: FakeGitHub, context: JobContext
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    context.run(request_for(event))
    context.run(request_for(event))
    assert github.tokens_issued == 1


def test_a_review_that_fails_midway_closes_its_check_run_and_fails_the_job(
    github: FakeGitHub, context: JobContext
) -> None:
    from bot.github_errors import GitHubNotFound

    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    del github.repo(REPO).pull_files[7]  # GitHub answers 404 for the files
    # The pull request is still open at the same head: a real failure, naming its URL.
    with pytest.raises(GitHubNotFound, match=r"GET http://\S+/repos/octo-org/hiring/pulls/7/files"):
        context.run(request_for(event))
    (run,) = github.repo(REPO).check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "neutral")
    assert "could not finish this review" in run["output"]["summary"]


def test_installation_is_looked_up_when_the_delivery_lacks_it(
    github: FakeGitHub, context: JobContext
) -> None:
    event = set_pull(github, 7, {PATH: (BASE, HEAD)})
    del event["installation"]
    request = request_for(event)
    assert request.installation_id is None
    context.run(request)
    assert github.calls("GET", r"/repos/octo-org/hiring/installation$")
    assert github.repo(REPO).check_runs[-1]["status"] == "completed"


def test_an_unknown_command_is_quoted_back_as_literal_text(
    github: FakeGitHub, context: JobContext
) -> None:
    """Issue 25, item 11: the reply echoed the comment inside single backticks, so a backtick
    in it closed the span and the rest (a link, an `@team` mention) was live markdown."""
    set_pull(github, 7, {PATH: (BASE, HEAD)})
    body = "/codebias x` [prize](//evil.example) @octo-org/admins <b>"
    routed = route("issue_comment", post_comment(github, 7, body))
    assert isinstance(routed, ReviewRequest) and routed.command == "refuse"
    context.run(routed)
    reply = github.repo(REPO).issue_comments[-1]["body"]
    tokens = [
        child
        for token in MarkdownIt("commonmark").parse(reply)
        if token.type == "inline"
        for child in token.children or []
    ]
    assert not any(t.type in ("link_open", "html_inline") for t in tokens)
    prose = " ".join(t.content for t in tokens if t.type == "text")
    assert "@octo-org" not in prose and "evil" not in prose
    assert ("code_inline", body.strip()) in [(t.type, t.content) for t in tokens]
