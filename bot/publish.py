"""Publishing a review: one check run per head, one review per head, comments kept up to date.

Every inline comment carries a hidden fingerprint of the function it is about
(`<!-- codebias:fp=... -->`). On a later push the bot reads its earlier comments, edits the
ones whose function is still biased, marks resolved the ones whose function no longer is,
and adds new comments only for functions it has not commented on before. A comment is only
placed on a head line that lies inside the diff (anything else gets 422 from GitHub); what
cannot be placed goes into the review's body instead, never dropped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass, field, replace
from typing import Any

from analysis.report import safe_repr
from bot.comments import check_summary, check_title, function_comment, review_body
from bot.github import Json, RepoClient
from bot.outcome import FunctionResult, ReviewOutcome, Suggestion
from bot.render.escape import fenced

log = logging.getLogger(__name__)

ANNOTATIONS_PER_CALL = 50  # GitHub's limit per create/update call
MAX_TEXT = 65_000  # output.summary / comment bodies are limited to 65535 characters
FP_RE = re.compile(r"<!-- codebias:fp=(?P<fp>[0-9a-f]{16})(?P<resolved> resolved)? -->")
REVIEW_RE = re.compile(r"<!-- codebias:review sha=(?P<sha>[0-9a-f]+) -->")


def fingerprint(path: str, qualname: str) -> str:
    return hashlib.sha256(f"{path}::{qualname}".encode()).hexdigest()[:16]


def fp_marker(fp: str, resolved: bool = False) -> str:
    return f"<!-- codebias:fp={fp}{' resolved' if resolved else ''} -->"


def batches(items: list[Any], size: int = ANNOTATIONS_PER_CALL) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 40] + "\n\n…(truncated)\n"


@dataclass(frozen=True)
class Placement:
    line: int
    start_line: int | None = None  # a multi-line comment (needed for a whole-function suggestion)


def place(result: FunctionResult, commentable: set[int]) -> Placement | None:
    """Where the comment on this function goes, or None when no line of it is in the diff."""
    report = result.report
    span = range(report.line, report.end_line + 1)
    if result.suggestion is not None:
        s = result.suggestion
        if all(n in commentable for n in range(s.start_line, s.end_line + 1)):
            return Placement(
                line=s.end_line, start_line=s.start_line if s.start_line < s.end_line else None
            )
    candidates = [f.line for f in report.findings if f.line in span] + [report.line]
    for line in candidates:
        if line is not None and line in commentable:
            return Placement(line=line)
    inside = sorted(n for n in span if n in commentable)
    return Placement(line=inside[0]) if inside else None


def covers(where: Placement | None, suggestion: Suggestion) -> bool:
    if where is None or where.line != suggestion.end_line:
        return False
    start = where.start_line if where.start_line is not None else where.line
    return start == suggestion.start_line


def build_annotations(outcome: ReviewOutcome) -> list[Json]:
    """One annotation per finding: proven bias, then static findings (marked as not run)."""
    failing = {r.key for r in outcome.failing()}
    out: list[Json] = []
    for result in [*outcome.biased, *outcome.static]:
        report = result.report
        for finding in report.findings:
            line = (
                finding.line
                if finding.line and report.line <= finding.line <= report.end_line
                else report.line
            )
            new = finding.attribute in result.new_attributes
            fails = result.key in failing and (outcome.fail_on == "any" or new)
            age = "new" if new else "pre-existing"
            if finding.is_static:
                title = f"{finding.attribute}: static finding, not run ({age})"
                message = (
                    f"{finding.parameter} reaches a decision in {report.qualname}, which could "
                    f"not run ({report.reason or 'no reason given'})"
                )
            elif finding.refusal_text is not None:
                title = f"{finding.attribute} bias: {finding.refusal_text} ({age})"
                message = (
                    f"{report.qualname} raises for one value of {finding.parameter} "
                    "and returns for another"
                )
            else:
                title = f"{finding.attribute} bias ({age})"
                message = (
                    f"Changing only {finding.parameter} changes the output of {report.qualname}"
                )
            if finding.example is not None:
                ex = finding.example
                a, b = (safe_repr(v) for v in ex.values[:2])
                message += f": {a} -> {ex.outputs[0]}, {b} -> {ex.outputs[1]}"
                if ex.source:  # a call the project's own tests or demos made, recorded
                    message += f" (from the call made by {ex.source})"
            level = "failure" if fails else "warning" if not finding.is_static else "notice"
            out.append(
                {
                    "path": report.path,
                    "start_line": line,
                    "end_line": line,
                    "annotation_level": level,
                    "title": title,
                    "message": message[:4000],
                    "raw_details": json.dumps(finding.to_dict(), default=safe_repr)[:60_000],
                }
            )
    return out


@dataclass
class ReviewPlan:
    """What publishing a review will do, decided before any write."""

    new_comments: list[Json] = field(default_factory=list)
    updates: list[tuple[int, str]] = field(default_factory=list)  # (comment id, new body)
    resolved: int = 0  # how many of `updates` mark a finding resolved
    outside_diff: list[str] = field(default_factory=list)  # bodies that go into the review

    def counts(self) -> dict[str, int]:
        return {
            "created": len(self.new_comments),
            "updated": len(self.updates) - self.resolved,
            "resolved": self.resolved,
            "in_body": len(self.outside_diff),
        }


def plan_review(outcome: ReviewOutcome, existing: dict[str, Json]) -> ReviewPlan:
    """New, updated and resolved comments for this head, given our earlier comments by
    fingerprint (the latest of each)."""
    plan = ReviewPlan()
    current = {fingerprint(r.report.path, r.report.qualname): r for r in outcome.biased}
    tested = {fingerprint(r.report.path, r.report.qualname): r for r in outcome.results}
    for fp, result in current.items():
        where = place(result, outcome.commentable.get(result.report.path, set()))
        if result.suggestion is not None and not covers(where, result.suggestion):
            # A suggestion replaces exactly the lines its comment spans: shown as a patch
            # when the whole function is not inside the diff.
            result = replace(result, suggestion=None)
        body = _clip(function_comment(result, fp_marker(fp), outcome.head_sha))
        old = existing.get(fp)
        if old is not None and (old.get("line") is not None or where is None):
            if old.get("body") != body:
                plan.updates.append((int(old["id"]), body))
            continue
        if old is not None:
            # The earlier comment is outdated (its line left the diff): say where it went.
            plan.updates.append(
                (
                    int(old["id"]),
                    f"_Superseded by a newer comment on commit {outcome.head_sha[:7]}._\n"
                    + fp_marker(fp, True),
                )
            )
        if where is None:
            plan.outside_diff.append(body.replace(fp_marker(fp), ""))
            continue
        comment: Json = {"path": result.report.path, "line": where.line, "side": "RIGHT"}
        comment["body"] = body
        if where.start_line is not None:
            comment |= {"start_line": where.start_line, "start_side": "RIGHT"}
        plan.new_comments.append(comment)

    for fp, old in existing.items():
        match = FP_RE.search(str(old.get("body") or ""))
        if fp in current or match is None or match.group("resolved"):
            continue
        again = tested.get(fp)
        if again is not None and (again.report.is_biased or not again.report.is_settled):
            continue  # not verified this time: keep the earlier finding standing
        why = (
            "no bias found any more"
            if again is not None
            else "no longer changed by this pull request"
        )
        plan.updates.append(
            (
                int(old["id"]),
                f"✅ **Resolved** in commit {outcome.head_sha[:7]}: {why}.\n\n"
                "<details><summary>earlier finding</summary>\n\n"
                f"{FP_RE.sub('', str(old.get('body')))}\n</details>\n"
                f"{fp_marker(fp, True)}",
            )
        )
        plan.resolved += 1
    return plan


class Publisher:
    def __init__(self, client: RepoClient, check_name: str, app_id: int | None = None) -> None:
        self.client = client
        self.check_name = check_name
        self.app_id = app_id

    # check run

    def start_check(self, head_sha: str, external_id: str) -> int:
        """The head's in-progress check run (a retried job reuses it), the run this same job
        already completed (a retry interrupted after it, while posting the review), or a new
        one."""
        for run in self.client.check_runs(head_sha, self.check_name):
            if self.app_id is not None and (run.get("app") or {}).get("id") not in (
                None,
                self.app_id,
            ):
                continue
            if run.get("status") != "completed":
                return int(run["id"])
            if run.get("external_id") == external_id and run.get("conclusion") != "neutral":
                return int(run["id"])
        run = self.client.create_check_run(
            name=self.check_name,
            head_sha=head_sha,
            status="in_progress",
            external_id=external_id,
            output={"title": "Testing changed functions for bias", "summary": "Running…"},
        )
        return int(run["id"])

    def finish_check(self, check_id: int, outcome: ReviewOutcome) -> None:
        title = check_title(outcome)
        summary = _clip(check_summary(outcome))
        chunks = batches(build_annotations(outcome))
        # All annotations go in before the run turns completed, so nobody sees half a result.
        for chunk in chunks[:-1]:
            self.client.update_check_run(
                check_id, output={"title": title, "summary": summary, "annotations": chunk}
            )
        last: Json = {"title": title, "summary": summary}
        if chunks[-1]:
            last["annotations"] = chunks[-1]
        self.client.update_check_run(
            check_id, status="completed", conclusion=outcome.conclusion, output=last
        )

    def neutral_check(
        self, head_sha: str, title: str, summary: str, check_id: int | None = None
    ) -> None:
        """A completed neutral check run: the review could not be made (e.g. a broken policy)."""
        output = {"title": title[:250], "summary": _clip(summary)}
        if check_id is not None:
            self.client.update_check_run(
                check_id, status="completed", conclusion="neutral", output=output
            )
        else:
            self.client.create_check_run(
                name=self.check_name,
                head_sha=head_sha,
                status="completed",
                conclusion="neutral",
                output=output,
            )

    def invalid_policy(self, head_sha: str, error: Exception) -> None:
        """A neutral check run saying the policy could not be read, so nothing was tested."""
        self.neutral_check(
            head_sha,
            "Invalid .codebias.yml",
            f"The policy could not be read, so nothing was tested:\n\n{fenced(str(error))}\n",
        )

    # review

    def publish_review(self, outcome: ReviewOutcome) -> dict[str, int]:
        """Create/update/resolve comments; returns counts of what was done (for logs and tests)."""
        plan = plan_review(outcome, self._our_comments(outcome.number))
        for comment_id, body in plan.updates:
            self.client.update_review_comment(comment_id, body)
        # Fingerprints already keep inline comments from repeating; the body-only findings
        # have none, so a head that has its review gets no second one for them.
        posting = bool(plan.new_comments) or (
            bool(plan.outside_diff) and not self._reviewed(outcome.number, outcome.head_sha)
        )
        if posting:
            text = [
                *review_body(outcome, plan.outside_diff),
                f"<!-- codebias:review sha={outcome.head_sha} -->",
            ]
            self.client.create_review(
                outcome.number,
                commit_id=outcome.head_sha,
                event="COMMENT",
                body=_clip("\n".join(text)),
                comments=plan.new_comments,
            )
        counts = plan.counts()
        if not posting:
            counts["created"] = counts["in_body"] = 0
        return counts

    def _our_comments(self, number: int) -> dict[str, Json]:
        latest: dict[str, Json] = {}
        for comment in self.client.review_comments(number):
            user = comment.get("user") or {}
            if user.get("type") != "Bot":
                continue  # a person quoting a fingerprint must not steer the bot
            match = FP_RE.search(str(comment.get("body") or ""))
            if match is None:
                continue
            fp = match.group("fp")
            if fp not in latest or int(comment["id"]) > int(latest[fp]["id"]):
                latest[fp] = comment
        return latest

    def _reviewed(self, number: int, head_sha: str) -> bool:
        for review in self.client.reviews(number):
            match = REVIEW_RE.search(str(review.get("body") or ""))
            if (
                match
                and match.group("sha") == head_sha
                and (review.get("user") or {}).get("type") == "Bot"
            ):
                return True
        return False
