"""What went wrong talking to GitHub, in terms the job and an operator can act on.

    GitHubError            a call failed; the message names the method, the URL and the answer
    ├── GitHubNotFound     404 / 410: the pull request, branch or file is gone
    └── GitHubUnavailable  worth retrying later: 5xx, a timeout, no connection, or a rate
                           limit (403/429 with Retry-After, or no requests left); carries the
                           seconds to wait (`retry_after`)

githubkit raises its own exceptions, whose `str()` is empty; `translate` turns them into
these at the client's single request method (bot.github).
"""

from __future__ import annotations

from typing import Any

import httpx
from githubkit.exception import (
    GitHubException,
    RateLimitExceeded,
    RequestError,
    RequestFailed,
    RequestTimeout,
)

# A 5xx or a broken connection with no hint from GitHub: try again after this long.
DEFAULT_RETRY_AFTER = 10.0
# A 429 without Retry-After: GitHub's documented advice is to wait at least a minute.
RATE_LIMIT_RETRY_AFTER = 60.0


class GitHubError(Exception):
    def __init__(
        self,
        method: str,
        url: str,
        status: int | None,
        detail: str,
        retry_after: float | None = None,
    ) -> None:
        answer = f"answered {status}" if status is not None else "failed"
        super().__init__(f"GitHub {method} {url} {answer}: {detail}")
        self.method = method
        self.url = url
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


class GitHubNotFound(GitHubError):
    pass


class GitHubUnavailable(GitHubError):
    retry_after: float


def translate(exc: GitHubException) -> GitHubError:
    if isinstance(exc, RequestFailed):
        request, status = exc.request, int(exc.response.status_code)
        detail = _message(exc.response.raw_response)
        if isinstance(exc, RateLimitExceeded):
            wait = max(exc.retry_after.total_seconds(), 1.0)
            return GitHubUnavailable(
                request.method, str(request.url), status, f"rate limited ({detail})", wait
            )
        header = exc.response.headers.get("retry-after", "")
        hinted = float(header) if header.isdigit() else None
        if status in (404, 410):
            return GitHubNotFound(request.method, str(request.url), status, detail)
        if status == 429:
            wait = hinted if hinted is not None else RATE_LIMIT_RETRY_AFTER
            return GitHubUnavailable(request.method, str(request.url), status, detail, wait)
        if status >= 500:
            wait = hinted if hinted is not None else DEFAULT_RETRY_AFTER
            return GitHubUnavailable(request.method, str(request.url), status, detail, wait)
        return GitHubError(request.method, str(request.url), status, detail)
    if isinstance(exc, RequestTimeout):
        return GitHubUnavailable(
            exc.request.method, str(exc.request.url), None, "timed out", DEFAULT_RETRY_AFTER
        )
    if isinstance(exc, RequestError):
        inner: Any = exc.exc
        if isinstance(inner, GitHubException):
            return translate(inner)  # e.g. the installation token request inside the auth flow
        if isinstance(inner, GitHubError):
            return inner
        sent = _request_of(inner)
        method, url = (sent.method, str(sent.url)) if sent is not None else ("?", "?")
        return GitHubUnavailable(method, url, None, repr(inner), DEFAULT_RETRY_AFTER)
    return GitHubError("?", "?", None, repr(exc))


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.reason_phrase or "no message"
    if isinstance(data, dict) and data.get("message"):
        return str(data["message"])[:300]
    return response.reason_phrase or "no message"


def _request_of(exc: object) -> httpx.Request | None:
    try:
        request = exc.request  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # httpx raises RuntimeError when it has none
        return None
    return request if isinstance(request, httpx.Request) else None
