"""`codebias review --pr N`: the App's review of one pull request, from inside a CI workflow.

For repositories that prefer CI to installing the App (and whose CI has their dependencies
installed, so every function can run). With `GITHUB_TOKEN`, `GITHUB_REPOSITORY` (owner/repo)
and `GITHUB_API_URL` (GitHub Actions sets the last two), it does what the App's review job
does, with the App's own parts: the policy from the default branch layered over the
organisation's `.github` (config.layering), the changed functions tested at head and base
(bot.review.Reviewer), a verified fix as a suggestion (bot.suggest: the mechanical rules',
or a configured language model's when smaller), then one check run and one review, updated
on later runs (bot.publish).

Exit codes: 0 the check passed (success, or neutral: findings the policy does not fail on);
1 bias the policy fails on; 2 usage or configuration (a missing variable, an invalid
`.codebias.yml`: a neutral check run says so too); 3 GitHub refused a request (bad
credentials, a missing permission: a pull request from a fork gets a read-only
GITHUB_TOKEN); 4 GitHub could not be reached or failed (a wrong GITHUB_API_URL, no network,
a timeout, a 5xx after githubkit's retries, a rate limit): the review did not happen.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from analysis.errors import InterpreterError
from analysis.execution.interpreter import Interpreter
from bot.cache import MemoryResultsCache
from bot.commands.scan import choose_interpreter
from bot.github import RepoClient, policy_reader, token_client
from bot.github_errors import GitHubError, GitHubUnavailable
from bot.outcome import ReviewOutcome
from bot.publish import Publisher
from bot.redact import redacted, secrets_in
from bot.render.escape import code_span
from bot.review import Reviewer
from bot.settings import DEFAULT_API_URL
from config.layering import load_policy
from config.policy import Policy, PolicyError

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE, EXIT_GITHUB, EXIT_UNREACHABLE = 0, 1, 2, 3, 4
PERMISSIONS = (
    "GITHUB_TOKEN needs `checks: write` and `pull-requests: write`; a pull request from a "
    "fork gets a read-only token"
)
# Automatic suggestions per review, as in the App: each costs model calls and sandbox runs.
MAX_SUGGESTIONS = 5


@dataclass(frozen=True)
class CiSettings:
    token: str
    owner: str
    repo: str
    api_url: str = DEFAULT_API_URL

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> CiSettings:
        problems = []
        token = env.get("GITHUB_TOKEN", "").strip()
        if not token:
            problems.append(
                "GITHUB_TOKEN is not set (in a workflow: env: GITHUB_TOKEN: ${{ github.token }})"
            )
        repository = env.get("GITHUB_REPOSITORY", "").strip()
        owner, _, repo = repository.partition("/")
        if not owner or not repo or "/" in repo:
            problems.append(f"GITHUB_REPOSITORY must be owner/repo, not {repository!r}")
        api_url = env.get("GITHUB_API_URL", "").strip() or DEFAULT_API_URL
        if not api_url.startswith(("http://", "https://")):
            problems.append(f"GITHUB_API_URL must be an http(s) URL, not {api_url!r}")
        if problems:
            raise ValueError("; ".join(problems))
        return cls(token, owner, repo, api_url.rstrip("/"))


def run(args: argparse.Namespace) -> int:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("codebias: %(name)s: %(message)s"))
    handler.addFilter(without_library_tracebacks)
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    try:
        ci = CiSettings.from_env(os.environ)
    except ValueError as exc:
        return fail(EXIT_USAGE, str(exc))
    if args.pr < 1:
        return fail(EXIT_USAGE, "--pr must be a pull request number")
    try:
        interpreter = choose_interpreter(args.python)
    except InterpreterError as exc:
        return fail(EXIT_USAGE, str(exc))
    client = token_client(ci.token, ci.api_url, ci.owner, ci.repo)
    try:
        return review(client, args.pr, args.check_name, args.jobs, interpreter)
    except GitHubError as exc:
        return fail(*github_problem(exc, ci.api_url))


def github_problem(exc: GitHubError, api_url: str) -> tuple[int, str]:
    """The exit code and message for a request GitHub refused, failed, or never answered."""
    request = f"{exc.method} {exc.url}"
    if isinstance(exc, GitHubUnavailable):
        if exc.status is None:
            return EXIT_UNREACHABLE, (
                f"cannot reach GitHub at {api_url}: {request} failed ({exc.detail}); check "
                "GITHUB_API_URL and the network"
            )
        if exc.status >= 500:
            return EXIT_UNREACHABLE, (
                f"GitHub failed: it answered {exc.status} to {request} ({exc.detail}), also "
                "when asked again; try again later"
            )
        return EXIT_UNREACHABLE, (
            f"GitHub is limiting this token's requests: {exc.status} to {request} "
            f"({exc.detail}); try again in {exc.retry_after:.0f} s"
        )
    if exc.status == 401:
        return EXIT_GITHUB, (
            f"GitHub answered 401 (bad credentials) to {request}: it does not accept "
            "GITHUB_TOKEN (the Action's `token` input); give it a valid token"
        )
    if exc.status == 403:
        return EXIT_GITHUB, f"GitHub answered 403 to {request}: {exc.detail} ({PERMISSIONS})"
    return EXIT_GITHUB, f"GitHub answered {exc.status} to {request}: {exc.detail}"


def without_library_tracebacks(record: logging.LogRecord) -> bool:
    """githubkit logs each 5xx it retries with a traceback: its line is enough here."""
    if record.name.startswith("githubkit"):
        record.exc_info, record.exc_text = None, None
    return True


def review(
    client: RepoClient,
    number: int,
    check_name: str,
    jobs: int,
    interpreter: Interpreter | None = None,
) -> int:
    pr = client.pull(number)
    head_sha = str(pr["head"]["sha"])
    publisher = Publisher(client, check_name)
    try:
        policy = load_policy(f"{client.owner}/{client.name}", policy_reader(client))
    except PolicyError as exc:
        publisher.invalid_policy(head_sha, exc)
        return fail(EXIT_USAGE, str(exc))
    if pr.get("draft") and not policy.review_drafts:
        log(f"#{number} is a draft (set review_drafts: true to review drafts): nothing to do")
        return EXIT_PASSED
    check_id = publisher.start_check(head_sha, f"{client.owner}/{client.name}#{number}@{head_sha}")
    try:
        with Reviewer(
            client, policy, MemoryResultsCache(), engine_jobs=jobs, interpreter=interpreter
        ) as reviewer:
            outcome = reviewer.review(pr)
            suggest_fixes(reviewer, policy, client, outcome)
        publisher.finish_check(check_id, outcome)
    except Exception as exc:
        # Never leave the check spinning: close it, then let the error be reported.
        publisher.neutral_check(
            head_sha,
            "The review failed",
            "codebias could not finish this review: "
            f"{code_span(redacted(f'{type(exc).__name__}: {exc}', secrets_in(os.environ)))}.",
            check_id,
        )
        raise
    counts = publisher.publish_review(outcome)
    log(
        f"#{number} at {head_sha[:7]}: {outcome.conclusion}; {len(outcome.results)} functions "
        f"tested, {len(outcome.biased)} biased, {len(outcome.failing())} failing the policy; "
        f"comments {counts}"
    )
    return EXIT_FAILED if outcome.conclusion == "failure" else EXIT_PASSED


def suggest_fixes(
    reviewer: Reviewer, policy: Policy, client: RepoClient, outcome: ReviewOutcome
) -> None:
    """Verified fixes as suggestions, as the App makes them: the mechanical rules', and a
    model's when one is configured (the smaller verified one)."""
    from bot import suggest
    from bot.llm import provider_from_env

    if not policy.mitigation.enabled:
        return
    provider = provider_from_env(policy, os.environ)
    chosen = outcome.biased[:MAX_SUGGESTIONS]
    suggest.suggest_fixes(reviewer, client, outcome, chosen, provider, None, secrets_in(os.environ))


def fail(code: int, message: str) -> int:
    print(f"codebias: error: {message}", file=sys.stderr)
    return code


def log(message: str) -> None:
    print(f"codebias: {message}", file=sys.stderr)
