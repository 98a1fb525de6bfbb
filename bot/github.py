"""GitHub I/O for the review job, through the REST API only (no clone), via githubkit.

The App authenticates with its JWT (`AppAuthStrategy`) and acts as an installation; githubkit
caches installation tokens in its cache strategy (Redis when the service has one, so that all
workers share a token until it expires, else this process's memory). Request bodies are
validated against GitHub's OpenAPI schema by githubkit (`rest_api_validate_body`, left on).
Responses are read as plain JSON: the job uses a few fields of each.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any, Final, cast

from githubkit import AppAuthStrategy, GitHub, Response, TokenAuthStrategy
from githubkit.cache import BaseCacheStrategy, MemCacheStrategy, RedisCacheStrategy
from githubkit.exception import RequestFailed
from redis import Redis

from analysis.errors import SourceError
from analysis.source import decode_source
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


def _status(exc: RequestFailed) -> int:
    return int(exc.response.status_code)


class GitHubApp:
    def __init__(self, settings: Settings, redis: Redis | None = None) -> None:
        cache: BaseCacheStrategy = (
            RedisCacheStrategy(redis, prefix="codebias:githubkit")
            if redis is not None
            else MemCacheStrategy()
        )
        self.github = GitHub(
            AppAuthStrategy(settings.app_id, settings.private_key),
            base_url=settings.api_url,
            cache_strategy=cache,
            # Reviews must see the latest comments and check runs, never a cached page.
            http_cache=False,
            timeout=30.0,
            rest_api_validate_body=True,
        )

    def installation_id(self, owner: str, repo: str) -> int:
        response = self.github.rest(API_VERSION).apps.get_repo_installation(owner, repo)
        return int(response.json()["id"])

    def repo(self, owner: str, repo: str, installation_id: int) -> RepoClient:
        installed = self.github.with_auth(self.github.auth.as_installation(installation_id))
        return RepoClient(installed, owner, repo)


def token_client(token: str, api_url: str, owner: str, repo: str) -> RepoClient:
    """One repository as a token sees it: GITHUB_TOKEN in a workflow (`codebias review`)."""
    github = GitHub(
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
        except RequestFailed as exc:
            if _status(exc) == 404:
                return None
            raise
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

    def permission(self, username: str) -> str:
        """admin | maintain | write | triage | read | none."""
        try:
            data = _obj(
                self.rest.repos.get_collaborator_permission_level(self.owner, self.name, username)
            )
        except RequestFailed as exc:
            if _status(exc) == 404:
                return "none"
            raise
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
        except RequestFailed as exc:
            if _status(exc) == 403:
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
