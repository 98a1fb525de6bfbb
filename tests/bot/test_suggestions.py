"""Verified fixes from an (OpenAI-compatible) LLM become review suggestions.

The mechanical rules are tried too (tests/bot/test_mechanical_suggestions.py) and the smaller
verified fix is posted: the model's answers here are smaller than the rules' fix (which gives
everyone the bonus), so they are the ones posted.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fakegithub import FakeGitHub
from fakellm import FakeLLM
from markdown_it import MarkdownIt
from scenario import BASE, HEAD, PATH, REPO, comment_event, post_comment, set_pull

from bot.events import ReviewRequest, route
from bot.jobs import JobContext
from bot.settings import Settings
from bot.suggest import as_suggestion

pytestmark = pytest.mark.sandbox

# Nobody gets the gender bonus now: two lines fewer, a smaller change than the rules' fix
# (three lines: everyone gets it), so the model's is the one posted.
FIXED = """Here is a fair version:

```python
def salary_offer(candidate):
    base = 50000
    if candidate["experience"] > 5:
        base += 10000
    return base
```
"""
ONLY_SALARY = HEAD.split("\n\n\n")[0] + "\n"
# A docstring holding a line of four backticks, then what would render as a second, untested
# suggestion if that line closed the comment's fence.
BACKTICKS = (
    '    """Offer.\n````\n```suggestion evil\n'
    "def salary_offer(candidate):\n    return 0\n````\n"
    '    """\n'
)
WITH_BACKTICKS = ONLY_SALARY.replace(
    "def salary_offer(candidate):\n", "def salary_offer(candidate):\n" + BACKTICKS, 1
)
FENCE_BREAKER = FIXED.replace(
    "def salary_offer(candidate):\n", "def salary_offer(candidate):\n" + BACKTICKS, 1
)


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    server = FakeLLM([FIXED])
    yield server
    server.stop()


def context_with(settings: Settings, llm: FakeLLM) -> JobContext:
    llm_env = {"OPENAI_BASE_URL": llm.base_url, "CODEBIAS_LLM_MAX_RETRIES": "0"}
    context = JobContext.build(dataclasses.replace(settings, llm_env=llm_env))
    return context


def review(
    github: FakeGitHub,
    context: JobContext,
    files: dict[str, tuple[str | None, str]],
    full_name: str = REPO,
) -> None:
    routed = route("pull_request", set_pull(github, 7, files, full_name=full_name))
    assert isinstance(routed, ReviewRequest)
    context.run(routed)


def test_verified_fix_is_a_suggestion_over_the_whole_function(
    github: FakeGitHub, embedded_settings: Settings, llm: FakeLLM
) -> None:
    review(github, context_with(embedded_settings, llm), {PATH: (None, ONLY_SALARY)})
    (comment,) = github.repo(REPO).review_comments
    assert (comment["start_line"], comment["line"]) == (1, 7)
    assert "gives the same output on" in comment["body"]
    suggestion = comment["body"].split("```suggestion\n", 1)[1].split("```", 1)[0]
    assert suggestion == FIXED.split("```python\n")[1].split("```")[0]
    assert len(llm.requests) == 1


def test_fix_that_cannot_span_the_diff_is_shown_as_a_patch(
    github: FakeGitHub, embedded_settings: Settings, llm: FakeLLM
) -> None:
    # Line 1 of salary_offer is outside the diff of a modified file: no suggestion block.
    review(github, context_with(embedded_settings, llm), {PATH: (BASE, ONLY_SALARY)})
    (comment,) = github.repo(REPO).review_comments
    assert "```suggestion" not in comment["body"]
    assert (
        "```diff" in comment["body"] and '-    if candidate["gender"] == "male":' in comment["body"]
    )


def test_fix_command_targets_one_function(
    github: FakeGitHub, embedded_settings: Settings, llm: FakeLLM
) -> None:
    set_pull(github, 7, {PATH: (None, HEAD)})
    github.repo(REPO).permissions["maintainer"] = "write"
    routed = route("issue_comment", post_comment(github, 7, "/codebias fix salary_offer"))
    assert isinstance(routed, ReviewRequest)
    context_with(embedded_settings, llm).run(routed)
    bodies = {c["line"]: c["body"] for c in github.repo(REPO).review_comments}
    assert sum("```suggestion" in b for b in bodies.values()) == 1
    assert len(llm.requests) == 1  # only salary_offer was sent to the model


def test_as_suggestion_refuses_patches_that_touch_the_rest_of_the_module() -> None:
    original = "import os\n\n\ndef f(age):\n    return age > 3\n"
    patched = "import os\nimport math\n\n\ndef f(age):\n    return True\n"
    assert as_suggestion(original, patched, "f", 1.0, None) is None
    same_frame = "import os\n\n\ndef f(age):\n    return True\n"
    suggestion = as_suggestion(original, same_frame, "f", 0.5, None)
    assert suggestion is not None and (suggestion.start_line, suggestion.end_line) == (4, 5)


def test_a_later_push_reuses_the_verified_fix_without_asking_the_model_again(
    github: FakeGitHub, embedded_settings: Settings, llm: FakeLLM
) -> None:
    context = context_with(embedded_settings, llm)
    review(github, context, {PATH: (None, ONLY_SALARY)})
    # A new head that leaves salary_offer untouched (another file changes).
    review(github, context, {PATH: (None, ONLY_SALARY), "notes.py": (None, "NOTE = 1\n")})
    assert len(llm.requests) == 1
    bodies = [c["body"] for c in github.repo(REPO).review_comments]
    assert bodies and all("```suggestion" in body for body in bodies)


def test_a_suggestion_holds_exactly_the_tested_function_whatever_backticks_it_holds(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    """Issue 25, item 8: the suggestion was fenced with three backticks, so a docstring line
    of four closed it and the verified comment carried a second suggestion, never tested."""
    server = FakeLLM([FENCE_BREAKER])
    try:
        review(github, context_with(embedded_settings, server), {PATH: (None, WITH_BACKTICKS)})
    finally:
        server.stop()
    (comment,) = github.repo(REPO).review_comments
    blocks = [
        t
        for t in MarkdownIt("commonmark").parse(comment["body"])
        if t.type == "fence" and t.info.split()[:1] == ["suggestion"]
    ]
    tested = FENCE_BREAKER.split("```python\n")[1].rsplit("```", 1)[0]
    assert [b.content for b in blocks] == [tested]


@pytest.mark.parametrize(
    "on_github",
    [
        None,
        ("outsider", "/codebias fix salary_offer", 0),
        ("maintainer", "Looks good to me.", 0),
        ("maintainer", "/codebias fix salary_offer", 4),  # replayed after the dedupe window
    ],
    ids=["no-such-comment", "someone-else-wrote-it", "it-says-something-else", "days-old"],
)
def test_a_forged_fix_command_naming_a_maintainer_runs_nothing(
    github: FakeGitHub,
    embedded_settings: Settings,
    llm: FakeLLM,
    on_github: tuple[str, str, int] | None,
) -> None:
    """Issue 25, item 9: with a leaked webhook secret, a delivery claiming that a maintainer
    commented `/codebias fix` ran a fix (model calls, a review). The command is read from
    the comment as GitHub has it, and its real author's permission decides."""
    set_pull(github, 7, {PATH: (None, HEAD)})
    repo = github.repo(REPO)
    repo.permissions.update(maintainer="admin", outsider="read")
    forged = comment_event(7, "/codebias fix salary_offer")  # signed with the leaked secret
    if on_github is not None:
        login, text, days = on_github
        real = post_comment(github, 7, text, login)["comment"]["id"]
        forged["comment"]["id"] = real
        written = datetime.now(UTC) - timedelta(days=days)
        repo.issue_comments[-1]["created_at"] = written.strftime("%Y-%m-%dT%H:%M:%SZ")
    routed = route("issue_comment", forged)
    assert isinstance(routed, ReviewRequest) and routed.commenter == "maintainer"
    context_with(embedded_settings, llm).run(routed)
    assert llm.requests == []
    assert repo.check_runs == [] and repo.review_comments == []
    replies = [c["body"] for c in repo.issue_comments if c["user"]["type"] == "Bot"]
    assert all(r.startswith("@outsider") and "write access" in r for r in replies)


KEY = "sk-live-0123456789abcdef"
# The gender is read by a helper the pull request leaves alone: no mechanical rule rewrites
# a helper other callers share, so only the model could fix salary_offer here.
THROUGH_A_HELPER = (
    'def _is_man(candidate):\n    return candidate["gender"] == "male"\n\n\n' + BASE
)
HELPER_HEAD = THROUGH_A_HELPER.replace(
    "    return base\n", "    if _is_man(candidate):\n        base += 5000\n    return base\n"
)


@pytest.mark.parametrize("failure", ["unreachable", "error-body"])
def test_a_failing_model_is_posted_as_a_generic_sentence_and_logged_redacted(
    github: FakeGitHub,
    embedded_settings: Settings,
    caplog: pytest.LogCaptureFixture,
    failure: str,
) -> None:
    """Issue 25, item 10: the note on the pull request quoted the provider's error, with
    OPENAI_BASE_URL and its credentials (or the provider's error body) in it."""
    from botsupport import free_port

    server = FakeLLM(
        [], error=(401, f"Incorrect API key provided: {KEY}. See https://keys.example")
    )
    if failure == "unreachable":
        base_url = f"http://user:s3cr3t-pass@127.0.0.1:{free_port()}/v1"
    else:
        base_url = server.base_url.replace("http://", "http://user:s3cr3t-pass@")
    llm_env = {
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": KEY,
        "CODEBIAS_LLM_MAX_RETRIES": "0",
    }
    context = JobContext.build(dataclasses.replace(embedded_settings, llm_env=llm_env))
    try:
        with caplog.at_level("WARNING"):
            review(github, context, {PATH: (THROUGH_A_HELPER, HELPER_HEAD)})
    finally:
        server.stop()
    (comment,) = github.repo(REPO).review_comments
    body = comment["body"]
    assert "could not be reached" in body
    for secret in ("s3cr3t", KEY, "127.0.0.1", "://", "keys.example", "Incorrect API key"):
        assert secret not in body
    logged = caplog.text
    assert "no fix for" in logged and "s3cr3t" not in logged and KEY not in logged


def suggestions(github: FakeGitHub, full_name: str = REPO) -> list[str]:
    """The suggestion blocks of the pull request's latest review comment."""
    body = github.repo(full_name).review_comments[-1]["body"]
    return [
        t.content
        for t in MarkdownIt("commonmark").parse(body)
        if t.type == "fence" and t.info.split()[:1] == ["suggestion"]
    ]


TESTED = FIXED.split("```python\n")[1].split("```")[0]


def test_a_fix_made_in_one_repository_is_never_reused_in_another(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    """Issue 25, item 2: the fix cache was keyed without the repository, so a fix made (and
    steered, since outputs go into the prompt) in one repository was posted in another's
    pull request as verified, without the model or the sandbox seeing that repository."""
    server = FakeLLM([FIXED, FIXED])
    try:
        context = context_with(embedded_settings, server)
        review(github, context, {PATH: (None, ONLY_SALARY)})
        review(github, context, {PATH: (None, ONLY_SALARY)}, full_name="other-org/payroll")
    finally:
        server.stop()
    assert len(server.requests) == 2
    assert suggestions(github, "other-org/payroll") == [TESTED]


RATES = "hiring/rates.py"
WITH_IMPORT = "from hiring.rates import BONUS\n\n\n" + ONLY_SALARY.replace("+= 5000", "+= BONUS")


@pytest.mark.parametrize(
    "second",
    [
        {PATH: (None, WITH_IMPORT), RATES: (None, "BONUS = 7000\n")},
        {
            PATH: (None, WITH_IMPORT + "\n\nclass Audit:\n    level = 2\n"),
            RATES: (None, "BONUS = 5000\n"),
        },
    ],
    ids=["an-imported-file-changed", "the-module-changed-elsewhere"],
)
def test_a_fix_is_keyed_by_everything_the_function_imports(
    github: FakeGitHub, embedded_settings: Settings, second: dict[str, tuple[None, str]]
) -> None:
    """Issue 25, item 2: the key held the function and the module-level lines it names, not
    the module's whole text nor the project files it imports."""
    server = FakeLLM([FIXED, FIXED])
    try:
        context = context_with(embedded_settings, server)
        review(github, context, {PATH: (None, WITH_IMPORT), RATES: (None, "BONUS = 5000\n")})
        review(github, context, second)
    finally:
        server.stop()
    assert len(server.requests) == 2


POISON = 'def salary_offer(candidate):\n    return 9 if candidate["gender"] == "male" else 0\n'


def test_a_cached_fix_is_re_tested_before_it_is_posted(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    """Issue 25, item 2: a cached fix was posted as "verified in the sandbox" without being
    run again; one that no longer verifies (here: a cache entry replaced by a biased
    function) must not be posted. The model is asked afresh instead."""
    server = FakeLLM([FIXED, FIXED])
    try:
        context = context_with(embedded_settings, server)
        review(github, context, {PATH: (None, ONLY_SALARY)})
        items = context.cache._items  # type: ignore[attr-defined]
        fixes = [key for key in items if key.startswith("fix:")]
        assert fixes
        for key in fixes:
            record = json.loads(items[key])
            items[key] = json.dumps(record | {"function": POISON})
        review(github, context, {PATH: (None, ONLY_SALARY)})
    finally:
        server.stop()
    assert all(POISON not in c["body"] for c in github.repo(REPO).review_comments)
    assert suggestions(github) == [TESTED]
    assert len(server.requests) == 2
