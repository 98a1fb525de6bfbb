"""The review job: one pull request head, from GitHub's REST API to a check run and a review.

The same code runs in RQ workers (`review_job`, which builds its context from the
environment) and in the embedded pool (`JobContext.run`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from githubkit.exception import RequestFailed
from redis import Redis

from bot.cache import MemoryResultsCache, RedisResultsCache, ResultsCache
from bot.events import ReviewRequest
from bot.github import GitHubApp, Json, RepoClient, policy_reader
from bot.metrics import MemoryStore, Metrics, RedisStore
from bot.publish import Publisher
from bot.review import Reviewer
from bot.settings import Settings
from config.layering import load_policy
from config.policy import Policy, PolicyError

log = logging.getLogger(__name__)

WRITE_ACCESS = frozenset({"admin", "maintain", "write"})
# Automatic suggestions per review: each costs model calls and sandbox runs.
MAX_AUTOMATIC_FIXES = 5


@dataclass
class JobContext:
    """What every job of one process shares: settings, the GitHub client (and its token
    cache), the results cache and the metrics."""

    settings: Settings
    app: GitHubApp
    cache: ResultsCache
    metrics: Metrics
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    engine_jobs: int = 1

    @classmethod
    def build(
        cls, settings: Settings, metrics: Metrics | None = None, redis: Redis | None = None
    ) -> JobContext:
        cache: ResultsCache = (
            RedisResultsCache(redis) if redis is not None else MemoryResultsCache()
        )
        return cls(
            settings=settings,
            app=GitHubApp(settings, redis),
            cache=cache,
            metrics=metrics or Metrics(MemoryStore()),
            engine_jobs=max(1, int(os.environ.get("CODEBIAS_ENGINE_JOBS", "1") or 1)),
        )

    def run(self, request: ReviewRequest) -> str:
        return Job(self, request).run()


def review_job(data: dict[str, Any]) -> str:
    """RQ entry point: settings from this worker's environment, then the shared job code."""
    settings = Settings.from_env()
    redis = Redis.from_url(settings.redis_url) if settings.redis_url else None
    metrics = Metrics(RedisStore(redis) if redis is not None else MemoryStore())
    context = JobContext.build(settings, metrics, redis)
    started = time.monotonic()
    try:
        result = context.run(ReviewRequest.from_dict(data))
    except BaseException:
        metrics.job_finished(False, time.monotonic() - started)
        raise
    metrics.job_finished(True, time.monotonic() - started)
    return result


class Job:
    def __init__(self, context: JobContext, request: ReviewRequest) -> None:
        self.context = context
        self.request = request
        self.settings = context.settings

    def run(self) -> str:
        """What happened, in a few words (the RQ job's result, and the log line)."""
        request = self.request
        app = self.context.app
        installation = request.installation_id or app.installation_id(request.owner, request.repo)
        client = app.repo(request.owner, request.repo, installation)
        pr = client.pull(request.number)

        if request.command != "review":
            refusal = self._refusal(client, pr)
            if refusal is not None:
                client.comment(request.number, refusal)
                return self._done("refused: " + refusal)
        if pr.get("state") != "open":
            return self._done("pull request is not open")
        head_sha = str(pr["head"]["sha"])
        if request.head_sha is not None and request.head_sha != head_sha:
            return self._done(f"superseded: the head is now {head_sha[:7]}")

        publisher = Publisher(client, self.settings.check_name, int(self.settings.app_id))
        try:
            policy = load_policy(f"{request.owner}/{request.repo}", policy_reader(client))
        except PolicyError as exc:
            publisher.invalid_policy(head_sha, exc)
            return self._done(f"invalid policy: {exc}")
        if pr.get("draft") and not policy.review_drafts and request.command == "review":
            return self._done("draft pull request (set review_drafts: true to review drafts)")

        check_id = publisher.start_check(head_sha, request.logical_id)
        try:
            reviewer = Reviewer(client, policy, self.context.cache, self.context.engine_jobs)
            outcome = reviewer.review(pr)
            self._suggest(reviewer, policy, client, outcome)
            publisher.finish_check(check_id, outcome)
        except Exception as exc:
            # Never leave the check spinning: close it, then fail the job (it is retried, and
            # a retry opens a fresh check run).
            self._close_check(publisher, head_sha, check_id, exc)
            raise
        counts = publisher.publish_review(outcome)
        return self._done(
            f"{outcome.conclusion}: {len(outcome.results)} functions, "
            f"{len(outcome.biased)} biased; "
            f"comments {counts}"
        )

    def _close_check(
        self, publisher: Publisher, head_sha: str, check_id: int, exc: Exception
    ) -> None:
        try:
            publisher.neutral_check(
                head_sha,
                "The review failed",
                f"codebias could not finish this review: `{type(exc).__name__}: {exc}`. "
                "Failed reviews are retried with backoff.",
                check_id,
            )
        except (RequestFailed, OSError) as again:
            log.warning(
                "review %s: check run %d left open: %s", self.request.logical_id, check_id, again
            )

    def _done(self, message: str) -> str:
        log.info("review %s: %s", self.request.logical_id, message)
        return message

    def _refusal(self, client: RepoClient, pr: Json) -> str | None:
        """Why a comment command is not carried out; None when it is."""
        request = self.request
        who = f"@{request.commenter}"
        if request.command == "refuse":
            return f"{who} {request.reason}"
        if client.permission(request.commenter or "") not in WRITE_ACCESS:
            return f"{who} `/codebias {request.command}` needs write access to this repository."
        if request.command == "fix" and self._provider(load_or_default(client, request)) is None:
            return (
                f"{who} no language model is configured for this App, so no fix can be proposed "
                "(see OPENAI_API_KEY / ANTHROPIC_API_KEY in the deployment notes)."
            )
        return None

    def _provider(self, policy: Policy) -> Any:
        try:
            from bot.llm import provider_from_env
        except ImportError:  # the LLM layer is optional at install time
            return None
        return provider_from_env(policy, self.context.env)

    def _suggest(
        self, reviewer: Reviewer, policy: Policy, client: RepoClient, outcome: Any
    ) -> None:
        provider = self._provider(policy)
        if provider is None:
            return
        from bot.suggest import suggest

        target = self.request.target if self.request.command == "fix" else None
        chosen = [
            r
            for r in outcome.biased
            if target is None
            or target in (r.report.qualname, f"{r.report.path}::{r.report.qualname}")
        ]
        if self.request.command != "fix":
            chosen = chosen[:MAX_AUTOMATIC_FIXES]
        for result in chosen:
            source = client.file_text(result.report.path, outcome.head_sha)
            if source is not None:
                # An explicit `/codebias fix` asks afresh; automatic ones reuse earlier answers.
                cache = None if self.request.command == "fix" else self.context.cache
                suggest(reviewer.engine, policy, provider, source, result, cache)


def load_or_default(client: RepoClient, request: ReviewRequest) -> Policy:
    try:
        return load_policy(f"{request.owner}/{request.repo}", policy_reader(client))
    except PolicyError:
        from config.policy import default_policy

        return default_policy()
