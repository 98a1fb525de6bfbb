"""A small, real GitHub REST server on 127.0.0.1 for the bot's tests.

It serves the endpoints the bot uses, records every request, and is strict where GitHub is:
JWTs are verified with the App's public key, installation tokens must match, request bodies
are validated against GitHub's OpenAPI schema (the generated githubkit models of the
2022-11-28 description, independently of the client's own validation), more than 50
annotations per call and review comments on lines outside the diff get 422, as on GitHub.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import jwt
from githubkit.compat import type_validate_python
from githubkit.versions.v2022_11_28 import models
from pydantic import ValidationError

from bot.changes import parse_patch

BOT_USER = {"login": "codebias[bot]", "id": 900, "type": "Bot"}
TOKEN = "ghs_installationtoken0123456789"

BODY_MODELS: dict[tuple[str, str], Any] = {
    ("POST", "check-runs"): (
        models.ReposOwnerRepoCheckRunsPostBodyOneof0 | models.ReposOwnerRepoCheckRunsPostBodyOneof1
    ),
    ("PATCH", "check-run"): (
        models.ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof0
        | models.ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof1
    ),
    ("POST", "reviews"): models.ReposOwnerRepoPullsPullNumberReviewsPostBody,
    ("PATCH", "review-comment"): models.ReposOwnerRepoPullsCommentsCommentIdPatchBody,
    ("POST", "issue-comments"): models.ReposOwnerRepoIssuesIssueNumberCommentsPostBody,
}


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    status: int


def as_bytes(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode()


def git_sha(data: bytes) -> str:
    """A blob's id as git computes it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    owner: str
    name: str
    default_branch: str = "main"
    files: dict[tuple[str, str], str | bytes] = field(default_factory=dict)  # (ref, path) -> text
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    pull_files: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)
    check_runs: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    issue_comments: list[dict[str, Any]] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


class FakeGitHub:
    def __init__(self, public_key: str, app_id: str, installation_id: int = 4242) -> None:
        self.public_key = public_key
        self.app_id = app_id
        self.installation_id = installation_id
        self.repos: dict[str, Repo] = {}
        self.requests: list[Recorded] = []
        self.lock = threading.RLock()
        self.ids = itertools.count(1000)
        self.tokens_issued = 0
        self.page_size_cap = 100
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> FakeGitHub:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- scenario helpers ---------------------------------------------------------------

    def repo(self, full_name: str) -> Repo:
        with self.lock:
            if full_name not in self.repos:
                owner, name = full_name.split("/")
                self.repos[full_name] = Repo(owner, name)
            return self.repos[full_name]

    def calls(self, method: str, pattern: str) -> list[Recorded]:
        rx = re.compile(pattern)
        with self.lock:
            return [r for r in self.requests if r.method == method and rx.search(r.path)]

    # -- HTTP ---------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _go(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                status, payload, headers = fake.dispatch(
                    self.command,
                    unquote(parts.path),
                    parse_qs(parts.query),
                    body,
                    self.headers.get("authorization", ""),
                )
                with fake.lock:
                    fake.requests.append(
                        Recorded(
                            self.command, unquote(parts.path), parse_qs(parts.query), body, status
                        )
                    )
                data = b"" if payload is None else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json; charset=utf-8")
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _go  # noqa: N815

        return Handler

    def dispatch(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, auth: str
    ) -> tuple[int, Any, dict[str, str]]:
        for verb, pattern, handler, kind in self.routes():
            if verb != method:
                continue
            match = re.fullmatch(pattern, path)
            if match is None:
                continue
            if kind == "jwt":
                problem = self._check_jwt(auth)
            else:
                problem = (
                    None if auth == f"token {TOKEN}" or auth == f"Bearer {TOKEN}" else "bad token"
                )
            if problem:
                return 401, {"message": problem}, {}
            with self.lock:
                return handler(match, query, body)
        return 404, {"message": "Not Found", "path": path}, {}

    def _check_jwt(self, auth: str) -> str | None:
        if not auth.startswith("Bearer "):
            return "JWT required"
        try:
            claims = jwt.decode(auth[7:], self.public_key, algorithms=["RS256"])
        except jwt.PyJWTError as exc:
            return f"bad JWT: {exc}"
        return None if str(claims.get("iss")) == self.app_id else "wrong issuer"

    def routes(self) -> list[tuple[str, str, Callable[..., tuple[int, Any, dict[str, str]]], str]]:
        r = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
        return [
            ("POST", r"/app/installations/(?P<id>\d+)/access_tokens", self.access_token, "jwt"),
            ("GET", r + r"/installation", self.installation, "jwt"),
            ("GET", r, self.get_repo, "token"),
            ("GET", r + r"/pulls/(?P<n>\d+)", self.get_pull, "token"),
            ("GET", r + r"/pulls/(?P<n>\d+)/files", self.get_pull_files, "token"),
            ("GET", r + r"/contents/(?P<path>.+)", self.get_contents, "token"),
            ("GET", r + r"/git/trees/(?P<sha>[^/]+)", self.get_tree, "token"),
            ("GET", r + r"/git/blobs/(?P<sha>[0-9a-f]{40})", self.get_blob, "token"),
            ("GET", r + r"/collaborators/(?P<user>[^/]+)/permission", self.get_permission, "token"),
            ("GET", r + r"/commits/(?P<ref>[^/]+)/check-runs", self.list_check_runs, "token"),
            ("POST", r + r"/check-runs", self.create_check_run, "token"),
            ("PATCH", r + r"/check-runs/(?P<id>\d+)", self.update_check_run, "token"),
            ("GET", r + r"/pulls/(?P<n>\d+)/comments", self.list_review_comments, "token"),
            ("GET", r + r"/pulls/(?P<n>\d+)/reviews", self.list_reviews, "token"),
            ("POST", r + r"/pulls/(?P<n>\d+)/reviews", self.create_review, "token"),
            ("PATCH", r + r"/pulls/comments/(?P<id>\d+)", self.update_review_comment, "token"),
            ("POST", r + r"/issues/(?P<n>\d+)/comments", self.create_issue_comment, "token"),
            ("GET", r + r"/issues/comments/(?P<id>\d+)", self.get_issue_comment, "token"),
        ]

    # -- helpers ------------------------------------------------------------------------

    def _repo(self, m: re.Match[str]) -> Repo | None:
        return self.repos.get(f"{m['owner']}/{m['repo']}")

    def _validate(self, key: tuple[str, str], body: Any) -> tuple[int, Any, dict[str, str]] | None:
        try:
            type_validate_python(BODY_MODELS[key], body)
        except ValidationError as exc:
            return 422, {"message": "Invalid request", "errors": json.loads(exc.json())}, {}
        return None

    def _page(
        self, items: list[Any], query: dict[str, list[str]], path: str
    ) -> tuple[int, Any, dict[str, str]]:
        per_page = min(int(query.get("per_page", ["30"])[0]), self.page_size_cap)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(items):
            headers["link"] = f'<{self.url}{path}?per_page={per_page}&page={page + 1}>; rel="next"'
        return 200, chunk, headers

    # -- endpoints ----------------------------------------------------------------------

    def access_token(self, m: re.Match[str], q: Any, body: Any) -> tuple[int, Any, dict[str, str]]:
        if int(m["id"]) != self.installation_id:
            return 404, {"message": "Not Found"}, {}
        self.tokens_issued += 1
        expires = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return (
            201,
            {
                "token": TOKEN,
                "expires_at": expires,
                "permissions": {},
                "repository_selection": "all",
            },
            {},
        )

    def installation(self, m: re.Match[str], q: Any, body: Any) -> tuple[int, Any, dict[str, str]]:
        if self._repo(m) is None:
            return 404, {"message": "Not Found"}, {}
        return 200, {"id": self.installation_id, "app_id": int(self.app_id)}, {}

    def get_repo(self, m: re.Match[str], q: Any, body: Any) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        if repo is None:
            return 404, {"message": "Not Found"}, {}
        return (
            200,
            {"name": repo.name, "full_name": repo.full_name, "default_branch": repo.default_branch},
            {},
        )

    def get_pull(self, m: re.Match[str], q: Any, body: Any) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        pr = repo.pulls.get(int(m["n"])) if repo else None
        return (200, pr, {}) if pr else (404, {"message": "Not Found"}, {})

    def get_pull_files(
        self, m: re.Match[str], q: Any, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        if repo is None or int(m["n"]) not in repo.pull_files:
            return 404, {"message": "Not Found"}, {}
        return self._page(
            repo.pull_files[int(m["n"])], q, f"/repos/{repo.full_name}/pulls/{m['n']}/files"
        )

    def get_contents(
        self, m: re.Match[str], q: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        if repo is None:
            return 404, {"message": "Not Found"}, {}
        ref = q.get("ref", [repo.default_branch])[0]
        text = repo.files.get((ref, m["path"]))
        if text is None:
            return 404, {"message": "Not Found"}, {}
        data = as_bytes(text)
        return (
            200,
            {
                "type": "file",
                "encoding": "base64",
                "size": len(data),
                "name": m["path"].rsplit("/", 1)[-1],
                "path": m["path"],
                "content": base64.encodebytes(data).decode(),
                "sha": "0" * 40,
            },
            {},
        )

    def get_tree(
        self, m: re.Match[str], q: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        ref = m["sha"]
        paths = sorted(p for r, p in (repo.files if repo else {}) if r == ref)
        if repo is None or not paths:
            return 404, {"message": "Not Found"}, {}
        folders = sorted(
            {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
        )
        entries = [{"path": f, "mode": "040000", "type": "tree", "sha": "1" * 40} for f in folders]
        for path in paths:
            data = as_bytes(repo.files[(ref, path)])
            entries.append(
                {"path": path, "mode": "100644", "type": "blob"}
                | {"sha": git_sha(data), "size": len(data)}
            )
        return 200, {"sha": ref, "url": "", "tree": entries, "truncated": False}, {}

    def get_blob(self, m: re.Match[str], q: Any, body: Any) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        for text in (repo.files.values() if repo else []):
            data = as_bytes(text)
            if git_sha(data) == m["sha"]:
                content = base64.encodebytes(data).decode()
                blob = {"sha": m["sha"], "size": len(data), "encoding": "base64"}
                return 200, blob | {"content": content}, {}
        return 404, {"message": "Not Found"}, {}

    def get_permission(
        self, m: re.Match[str], q: Any, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        perm = repo.permissions.get(m["user"]) if repo else None
        if perm is None:
            return 404, {"message": "Not Found"}, {}
        return 200, {"permission": perm, "role_name": perm, "user": {"login": m["user"]}}, {}

    def list_check_runs(
        self, m: re.Match[str], q: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        runs = [r for r in (repo.check_runs if repo else []) if r["head_sha"] == m["ref"]]
        if "check_name" in q:
            runs = [r for r in runs if r["name"] == q["check_name"][0]]
        return 200, {"total_count": len(runs), "check_runs": runs}, {}

    def create_check_run(
        self, m: re.Match[str], q: Any, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        bad = self._validate(("POST", "check-runs"), body)
        if bad:
            return bad
        output = body.get("output") or {}
        if len(output.get("annotations") or []) > 50:
            return 422, {"message": "more than 50 annotations"}, {}
        run = {
            "id": next(self.ids),
            "name": body["name"],
            "head_sha": body["head_sha"],
            "status": body.get("status", "queued"),
            "conclusion": body.get("conclusion"),
            "external_id": body.get("external_id"),
            "output": dict(output),
            "app": {"id": int(self.app_id)},
            "annotations": list(output.get("annotations") or []),
        }
        self.repos[f"{m['owner']}/{m['repo']}"].check_runs.append(run)
        return 201, run, {}

    def update_check_run(
        self, m: re.Match[str], q: Any, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        bad = self._validate(("PATCH", "check-run"), body)
        if bad:
            return bad
        repo = self._repo(m)
        run = next((r for r in (repo.check_runs if repo else []) if r["id"] == int(m["id"])), None)
        if run is None:
            return 404, {"message": "Not Found"}, {}
        output = body.get("output") or {}
        if len(output.get("annotations") or []) > 50:
            return 422, {"message": "more than 50 annotations"}, {}
        run["annotations"].extend(output.get("annotations") or [])
        run["output"].update({k: v for k, v in output.items() if k != "annotations"})
        for key in ("status", "conclusion"):
            if key in body:
                run[key] = body[key]
        return 200, run, {}

    def list_review_comments(
        self, m: re.Match[str], q: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        items = [
            c for c in (repo.review_comments if repo else []) if c["pull_number"] == int(m["n"])
        ]
        return self._page(items, q, f"/repos/{m['owner']}/{m['repo']}/pulls/{m['n']}/comments")

    def list_reviews(
        self, m: re.Match[str], q: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        items = [r for r in (repo.reviews if repo else []) if r["pull_number"] == int(m["n"])]
        return self._page(items, q, f"/repos/{m['owner']}/{m['repo']}/pulls/{m['n']}/reviews")

    def create_review(self, m: re.Match[str], q: Any, body: Any) -> tuple[int, Any, dict[str, str]]:
        bad = self._validate(("POST", "reviews"), body)
        if bad:
            return bad
        repo = self._repo(m)
        number = int(m["n"])
        if repo is None or number not in repo.pulls:
            return 404, {"message": "Not Found"}, {}
        diff_lines = {
            f["filename"]: parse_patch(f["filename"], f.get("patch") or "")[1]
            for f in repo.pull_files.get(number, [])
        }
        for c in body.get("comments") or []:
            lines = diff_lines.get(c["path"], set())
            wanted = [c.get("line"), c.get("start_line")]
            if any(n is not None and n not in lines for n in wanted) or c.get("line") is None:
                return (
                    422,
                    {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]},
                    {},
                )
        review = {
            "id": next(self.ids),
            "pull_number": number,
            "body": body.get("body") or "",
            "user": BOT_USER,
            "commit_id": body.get("commit_id"),
            "state": "COMMENTED",
        }
        repo.reviews.append(review)
        for c in body.get("comments") or []:
            repo.review_comments.append(
                {
                    "id": next(self.ids),
                    "pull_number": number,
                    "pull_request_review_id": review["id"],
                    "path": c["path"],
                    "line": c["line"],
                    "start_line": c.get("start_line"),
                    "side": "RIGHT",
                    "body": c["body"],
                    "user": BOT_USER,
                    "commit_id": body.get("commit_id"),
                }
            )
        return 200, review, {}

    def update_review_comment(
        self, m: re.Match[str], q: Any, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        bad = self._validate(("PATCH", "review-comment"), body)
        if bad:
            return bad
        repo = self._repo(m)
        comment = next(
            (c for c in (repo.review_comments if repo else []) if c["id"] == int(m["id"])), None
        )
        if comment is None:
            return 404, {"message": "Not Found"}, {}
        if comment["user"]["type"] != "Bot":
            return 403, {"message": "not yours"}, {}
        comment["body"] = body["body"]
        return 200, comment, {}

    def get_issue_comment(
        self, m: re.Match[str], q: Any, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        repo = self._repo(m)
        comment = next(
            (c for c in (repo.issue_comments if repo else []) if c["id"] == int(m["id"])), None
        )
        if comment is None:
            return 404, {"message": "Not Found"}, {}
        return 200, comment, {}

    def create_issue_comment(
        self, m: re.Match[str], q: Any, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        bad = self._validate(("POST", "issue-comments"), body)
        if bad:
            return bad
        repo = self._repo(m)
        comment = {
            "id": next(self.ids),
            "issue_number": int(m["n"]),
            "issue_url": f"{self.url}/repos/{m['owner']}/{m['repo']}/issues/{m['n']}",
            "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "body": body["body"],
            "user": BOT_USER,
        }
        if repo is not None:
            repo.issue_comments.append(comment)
        return 201, comment, {}
