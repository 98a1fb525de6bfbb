"""GitHub I/O for the review job, through the REST API only (no clone), via githubkit.

The App authenticates with its JWT (`AppAuthStrategy`) and acts as an installation; githubkit
caches installation tokens in its cache strategy (Redis when the service has one, so that all
workers share a token until it expires, else this process's memory). Request bodies are
validated against GitHub's OpenAPI schema by githubkit (`rest_api_validate_body`, left on).
Responses are read as plain JSON: the job uses a few fields of each.

A failed call raises a `GitHubError` (bot.github_errors) naming the method and URL. The
client itself never waits and retries (githubkit's `auto_retry` is off): a 5xx, a timeout or
a rate limit fails the job with the wait GitHub asked for, and the queue runs it again after
that wait without holding a worker slot meanwhile.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Callable
from typing import Any, Final, cast

import httpx
from githubkit import AppAuthStrategy, GitHub, Response, TokenAuthStrategy
from githubkit.cache import BaseCacheStrategy, MemCacheStrategy, RedisCacheStrategy
from githubkit.exception import GitHubException
from redis import Redis

from analysis.errors import SourceError
from analysis.source.reading import decode_source
from bot.github_errors import GitHubError, GitHubNotFound, translate
from bot.settings import Settings
from config.layering import Fetch
from config.policy import PolicyError

API_VERSION: Final = "2022-11-28"
Json = dict[str, Any]


def _json_list(response: Response[Any]) -> list[Json]:
    data: Any = response.json()
    if not isinstance(data, list):
        raise TypeError(f"expected a JSON list from {response.raw_request.url}")
    return data


def _obj(response: Response[Any]) -> Json:
    data: Any = response.json()
    if not isinstance(data, dict):
        raise TypeError(f"expected a JSON object from {response.raw_request.url}")
    return data


# Called with (installation id, requests remaining) whenever GitHub reports its rate limit.
RateLimitObserver = Callable[[int, int], None]


class _GitHub(GitHub[Any]):
    """githubkit's client, with every failure turned into a `GitHubError` that names its URL
    (githubkit's own exceptions print as an empty string)."""

    def request(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().request(*args, **kwargs)
        except GitHubException as exc:
            raise translate(exc) from exc


class GitHubApp:
    def __init__(
        self,
        settings: Settings,
        redis: Redis | None = None,
        on_rate_limit: RateLimitObserver | None = None,
    ) -> None:
        cache: BaseCacheStrategy = (
            RedisCacheStrategy(redis, prefix="codebias:githubkit")
            if redis is not None
            else MemCacheStrategy()
        )
        self.on_rate_limit = on_rate_limit
        self.github = _GitHub(
            AppAuthStrategy(settings.app_id, settings.private_key),
            base_url=settings.api_url,
            cache_strategy=cache,
            # Reviews must see the latest comments and check runs, never a cached page.
            http_cache=False,
            timeout=30.0,
            rest_api_validate_body=True,
            # Never sleep inside a job: the queue retries after the wait GitHub asks for.
            auto_retry=False,
        )

    def installation_id(self, owner: str, repo: str) -> int:
        response = self.github.rest(API_VERSION).apps.get_repo_installation(owner, repo)
        return int(response.json()["id"])

    def repo(self, owner: str, repo: str, installation_id: int) -> RepoClient:
        config = self.github.config
        if self.on_rate_limit is not None:
            config = dataclasses.replace(
                config, event_hooks={"response": [self._rate_limit_hook(installation_id)]}
            )
        installed = _GitHub(self.github.auth.as_installation(installation_id), config=config)
        return RepoClient(installed, owner, repo)

    def _rate_limit_hook(self, installation_id: int) -> Callable[[httpx.Response], None]:
        observe = self.on_rate_limit
        assert observe is not None

        def hook(response: httpx.Response) -> None:
            remaining = response.headers.get("x-ratelimit-remaining", "")
            if remaining.isdigit():
                observe(installation_id, int(remaining))

        return hook


def token_client(token: str, api_url: str, owner: str, repo: str) -> RepoClient:
    """One repository as a token sees it: GITHUB_TOKEN in a workflow (`codebias review`)."""
    github = _GitHub(
        TokenAuthStrategy(token),
        base_url=api_url,
        http_cache=False,
        timeout=30.0,
        rest_api_validate_body=True,
    )
    return RepoClient(github, owner, repo)


class RepoClient:
    """One repository, as one installation (or one token) sees it."""

    def __init__(self, github: GitHub[Any], owner: str, repo: str) -> None:
        self.github = github
        self.rest = github.rest(API_VERSION)
        self.owner = owner
        self.name = repo

    def __enter__(self) -> RepoClient:
        """Keep one HTTP client (and its connections) for everything done inside the block,
        instead of githubkit's new client per request."""
        self.github.__enter__()  # type: ignore[no-untyped-call]
        return self

    def __exit__(self, *exc: object) -> None:
        self.github.__exit__()

    def _all(self, request: Callable[..., Response[Any]], **kwargs: Any) -> list[Json]:
        pages = self.github.rest.paginate(request, map_func=_json_list, per_page=100, **kwargs)
        return list(pages)

    # reading

    def info(self) -> Json:
        return _obj(self.rest.repos.get(self.owner, self.name))

    def pull(self, number: int) -> Json:
        return _obj(self.rest.pulls.get(self.owner, self.name, number))

    def pull_files(self, number: int) -> list[Json]:
        return self._all(
            self.rest.pulls.list_files, owner=self.owner, repo=self.name, pull_number=number
        )

    def file_text(
        self, path: str, ref: str | None = None, repo: str | None = None, owner: str | None = None
    ) -> str | None:
        """The file's text at `ref` (default branch when None); None when it does not exist."""
        kwargs: dict[str, Any] = {} if ref is None else {"ref": ref}
        try:
            response = self.rest.repos.get_content(
                owner or self.owner, repo or self.name, path, **kwargs
            )
        except GitHubNotFound:
            return None
        data: Any = response.json()
        if not isinstance(data, dict) or data.get("type") != "file":
            return None
        if data.get("encoding") != "base64":
            raise FileTooLarge(path, int(data.get("size") or 0))
        try:
            raw = base64.b64decode(data.get("content") or "")
        except binascii.Error as exc:
            raise UnreadableFile(path, str(exc)) from None
        if not path.endswith(".py"):
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UnreadableFile(path, str(exc)) from None
        try:
            return decode_source(raw, path)  # PEP 263 coding lines and BOMs, as Python reads
        except SourceError as exc:
            raise UnreadableFile(path, exc.reason) from None

    def tree(self, sha: str) -> tuple[list[Json], bool]:
        """Every entry of the commit's tree (recursive), and whether GitHub truncated it."""
        data = _obj(self.rest.git.get_tree(self.owner, self.name, sha, recursive="1"))
        entries: list[Json] = [e for e in data.get("tree") or [] if isinstance(e, dict)]
        return entries, bool(data.get("truncated"))

    def blob(self, sha: str) -> bytes:
        """A blob's bytes (blobs are content-addressed: the same sha is always the same bytes)."""
        data = _obj(self.rest.git.get_blob(self.owner, self.name, sha))
        try:
            return base64.b64decode(data.get("content") or "")
        except binascii.Error as exc:
            raise UnreadableFile(sha, str(exc)) from None

    def issue_comment(self, comment_id: int) -> Json | None:
        """A comment on an issue or pull request of this repository; None when there is none."""
        try:
            return _obj(self.rest.issues.get_comment(self.owner, self.name, comment_id))
        except GitHubNotFound:
            return None

    def permission(self, username: str) -> str:
        """admin | maintain | write | triage | read | none."""
        try:
            data = _obj(
                self.rest.repos.get_collaborator_permission_level(self.owner, self.name, username)
            )
        except GitHubNotFound:
            return "none"
        role = str(data.get("role_name") or "")
        return role if role in ("maintain", "triage") else str(data.get("permission") or "none")

    def check_runs(self, sha: str, name: str) -> list[Json]:
        data = _obj(
            self.rest.checks.list_for_ref(
                self.owner, self.name, sha, check_name=name, filter_="latest"
            )
        )
        runs: list[Json] = list(data.get("check_runs") or [])
        return runs

    def review_comments(self, number: int) -> list[Json]:
        return self._all(
            self.rest.pulls.list_review_comments,
            owner=self.owner,
            repo=self.name,
            pull_number=number,
        )

    def reviews(self, number: int) -> list[Json]:
        return self._all(
            self.rest.pulls.list_reviews, owner=self.owner, repo=self.name, pull_number=number
        )

    # writing

    def create_check_run(self, **body: Any) -> Json:
        return _obj(self.rest.checks.create(self.owner, self.name, data=cast(Any, body)))

    def update_check_run(self, check_run_id: int, **body: Any) -> Json:
        return _obj(
            self.rest.checks.update(self.owner, self.name, check_run_id, data=cast(Any, body))
        )

    def create_review(self, number: int, **body: Any) -> Json:
        return _obj(
            self.rest.pulls.create_review(self.owner, self.name, number, data=cast(Any, body))
        )

    def update_review_comment(self, comment_id: int, body: str) -> None:
        self.rest.pulls.update_review_comment(self.owner, self.name, comment_id, body=body)

    def comment(self, number: int, body: str) -> None:
        self.rest.issues.create_comment(self.owner, self.name, number, body=body)


def policy_reader(client: RepoClient) -> Fetch:
    """config.layering's reader: a file on a repository's default branch, None when it is
    absent or outside what the installation (or token) may read: the organisation's .github
    repository may be, and then it is no layer."""

    def fetch(repo: str, path: str) -> str | None:
        owner, name = repo.split("/", 1)
        try:
            return client.file_text(path, None, repo=name, owner=owner)
        except GitHubError as exc:
            if exc.status == 403:
                return None
            raise
        except (FileTooLarge, UnreadableFile) as exc:  # a policy file, but not a usable one
            raise PolicyError(f"{repo}/{exc}") from None

    return fetch


class FileTooLarge(Exception):
    def __init__(self, path: str, size: int) -> None:
        super().__init__(f"{path}: {size} bytes, too large for the contents API")
        self.path = path
        self.size = size


class UnreadableFile(Exception):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: not readable as text ({reason})")
        self.path = path


def preload(settings: Settings) -> None:
    """Import what githubkit loads lazily on each endpoint's first call (its response and
    body models: about two seconds), by calling every endpoint the job uses against an
    answering machine that says 404. `codebias worker` does this once before it forks a work
    horse per job, so that no job pays for it again."""
    offline = httpx.MockTransport(lambda request: httpx.Response(404, json={"message": "-"}))
    app = _GitHub(
        AppAuthStrategy(settings.app_id, settings.private_key),
        base_url="http://preload.invalid",
        transport=offline,
        auto_retry=False,
        http_cache=False,
    )
    client = RepoClient(_GitHub(app.auth.as_installation(1), config=app.config), "o", "r")
    calls: list[Callable[[], object]] = [
        lambda: app.rest(API_VERSION).apps.get_repo_installation("o", "r"),
        lambda: client.info(),
        lambda: client.pull(1),
        lambda: client.pull_files(1),
        lambda: client.file_text("f", "sha"),
        lambda: client.tree("sha"),
        lambda: client.blob("sha"),
        lambda: client.permission("u"),
        lambda: client.issue_comment(1),
        lambda: client.check_runs("sha", "codebias"),
        lambda: client.review_comments(1),
        lambda: client.reviews(1),
        lambda: client.create_check_run(name="n", head_sha="s", status="in_progress"),
        lambda: client.update_check_run(1, status="completed", conclusion="neutral"),
        lambda: client.create_review(1, commit_id="s", event="COMMENT", body="b", comments=[]),
        lambda: client.update_review_comment(1, "b"),
        lambda: client.comment(1, "b"),
    ]
    for call in calls:
        try:
            call()
        except (GitHubError, ValueError):  # the 404s (and body checks) are the point
            continue
