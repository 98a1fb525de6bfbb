"""What a review says: check title and summary, inline comments, review body. Proven bias and
static findings are counted apart, and the count, the lists and the conclusion agree."""

from __future__ import annotations

import pytest
from fakegithub import FakeGitHub
from scenario import REPO, set_pull

from analysis.report import Example, Finding, FunctionReport
from bot.comments import check_summary, check_title, function_comment, review_body
from bot.events import ReviewRequest, route
from bot.jobs import JobContext
from bot.outcome import FunctionResult, ReviewOutcome
from bot.publish import build_annotations
from bot.settings import Settings


def finding(attribute: str = "age") -> Finding:
    return Finding(
        attribute,
        f"applicant['{attribute}']",
        Example({"applicant": {attribute: 29, "experience": 3}}, [29, 30], ["False", "True"]),
        17,
    )


def biased(qualname: str = "assess", attributes: tuple[str, ...] = ("age",)) -> FunctionReport:
    return FunctionReport(
        "pkg/hiring.py",
        qualname,
        12,
        30,
        "biased",
        attributes_tested=list(attributes),
        findings=[finding(a) for a in attributes],
    )


def unverified_with_static_finding() -> FunctionReport:
    return FunctionReport(
        "pkg/legacy.py",
        "score",
        3,
        9,
        "unverified",
        "static",
        attributes_tested=["gender"],
        findings=[Finding("gender", "gender", None, 5, "static")],
        reason="cannot run: ModuleNotFoundError: No module named 'vendor_sdk'",
    )


def outcome(results: list[FunctionResult], fail_on_static: bool = False) -> ReviewOutcome:
    return ReviewOutcome(
        "o", "r", 1, "h" * 40, "b" * 40, "new", results, fail_on_static=fail_on_static
    )


def test_review_comment_carries_the_fingerprint_and_says_new() -> None:
    body = function_comment(
        FunctionResult(biased(), {"age"}), "<!-- codebias:fp=0123456789abcdef -->", "f" * 40
    )
    assert body.endswith("<!-- codebias:fp=0123456789abcdef -->")
    assert "new in this pull request" in body and "commit fffffff" in body
    assert "# codebias: ignore[age]" in body


def test_check_summary_counts_new_and_pre_existing_and_lists_unverified() -> None:
    odd = FunctionReport("a.py", "g", 5, 9, "unverified", reason="imports a missing module")
    review = outcome(
        [FunctionResult(biased(attributes=("age", "gender")), {"age"}), FunctionResult(odd)]
    )
    text = check_summary(review)
    assert "**1** new in this pull request, **1** pre-existing" in text
    assert "age (new), gender (pre-existing)" in text
    assert "`a.py::g` unverified: `imports a missing module`" in text
    assert review.conclusion == "failure"


def test_only_an_unverified_function_with_a_static_finding_is_not_called_biased() -> None:
    # The count, the list and the conclusion must agree: 0 biased, nothing under "Biased
    # functions", the static finding shown apart, and no failure under the default policy.
    review = outcome([FunctionResult(unverified_with_static_finding(), {"gender"})])
    text = check_summary(review)
    assert "**0** biased" in text
    assert "Biased functions" not in text
    assert "**1** function(s) could not run and have static findings" in text
    assert "`pkg/legacy.py:3` `score`: gender (new)" in text
    assert review.biased == [] and review.failing() == []
    assert review.conclusion == "neutral"
    assert check_title(review).startswith("0 biased function(s), 1 with static findings")
    assert "0 biased, 1 with static findings (not run)" in review_body(review, [])[0]
    (annotation,) = build_annotations(review)
    assert annotation["annotation_level"] == "notice"
    assert "static finding, not run" in annotation["title"]


@pytest.mark.parametrize("fail_on_static,conclusion", [(False, "neutral"), (True, "failure")])
def test_the_policy_decides_whether_static_findings_fail(
    fail_on_static: bool, conclusion: str
) -> None:
    review = outcome([FunctionResult(unverified_with_static_finding(), {"gender"})], fail_on_static)
    assert review.conclusion == conclusion
    assert f"`fail_on_static: {str(fail_on_static).lower()}`" in check_summary(review)
    (annotation,) = build_annotations(review)
    assert annotation["annotation_level"] == ("failure" if fail_on_static else "notice")


def test_a_pre_existing_static_finding_does_not_fail_under_fail_on_new() -> None:
    review = outcome([FunctionResult(unverified_with_static_finding(), set())], True)
    assert review.failing() == [] and review.conclusion == "neutral"


LEGACY = """\
import vendor_sdk


def score(gender):
    if gender == "female":
        return vendor_sdk.low()
    return vendor_sdk.high()
"""


@pytest.mark.sandbox
def test_a_review_of_only_an_unverified_function_agrees_with_itself(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    event = set_pull(github, 9, {"pkg/legacy.py": (None, LEGACY)})
    request = route("pull_request", event)
    assert isinstance(request, ReviewRequest)
    JobContext.build(embedded_settings).run(request)
    run = github.repo(REPO).check_runs[-1]
    summary = run["output"]["summary"]
    assert "**0** biased" in summary and "Biased functions" not in summary
    assert "`pkg/legacy.py:4` `score`: gender (new)" in summary
    assert run["conclusion"] == "neutral"
    assert run["output"]["title"].startswith("0 biased function(s), 1 with static findings")
    assert all(not review["comments"] for review in github.repo(REPO).reviews)


def test_the_check_says_which_accepting_lines_can_never_match(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    # The App says it as `codebias scan` does: a misspelt category accepts nothing.
    github.repo(REPO).files[("main", ".codebias.yml")] = (
        "allow:\n  - function: pkg/rules.py::bonus\n    attribute: agee\n    reason: reviewed\n"
    )
    rules = "def bonus(age):\n    return 10 if age > 60 else 0\n"
    event = set_pull(github, 11, {"pkg/rules.py": (None, rules)})
    request = route("pull_request", event)
    assert isinstance(request, ReviewRequest)
    JobContext.build(embedded_settings).run(request)
    summary = github.repo(REPO).check_runs[-1]["output"]["summary"]
    assert "**Warnings**" in summary and "agee" in summary
