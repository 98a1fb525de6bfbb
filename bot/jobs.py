"""The review job: one pull request head, from GitHub's REST API to a check run and a review.

The same code runs in RQ workers (`review_job`, with the context `codebias worker` built
once for its process) and in the embedded pool (`JobContext.run`).

A review whose pull request is superseded is skipped: at the start when the head already
moved, and again just before posting, under a per-pull-request lock, so that a slow review
of an older head never posts after the review of the newer one. A 404 while the pull request
is closed, gone or moved (a deleted branch) abandons the review cleanly instead of failing it.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from redis import Redis

from bot.cache import MemoryResultsCache, RedisResultsCache, ResultsCache
from bot.deadline import JobTimedOut, current_deadline
from bot.events import ReviewRequest, parse_command
from bot.github import GitHubApp, Json, RepoClient, policy_reader, preload
from bot.github_errors import GitHubError, GitHubNotFound
from bot.logs import step
from bot.metrics import MemoryStore, Metrics, RedisStore
from bot.posting import MemoryPostingLock, PostingLock, RedisPostingLock
from bot.publish import Publisher
from bot.queue import fields_of, honour_retry_after
from bot.redact import redacted, secrets_in
from bot.render.escape import code_span
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
    posting: PostingLock = field(default_factory=MemoryPostingLock)
    redis: Redis | None = None

    @property
    def env(self) -> Mapping[str, str]:
        """What the LLM providers read, as captured by Settings (never os.environ)."""
        return self.settings.llm_env

    @property
    def engine_jobs(self) -> int:
        return self.settings.engine_jobs

    @classmethod
    def build(
        cls, settings: Settings, metrics: Metrics | None = None, redis: Redis | None = None
    ) -> JobContext:
        cache: ResultsCache = (
            RedisResultsCache(redis) if redis is not None else MemoryResultsCache()
        )
        metrics = metrics or Metrics(MemoryStore())
        return cls(
            settings=settings,
            app=GitHubApp(settings, redis, on_rate_limit=metrics.rate_limit_seen),
            cache=cache,
            metrics=metrics,
            posting=RedisPostingLock(redis) if redis is not None else MemoryPostingLock(),
            redis=redis,
        )

    @classmethod
    def for_worker(cls, settings: Settings) -> JobContext:
        """The context of an RQ worker process: shared Redis for cache, metrics and locks."""
        assert settings.redis_url is not None
        redis = Redis.from_url(settings.redis_url, socket_timeout=30, socket_connect_timeout=5)
        return cls.build(settings, Metrics(RedisStore(redis)), redis)

    def warm(self) -> None:
        """Load what every job uses before the worker forks its work horses: githubkit's
        models, and the sandbox's self-test (once per process, not once per job)."""
        from analysis.sandbox import SandboxUnavailable, default_executor

        preload(self.settings)
        try:
            default_executor()
        except SandboxUnavailable as exc:
            log.error(
                "the sandbox is unavailable; reviews will report functions unverified: %s", exc
            )

    def run(self, request: ReviewRequest) -> str:
        return Job(self, request).run()


# Set by `codebias worker` before it starts taking jobs; forked work horses inherit it.
_worker_context: JobContext | None = None


def use_worker_context(context: JobContext) -> None:
    global _worker_context
    _worker_context = context


def review_job(data: dict[str, Any]) -> str:
    """RQ entry point: this worker's context (see `codebias worker`), then the shared job."""
    context = _worker_context
    if context is None:  # a bare `rq worker`: read the settings once for this process
        context = JobContext.for_worker(Settings.from_env(role="worker"))
        use_worker_context(context)
    request = ReviewRequest.from_dict(data)
    started = time.monotonic()
    with fields_of(request):
        try:
            result = context.run(request)
        except BaseException as exc:
            context.metrics.job_finished(False, time.monotonic() - started)
            honour_retry_after(exc)
            _log_failure(request, exc)
            raise
    context.metrics.job_finished(True, time.monotonic() - started)
    return result


def _log_failure(request: ReviewRequest, exc: BaseException) -> None:
    from rq import get_current_job

    job = get_current_job()
    if job is not None and job.should_retry:
        wait = job.get_retry_interval()
        log.warning(
            "review %s failed: %s; retry in %d s (%d left)",
            request.logical_id,
            exc,
            wait,
            job.retries_left or 0,
            extra={"retry_in": wait},
        )
    else:
        log.error("review %s failed for good: %s", request.logical_id, exc)


class Job:
    def __init__(self, context: JobContext, request: ReviewRequest) -> None:
        self.context = context
        self.request = request
        self.settings = context.settings
        self.deadline = current_deadline()

    @contextmanager
    def _step(self, name: str) -> Iterator[None]:
        """A logged step, not begun once the job was given up (bot.deadline)."""
        self.deadline.check()
        with step(log, name):
            yield

    def run(self) -> str:
        """What happened, in a few words (the RQ job's result, and the log line)."""
        started = time.monotonic()
        message = self._run()
        log.info(
            "review %s: %s",
            self.request.logical_id,
            message,
            extra={"seconds": round(time.monotonic() - started, 3), "outcome": message},
        )
        return message

    def _run(self) -> str:
        request = self.request
        app = self.context.app
        installation = request.installation_id or app.installation_id(request.owner, request.repo)
        with app.repo(request.owner, request.repo, installation) as client:
            return self._review(client)

    def _review(self, client: RepoClient) -> str:
        request = self.request
        with self._step("read_pull_request"):
            pr = client.pull(request.number)

        if request.command != "review":
            verified = self._command_on_github(client)
            if isinstance(verified, str):
                log.warning("comment command not carried out: %s", verified)
                return self._done(f"ignored: {verified}")
            self.request = request = verified
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
            with self._step("load_policy"):
                policy = load_policy(f"{request.owner}/{request.repo}", policy_reader(client))
        except PolicyError as exc:
            publisher.invalid_policy(head_sha, exc)
            return self._done(f"invalid policy: {exc}")
        if pr.get("draft") and not policy.review_drafts and request.command == "review":
            return self._done("draft pull request (set review_drafts: true to review drafts)")

        try:
            with self._step("start_check"):
                # Per delivery: a retry of this job finds its own run, a re-run request does not.
                external = f"{request.logical_id}/{request.delivery or '-'}"
                check_id = publisher.start_check(head_sha, external)
        except GitHubNotFound as exc:
            return self._abandon_or_raise(client, head_sha, exc)
        reviewer = Reviewer(
            client, policy, self.context.cache, self.context.engine_jobs, self.deadline.testing
        )
        try:
            with self._step("test_functions"):
                outcome = reviewer.review(pr)
            self._count(outcome)
            with self._step("suggest_fixes"):
                # Before the reviewer closes: fixes run where the review ran each function.
                self._suggest(reviewer, policy, client, outcome)
            reviewer.close()
            with self._step("finish_check"):
                publisher.finish_check(check_id, outcome)
        except Exception as exc:
            reviewer.close()
            gone = self._gone(client, head_sha) if isinstance(exc, GitHubNotFound) else None
            # Never leave the check spinning: close it, then fail the job (it is retried, and
            # a retry opens a fresh check run) unless the pull request itself went away.
            self._close_check(publisher, head_sha, check_id, exc, gone)
            if gone is not None:
                return self._abandoned(gone, exc)
            raise
        with self._step("publish_review"), self.context.posting.hold(self._pull_key()):
            # Re-read under the lock: a newer head's review may not be overtaken by this one.
            latest = client.pull(request.number)
            now = str(latest["head"]["sha"])
            if now != head_sha or latest.get("state") != "open":
                return self._done(
                    f"superseded before posting: the head is now {now[:7]}; check run "
                    f"completed, review not posted"
                )
            counts = publisher.publish_review(outcome)
        return self._done(
            f"{outcome.conclusion}: {len(outcome.results)} functions, "
            f"{len(outcome.biased)} biased; "
            f"comments {counts}"
        )

    def _pull_key(self) -> str:
        return f"{self.request.owner}/{self.request.repo}#{self.request.number}"

    def _count(self, outcome: Any) -> None:
        results = list(outcome.results)
        hits = sum(1 for r in results if r.cached)
        executions = sum(r.report.executions for r in results if not r.cached)
        self.context.metrics.review_tested(hits, len(results) - hits, executions)

    def _gone(self, client: RepoClient, head_sha: str) -> str | None:
        """Why the pull request cannot be reviewed any more, or None when it still can."""
        try:
            pr = client.pull(self.request.number)
        except GitHubNotFound:
            return "the pull request or its repository no longer exists"
        if pr.get("state") != "open":
            return "the pull request was closed (its branch deleted?)"
        now = str(pr["head"]["sha"])
        if now != head_sha:
            return f"the branch moved to {now[:7]}"
        return None

    def _abandon_or_raise(self, client: RepoClient, head_sha: str, exc: GitHubNotFound) -> str:
        gone = self._gone(client, head_sha)
        if gone is None:
            raise exc
        return self._abandoned(gone, exc)

    def _abandoned(self, why: str, exc: Exception) -> str:
        log.warning("review %s abandoned: %s (%s)", self.request.logical_id, why, exc)
        return f"abandoned: {why}"

    def _close_check(
        self,
        publisher: Publisher,
        head_sha: str,
        check_id: int,
        exc: Exception,
        gone: str | None = None,
    ) -> None:
        if gone is not None:
            title, summary = "Review abandoned", f"codebias stopped this review: {gone}."
        elif isinstance(exc, JobTimedOut):
            title = "The review timed out"
            summary = (
                f"codebias stopped this review: {exc}. Push again or comment "
                "`/codebias recheck` to retry; a smaller pull request reviews faster."
            )
        else:
            title = "The review failed"
            failure = redacted(f"{type(exc).__name__}: {exc}", secrets_in(self.context.env))
            summary = (
                f"codebias could not finish this review: {code_span(failure)}. "
                "Failed reviews are retried with backoff."
            )
        try:
            publisher.neutral_check(head_sha, title, summary, check_id)
        except (GitHubError, OSError) as again:
            log.warning(
                "review %s: check run %d left open: %s", self.request.logical_id, check_id, again
            )

    def _done(self, message: str) -> str:
        return message

    def _command_on_github(self, client: RepoClient) -> ReviewRequest | str:
        """The comment command as GitHub has it, or why there is none to act on.

        A delivery signed with a leaked webhook secret can name any comment, author and text:
        the command, its author (whose permission decides) and its pull request are read
        from the comment itself, and a comment older than the dedupe window (a replay that
        window no longer catches) is not acted on."""
        request = self.request
        comment = None if request.comment_id is None else client.issue_comment(request.comment_id)
        if comment is None:
            return f"comment {request.comment_id} is not on GitHub"
        if not str(comment.get("issue_url") or "").endswith(f"/issues/{request.number}"):
            return f"comment {request.comment_id} is not on pull request #{request.number}"
        user = comment.get("user") or {}
        if user.get("type") == "Bot":
            return f"comment {request.comment_id} was written by a bot"
        age = _seconds_since(str(comment.get("created_at") or ""))
        if age is None or age > self.settings.delivery_ttl:
            return f"comment {request.comment_id} is too old to act on (or undated)"
        parsed = parse_command(str(comment.get("body") or ""))
        if parsed is None:
            return f"comment {request.comment_id} holds no /codebias command"
        command, target, reason = parsed
        return dataclasses.replace(
            request,
            command=command,
            target=target,
            reason=reason,
            commenter=str(user.get("login") or ""),
        )

    def _refusal(self, client: RepoClient, pr: Json) -> str | None:
        """Why a comment command is not carried out; None when it is."""
        request = self.request
        who = f"@{request.commenter}"
        if request.command == "refuse":
            return f"{who} {request.reason}"
        if client.permission(request.commenter or "") not in WRITE_ACCESS:
            return f"{who} `/codebias {request.command}` needs write access to this repository."
        if request.command == "fix" and not load_or_default(client, request).mitigation.enabled:
            return (
                f"{who} fixes are switched off by this repository's policy "
                "(`mitigation.enabled: false` in `.codebias.yml`)."
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
        if not policy.mitigation.enabled:
            return
        if self.deadline.testing_over():
            outcome.warnings.append(f"no fixes suggested: {self.deadline.testing.why}")
            return
        from bot.suggest import suggest_fixes

        target = self.request.target if self.request.command == "fix" else None
        chosen = [
            r
            for r in outcome.biased
            if target is None
            or target in (r.report.qualname, f"{r.report.path}::{r.report.qualname}")
        ]
        if self.request.command != "fix":
            chosen = chosen[:MAX_AUTOMATIC_FIXES]
        # An explicit `/codebias fix` asks afresh; automatic ones reuse earlier answers.
        cache = None if self.request.command == "fix" else self.context.cache
        provider = self._provider(policy)  # None: the mechanical rules alone
        secrets = secrets_in(self.context.env)
        try:
            suggest_fixes(reviewer, client, outcome, chosen, provider, cache, secrets)
        finally:
            if provider is not None:
                provider.close()  # its keep-alive connections, not left to the collector


def _seconds_since(stamp: str) -> float | None:
    """Seconds since GitHub's ISO 8601 time `stamp` (`2026-05-01T12:00:00Z`); None if unreadable."""
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if then.tzinfo is None:
        return None
    return (datetime.now(UTC) - then).total_seconds()


def load_or_default(client: RepoClient, request: ReviewRequest) -> Policy:
    try:
        return load_policy(f"{request.owner}/{request.repo}", policy_reader(client))
    except PolicyError:
        from config.policy import default_policy

        return default_policy()
