"""The App's fixes take the path `codebias fix` takes: the mechanical rules without a model,
the smaller verified fix with one, each function run where the review ran it (as its module
in the review's checkout of its package), and the suggestion is the verified function only."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from fakegithub import FakeGitHub
from fakellm import FakeLLM
from scenario import HEAD, PATH, REPO, post_comment, set_pull

from analysis import Engine
from bot.events import ReviewRequest, route
from bot.jobs import JobContext
from bot.settings import Settings
from config.policy import default_policy

pytestmark = pytest.mark.sandbox

ONLY_SALARY = HEAD.split("\n\n\n")[0] + "\n"
# The reference group (the policy's first gender) gets the bonus: now everyone does.
MECHANICAL = """\
def salary_offer(candidate):
    base = 50000
    if candidate["experience"] > 5:
        base += 10000
    base += 5000
    return base
"""


def suggestion_in(body: str) -> str:
    return body.split("```suggestion\n", 1)[1].split("\n```", 1)[0] + "\n"


def run(github: FakeGitHub, context: JobContext, event: dict[str, Any], kind: str) -> None:
    routed = route(kind, event)
    assert isinstance(routed, ReviewRequest)
    context.run(routed)


def test_with_no_model_the_app_posts_a_verified_mechanical_fix_as_a_suggestion(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    assert not embedded_settings.llm_env  # no provider configured
    event = set_pull(github, 7, {PATH: (None, ONLY_SALARY)})
    run(github, JobContext.build(embedded_settings), event, "pull_request")
    (comment,) = github.repo(REPO).review_comments
    # The suggestion replaces exactly the function's lines, with the verified function only.
    assert (comment["start_line"], comment["line"]) == (1, 7)
    assert suggestion_in(comment["body"]) == MECHANICAL
    assert "made by the mechanical rule collapse-branch (no language model)" in comment["body"]
    retest = Engine(default_policy()).scan_function(MECHANICAL, PATH, "salary_offer")
    assert retest.is_settled and not retest.is_biased  # it no longer reads the gender


def test_fix_command_without_a_model_fixes_the_named_function_mechanically(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    set_pull(github, 7, {PATH: (None, HEAD)})
    github.repo(REPO).permissions["maintainer"] = "write"
    event = post_comment(github, 7, "/codebias fix salary_offer")
    run(github, JobContext.build(embedded_settings), event, "issue_comment")
    bot_replies = [c for c in github.repo(REPO).issue_comments if c["user"]["type"] == "Bot"]
    assert bot_replies == []  # carried out, not refused
    suggestions = [c for c in github.repo(REPO).review_comments if "```suggestion" in c["body"]]
    assert [suggestion_in(c["body"]) for c in suggestions] == [MECHANICAL]


def test_a_policy_that_switches_fixes_off_gets_no_suggestion_and_fix_is_refused(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    github.repo(REPO).files[("main", ".codebias.yml")] = "mitigation: {enabled: false}\n"
    event = set_pull(github, 7, {PATH: (None, ONLY_SALARY)})
    context = JobContext.build(embedded_settings)
    run(github, context, event, "pull_request")
    (comment,) = github.repo(REPO).review_comments
    assert "```suggestion" not in comment["body"]
    github.repo(REPO).permissions["maintainer"] = "write"
    run(github, context, post_comment(github, 7, "/codebias fix salary_offer"), "issue_comment")
    (reply,) = [c for c in github.repo(REPO).issue_comments if c["user"]["type"] == "Bot"]
    assert "fixes are switched off" in reply["body"]


RULES = "def base_rate(years_licensed):\n    return 1.5 if years_licensed < 2 else 1.0\n"
PRICING = """\
from .rules import base_rate


def driver_quote(driver, base):
    rate = base_rate(driver["years_licensed"])
    if driver["sex"] == "female":
        rate *= 1.1
    return {"sex": driver["sex"], "premium": base * rate}
"""
# Still reads (echoes) the sex, so the fix must run to be verified: only as hr.pricing,
# beside hr.rules. The model's fix is the rules' own, so the rules' is posted (a tie).
FIXED = """\
def driver_quote(driver, base):
    rate = base_rate(driver["years_licensed"])
    return {"sex": driver["sex"], "premium": base * rate}
"""


def test_a_package_module_is_fixed_and_re_tested_where_the_review_ran_it(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    llm = FakeLLM([f"```python\n{FIXED}```"] * 3)
    try:
        settings = dataclasses.replace(
            embedded_settings,
            llm_env={"OPENAI_BASE_URL": llm.base_url, "CODEBIAS_LLM_MAX_RETRIES": "0"},
        )
        event = set_pull(github, 11, {"src/hr/pricing.py": (None, PRICING)})
        head = event["pull_request"]["head"]["sha"]
        for path, text in {
            "pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["src"]\n',
            "src/hr/__init__.py": "",
            "src/hr/rules.py": RULES,
        }.items():
            github.repo(REPO).files[(head, path)] = text
        run(github, JobContext.build(settings), event, "pull_request")
    finally:
        llm.stop()
    (comment,) = github.repo(REPO).review_comments
    assert "```suggestion" in comment["body"], comment["body"]
    assert suggestion_in(comment["body"]) == FIXED
    assert "made by the mechanical rule collapse-branch" in comment["body"]
    assert len(llm.requests) == 1  # the model was asked too; its fix was no smaller
