"""Pull request scenarios for the bot's tests, built on GitHub's published example payloads
(`payloads/`, from @octokit/webhooks-examples) adapted to each scenario."""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fakegithub import FakeGitHub
from signing import github_signature

PAYLOADS = Path(__file__).parent / "payloads"
REPO = "octo-org/hiring"
INSTALLATION = 4242
PATH = "hiring/screening.py"

BASE = """\
def salary_offer(candidate):
    base = 50000
    if candidate["experience"] > 5:
        base += 10000
    return base
"""

HEAD = """\
def salary_offer(candidate):
    base = 50000
    if candidate["experience"] > 5:
        base += 10000
    if candidate["gender"] == "male":
        base += 5000
    return base


def eligible_for_training(applicant_age, score):
    if applicant_age > 50:
        return False
    return score >= 70


def shortlist(score, years_experience):
    return score >= 60 and years_experience >= 2
"""

# The second push removes the gender bonus; the age rule stays.
HEAD_FIXED = HEAD.replace('    if candidate["gender"] == "male":\n        base += 5000\n', "")


def sha_of(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text())
    return data


def patch_of(old: str, new: str) -> str:
    lines = list(
        difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), n=3)
    )
    return "".join(lines[2:])  # GitHub's `patch` has no ---/+++ header


def adapt_repository(data: dict[str, Any], full_name: str = REPO) -> None:
    owner, name = full_name.split("/")
    repo = data["repository"]
    repo["name"], repo["full_name"] = name, full_name
    repo["owner"]["login"] = owner
    data["installation"] = {
        "id": INSTALLATION,
        "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==",
    }


def pull_request_event(
    action: str,
    number: int,
    head_sha: str,
    base_sha: str,
    draft: bool = False,
    full_name: str = REPO,
) -> dict[str, Any]:
    data = payload(f"pull_request.{action}")
    adapt_repository(data, full_name)
    data["number"] = number
    pr = data["pull_request"]
    pr["number"], pr["draft"], pr["state"] = number, draft, "open"
    pr["head"]["sha"], pr["base"]["sha"] = head_sha, base_sha
    return data


def comment_event(
    number: int, body: str, login: str = "maintainer", user_type: str = "User"
) -> dict[str, Any]:
    data = payload("issue_comment.created")
    adapt_repository(data)
    data["issue"]["number"] = number
    data["issue"]["pull_request"] = {"url": f"https://api.github.com/repos/{REPO}/pulls/{number}"}
    data["comment"]["body"] = body
    data["comment"]["user"]["login"], data["comment"]["user"]["type"] = login, user_type
    return data


def post_comment(
    github: FakeGitHub, number: int, body: str, login: str = "maintainer"
) -> dict[str, Any]:
    """A comment written on the fake GitHub, and the `issue_comment.created` delivery for it."""
    data = comment_event(number, body, login)
    comment = data["comment"]
    with github.lock:
        comment["id"] = next(github.ids)
        github.repo(REPO).issue_comments.append(
            {
                "id": comment["id"],
                "issue_number": number,
                "body": body,
                "user": {"login": login, "id": 7, "type": "User"},
                "issue_url": f"{github.url}/repos/{REPO}/issues/{number}",
                "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        )
    return data


def set_pull(
    github: FakeGitHub,
    number: int,
    files: dict[str, tuple[str | None, str]],
    draft: bool = False,
    full_name: str = REPO,
) -> dict[str, Any]:
    """Put a pull request on the fake server: path -> (base text or None, head text)."""
    repo = github.repo(full_name)
    base_sha = sha_of("base:" + json.dumps(sorted((p, b or "") for p, (b, _) in files.items())))
    head_sha = sha_of("head:" + json.dumps(sorted((p, h) for p, (_, h) in files.items())))
    event = pull_request_event("opened", number, head_sha, base_sha, draft, full_name)
    pr = copy.deepcopy(event["pull_request"])
    repo.pulls[number] = pr
    entries = []
    for path, (base, head) in files.items():
        if base is not None:
            repo.files[(base_sha, path)] = base
            repo.files[(repo.default_branch, path)] = base
        repo.files[(head_sha, path)] = head
        patch = patch_of(base or "", head)
        entries.append(
            {
                "sha": sha_of(head),
                "filename": path,
                "status": "modified" if base is not None else "added",
                "additions": patch.count("\n+"),
                "deletions": patch.count("\n-"),
                "changes": 0,
                "blob_url": f"https://github.com/{full_name}/blob/{head_sha}/{path}",
                "raw_url": f"https://github.com/{full_name}/raw/{head_sha}/{path}",
                "contents_url": f"https://api.github.com/repos/{full_name}/contents/{path}?ref={head_sha}",
                "patch": patch,
            }
        )
    repo.pull_files[number] = entries
    return event


def signed(
    event: str, data: dict[str, Any] | bytes, secret: str, delivery: str | None = None
) -> tuple[bytes, dict[str, str]]:
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": github_signature(secret, body),
        "Content-Type": "application/json",
    }
    return body, headers
