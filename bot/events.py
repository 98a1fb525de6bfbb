"""What a webhook delivery asks for: a review to queue, a note to log, or nothing.

Routing only reads the payload; anything that needs GitHub (permissions, the policy, whether
the pull request is a draft under this repository's policy) is decided by the job, so the
webhook answers at once.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal

from bot.render.escape import code_span

Command = Literal["review", "recheck", "fix", "refuse"]

PR_ACTIONS = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})
LOGGED_EVENTS = frozenset({"installation", "installation_repositories"})
COMMAND_RE = re.compile(r"^\s*/codebias\b(?P<rest>.*)$", re.MULTILINE)
# A qualname argument for `/codebias fix`; anything else after a command is refused, so that
# a comment can never carry settings (fail_on=none, --config ...) into a review.
QUALNAME_RE = re.compile(r"^[A-Za-z_][\w.]*(::[A-Za-z_][\w.]*)?$")


@dataclass(frozen=True)
class ReviewRequest:
    owner: str
    repo: str
    number: int
    head_sha: str | None  # None for comment commands: the job reads the current head
    installation_id: int | None
    trigger: str  # "pull_request.opened", "issue_comment.created", ...
    command: Command = "review"
    commenter: str | None = None
    comment_id: int | None = None
    target: str | None = None  # `/codebias fix <qualname>`: the one function to fix
    reason: str | None = None  # why a command is refused
    delivery: str | None = None  # X-GitHub-Delivery, for the logs (set by the service)
    # What the signed body says happened (`event_identity`): the service drops a repeat of it,
    # since the delivery id beside it is not signed.
    identity: str | None = None

    @property
    def logical_id(self) -> str:
        """`owner/repo#pr@head_sha`: a burst of deliveries for one head runs once."""
        tail = self.head_sha if self.head_sha else f"comment-{self.comment_id}"
        return f"{self.owner}/{self.repo}#{self.number}@{tail}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReviewRequest:
        return cls(**data)


@dataclass(frozen=True)
class Ignored:
    reason: str


@dataclass(frozen=True)
class Logged:
    message: str


Routed = ReviewRequest | Ignored | Logged


class MalformedPayload(ValueError):
    """The JSON is valid but lacks what this event must carry."""


def route(event: str, payload: dict[str, Any]) -> Routed:
    action = payload.get("action")
    try:
        if event == "pull_request":
            if action not in PR_ACTIONS:
                return Ignored(f"pull_request.{action} needs no review")
            pr = payload["pull_request"]
            return _request(
                payload,
                int(pr["number"]),
                str(pr["head"]["sha"]),
                f"{event}.{action}",
                identity=event_identity(payload, f"{event}.{action}", pr),
            )
        if event in ("check_run", "check_suite"):
            if action != "rerequested":
                return Ignored(f"{event}.{action} needs no review")
            item = payload[event]
            prs = item.get("pull_requests") or []
            if not prs:
                return Ignored(f"{event} {item.get('id')} belongs to no pull request of this repo")
            return _request(
                payload,
                int(prs[0]["number"]),
                str(item["head_sha"]),
                f"{event}.{action}",
                identity=event_identity(payload, f"{event}.{action}", item),
            )
        if event == "issue_comment":
            return _comment(payload)
        if event in LOGGED_EVENTS:
            account = (payload.get("installation") or {}).get("account") or {}
            return Logged(f"{event}.{action} for {account.get('login', '?')}")
    except (KeyError, TypeError, ValueError) as exc:
        raise MalformedPayload(f"{event}.{action}: missing or bad field {exc}") from None
    return Ignored(f"{event} events are not handled")


def event_identity(payload: dict[str, Any], trigger: str, subject: dict[str, Any]) -> str:
    """What happened, to what, and when, as the signed body says: the event and action, the
    repository, and the subject's id, head commit and time of its last change (a pull
    request, check run or suite, or comment). A replay of a captured body says the same; a
    new event of the same subject (a push, a check run once more, another comment) does not.
    """
    repo = payload["repository"]
    parts = [
        trigger,
        f"{repo['owner']['login']}/{repo['name']}",
        *(str(subject.get(field, "")) for field in ("id", "number", "head_sha", "updated_at")),
    ]
    head = subject.get("head")
    if isinstance(head, dict):
        parts.append(str(head.get("sha", "")))
    return " ".join(parts)


def _request(
    payload: dict[str, Any], number: int, head_sha: str | None, trigger: str, **extra: Any
) -> ReviewRequest:
    repo = payload["repository"]
    owner = repo["owner"]["login"]
    installation = payload.get("installation") or {}
    return ReviewRequest(
        owner=str(owner),
        repo=str(repo["name"]),
        number=number,
        head_sha=head_sha,
        installation_id=int(installation["id"]) if "id" in installation else None,
        trigger=trigger,
        **extra,
    )


def _comment(payload: dict[str, Any]) -> Routed:
    if payload.get("action") != "created":
        return Ignored("only new comments carry commands")
    issue, comment = payload["issue"], payload["comment"]
    if not issue.get("pull_request"):
        return Ignored("comment on an issue, not a pull request")
    user = comment.get("user") or {}
    if user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]"):
        return Ignored("comments by bots are not commands")
    parsed = parse_command(str(comment.get("body") or ""))
    if parsed is None:
        return Ignored("no /codebias command")
    command, target, reason = parsed
    return _request(
        payload,
        int(issue["number"]),
        None,
        "issue_comment.created",
        command=command,
        commenter=str(user.get("login", "")),
        comment_id=int(comment["id"]),
        target=target,
        reason=reason,
        identity=event_identity(payload, "issue_comment.created", comment),
    )


def parse_command(body: str) -> tuple[Command, str | None, str | None] | None:
    """`/codebias recheck` or `/codebias fix [qualname]`; None when the comment has no command."""
    match = COMMAND_RE.search(body)
    if match is None:
        return None
    words = match.group("rest").split()
    if not words:
        return "refuse", None, "say `/codebias recheck` or `/codebias fix [function]`"
    verb, args = words[0].lower(), words[1:]
    if any("=" in a or a.startswith("-") or ":" in a.replace("::", "") for a in args):
        return (
            "refuse",
            None,
            (
                "settings cannot be changed from a comment; they come from `.codebias.yml` "
                "on the default branch"
            ),
        )
    if verb == "recheck" and not args:
        return "recheck", None, None
    if verb == "fix" and len(args) <= 1 and all(QUALNAME_RE.match(a) for a in args):
        return "fix", (args[0] if args else None), None
    return "refuse", None, f"unknown command {code_span('/codebias ' + ' '.join(words))}"
