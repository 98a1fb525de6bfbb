"""Publishing through the real githubkit client against the fake GitHub server."""

from __future__ import annotations

import pydantic
import pytest
from botsupport import APP_ID
from fakegithub import FakeGitHub
from scenario import BASE, HEAD, PATH, REPO, set_pull

from analysis.report import Example, Finding, FunctionReport
from bot.github import GitHubApp, RepoClient
from bot.outcome import FunctionResult, ReviewOutcome, Suggestion
from bot.publish import Placement, Publisher, build_annotations, fingerprint, place
from bot.settings import Settings


@pytest.fixture
def client(github: FakeGitHub, embedded_settings: Settings) -> RepoClient:
    github.repo(REPO)
    owner, name = REPO.split("/")
    return GitHubApp(embedded_settings).repo(owner, name, github.installation_id)


def biased(
    qualname: str = "salary_offer", line: int = 1, end: int = 7, findings: int = 1
) -> FunctionResult:
    report = FunctionReport(
        PATH,
        qualname,
        line,
        end,
        "biased",
        attributes_tested=["gender"],
        findings=[
            Finding(
                "gender",
                "candidate['gender']",
                Example({"candidate": {"gender": "male"}}, ["male", "female"], ["55000", "50000"]),
                line + 4,
            )
            for _ in range(findings)
        ],
    )
    return FunctionResult(report, {"gender"})


def outcome(
    results: list[FunctionResult], commentable: set[int], head: str = "h" * 40
) -> ReviewOutcome:
    return ReviewOutcome(
        "octo-org", "hiring", 7, head, "b" * 40, "new", results, [], {PATH: commentable}
    )


def test_51_annotations_go_out_in_calls_of_at_most_50(
    github: FakeGitHub, client: RepoClient
) -> None:
    result = outcome([biased(findings=51)], set())
    publisher = Publisher(client, "codebias", int(APP_ID))
    check_id = publisher.start_check(result.head_sha, "job")
    publisher.finish_check(check_id, result)
    patches = github.calls("PATCH", r"/check-runs/\d+$")
    assert [len((p.body.get("output") or {}).get("annotations") or []) for p in patches] == [50, 1]
    assert "status" not in patches[0].body and patches[-1].body["status"] == "completed"
    (run,) = github.repo(REPO).check_runs
    assert len(run["annotations"]) == 51 and run["conclusion"] == "failure"


def test_client_side_schema_validation_refuses_51_annotations(
    github: FakeGitHub, client: RepoClient
) -> None:
    annotations = build_annotations(outcome([biased(findings=51)], set()))
    with pytest.raises(pydantic.ValidationError):
        client.update_check_run(
            1, output={"title": "t", "summary": "s", "annotations": annotations}
        )
    assert github.calls("PATCH", "check-runs") == []


def test_comment_outside_the_diff_goes_into_the_review_body(
    github: FakeGitHub, client: RepoClient
) -> None:
    set_pull(github, 7, {PATH: (BASE, HEAD)})
    counts = Publisher(client, "codebias").publish_review(outcome([biased()], commentable={30, 31}))
    assert counts == {"created": 0, "updated": 0, "resolved": 0, "in_body": 1}
    (review,) = github.repo(REPO).reviews
    assert "outside the diff" in review["body"] and "salary_offer" in review["body"]
    assert github.repo(REPO).review_comments == []
    assert all(r.status < 400 for r in github.requests)


def test_a_second_run_on_the_same_head_posts_nothing_new(
    github: FakeGitHub, client: RepoClient
) -> None:
    set_pull(github, 7, {PATH: (BASE, HEAD)})
    publisher = Publisher(client, "codebias")
    first = publisher.publish_review(outcome([biased()], commentable=set(range(1, 8))))
    second = publisher.publish_review(outcome([biased()], commentable=set(range(1, 8))))
    assert first["created"] == 1 and second == {
        "created": 0,
        "updated": 0,
        "resolved": 0,
        "in_body": 0,
    }
    assert len(github.repo(REPO).reviews) == 1 and len(github.repo(REPO).review_comments) == 1


def test_finding_left_standing_when_the_function_could_not_be_verified(
    github: FakeGitHub, client: RepoClient
) -> None:
    set_pull(github, 7, {PATH: (BASE, HEAD)})
    publisher = Publisher(client, "codebias")
    publisher.publish_review(outcome([biased()], commentable=set(range(1, 8))))
    unverified = FunctionResult(
        FunctionReport(PATH, "salary_offer", 1, 7, "unverified", reason="sandbox missing")
    )
    counts = publisher.publish_review(outcome([unverified], set(range(1, 8)), head="i" * 40))
    assert counts["resolved"] == 0
    assert "Resolved" not in github.repo(REPO).review_comments[0]["body"]


def test_a_human_quoting_a_fingerprint_does_not_steer_the_bot(
    github: FakeGitHub, client: RepoClient
) -> None:
    set_pull(github, 7, {PATH: (BASE, HEAD)})
    fp = fingerprint(PATH, "salary_offer")
    github.repo(REPO).review_comments.append(
        {
            "id": 1,
            "pull_number": 7,
            "path": PATH,
            "line": 5,
            "body": f"<!-- codebias:fp={fp} -->",
            "user": {"login": "me", "type": "User"},
        }
    )
    counts = Publisher(client, "codebias").publish_review(outcome([biased()], set(range(1, 8))))
    assert counts["created"] == 1 and counts["updated"] == 0


@pytest.mark.parametrize(
    "label,commentable,suggestion,expected",
    [
        ("finding line in diff", {5, 6}, None, Placement(5)),
        ("only the def line in diff", {1}, None, Placement(1)),
        ("some other line of the function", {3}, None, Placement(3)),
        ("nothing of the function", {9, 10}, None, None),
        (
            "whole function in diff: multi-line suggestion",
            set(range(1, 8)),
            (1, 7),
            Placement(7, 1),
        ),
        ("suggestion span not in diff: single line", {5}, (1, 7), Placement(5)),
    ],
)
def test_placement(
    label: str,
    commentable: set[int],
    suggestion: tuple[int, int] | None,
    expected: Placement | None,
) -> None:
    result = biased()
    if suggestion:
        result.suggestion = Suggestion(
            suggestion[0], suggestion[1], "def salary_offer(c):\n    return 1\n", 0.9
        )
    assert place(result, commentable) == expected


def test_suggestion_comment_spans_the_function_and_validates(
    github: FakeGitHub, client: RepoClient
) -> None:
    set_pull(github, 7, {PATH: (None, HEAD)})  # a new file: every line is in the diff
    result = biased()
    result.suggestion = Suggestion(1, 7, "def salary_offer(candidate):\n    return 50000\n", 0.95)
    Publisher(client, "codebias").publish_review(outcome([result], set(range(1, 8))))
    (comment,) = github.repo(REPO).review_comments
    assert (comment["start_line"], comment["line"]) == (1, 7)
    assert "```suggestion\ndef salary_offer(candidate):\n    return 50000\n```" in comment["body"]
    assert "95%" in comment["body"]
