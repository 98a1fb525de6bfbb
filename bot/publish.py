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
from dataclasses import dataclass, replace
from typing import Any

from bot.github import Json, RepoClient
from bot.outcome import FunctionResult, ReviewOutcome, Suggestion
from bot.render.markdown import check_summary, function_comment

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
    failing = {r.key for r in outcome.failing()}
    out: list[Json] = []
    for result in outcome.biased:
        report = result.report
        for finding in report.findings:
            line = (
                finding.line
                if finding.line and report.line <= finding.line <= report.end_line
                else report.line
            )
            new = finding.attribute in result.new_attributes
            fails = result.key in failing and (outcome.fail_on == "any" or new)
            message = f"Changing only {finding.parameter} changes the output of {report.qualname}"
            if finding.example is not None:
                ex = finding.example
                message += (
                    f": {ex.values[0]!r} -> {ex.outputs[0]}, {ex.values[1]!r} -> {ex.outputs[1]}"
                )
            out.append(
                {
                    "path": report.path,
                    "start_line": line,
                    "end_line": line,
                    "annotation_level": "failure" if fails else "warning",
                    "title": f"{finding.attribute} bias ({'new' if new else 'pre-existing'})",
                    "message": message[:4000],
                    "raw_details": json.dumps(finding.to_dict(), default=repr)[:60_000],
                }
            )
    return out


class Publisher:
    def __init__(self, client: RepoClient, check_name: str, app_id: int | None = None) -> None:
        self.client = client
        self.check_name = check_name
        self.app_id = app_id

    # check run

    def start_check(self, head_sha: str, external_id: str) -> int:
        """The head's in-progress check run (a retried job reuses it), or a new one."""
        for run in self.client.check_runs(head_sha, self.check_name):
            if run.get("status") != "completed" and (
                self.app_id is None or (run.get("app") or {}).get("id") in (None, self.app_id)
            ):
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
        title = _title(outcome)
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

    # review

    def publish_review(self, outcome: ReviewOutcome) -> dict[str, int]:
        """Create/update/resolve comments; returns counts of what was done (for logs and tests)."""
        counts = {"created": 0, "updated": 0, "resolved": 0, "in_body": 0}
        existing = self._our_comments(outcome.number)
        current = {fingerprint(r.report.path, r.report.qualname): r for r in outcome.biased}
        tested = {fingerprint(r.report.path, r.report.qualname): r for r in outcome.results}

        new_comments: list[Json] = []
        in_body: list[str] = []
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
                    self.client.update_review_comment(int(old["id"]), body)
                    counts["updated"] += 1
                continue
            if old is not None:
                # The earlier comment is outdated (its line left the diff): say where it went.
                self.client.update_review_comment(
                    int(old["id"]),
                    f"_Superseded by a newer comment on commit {outcome.head_sha[:7]}._\n"
                    + fp_marker(fp, True),
                )
            if where is None:
                in_body.append(body.replace(fp_marker(fp), ""))
                continue
            comment: Json = {
                "path": result.report.path,
                "line": where.line,
                "side": "RIGHT",
                "body": body,
            }
            if where.start_line is not None:
                comment |= {"start_line": where.start_line, "start_side": "RIGHT"}
            new_comments.append(comment)

        for fp, old in existing.items():
            if fp in current or FP_RE.search(str(old.get("body")) or "") is None:
                continue
            match = FP_RE.search(str(old.get("body")))
            if match is None or match.group("resolved"):
                continue
            again = tested.get(fp)
            if again is not None and again.report.status not in ("clean", "skipped"):
                continue  # not verified this time: keep the earlier finding standing
            why = (
                "no bias found any more"
                if again is not None
                else "no longer changed by this pull request"
            )
            self.client.update_review_comment(
                int(old["id"]),
                f"✅ **Resolved** in commit {outcome.head_sha[:7]}: {why}.\n\n"
                "<details><summary>earlier finding</summary>\n\n"
                f"{FP_RE.sub('', str(old.get('body')))}\n</details>\n"
                f"{fp_marker(fp, True)}",
            )
            counts["resolved"] += 1

        # Fingerprints already keep inline comments from repeating; the body-only findings
        # have none, so a head that has its review gets no second one for them.
        if new_comments or (in_body and not self._reviewed(outcome.number, outcome.head_sha)):
            body_parts = [
                f"codebias tested the functions this pull request changes: "
                f"{len(outcome.biased)} biased, conclusion **{outcome.conclusion}**."
            ]
            if in_body:
                body_parts += ["", "These findings are on lines outside the diff:", "", *in_body]
            body_parts.append(f"<!-- codebias:review sha={outcome.head_sha} -->")
            self.client.create_review(
                outcome.number,
                commit_id=outcome.head_sha,
                event="COMMENT",
                body=_clip("\n".join(body_parts)),
                comments=new_comments,
            )
            counts["created"] += len(new_comments)
            counts["in_body"] += len(in_body)
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


def _title(outcome: ReviewOutcome) -> str:
    biased = len(outcome.biased)
    failing = len(outcome.failing())
    if not biased:
        return f"No bias found in {len(outcome.results)} changed function(s)"
    return f"{biased} biased function(s), {failing} failing the policy (fail_on: {outcome.fail_on})"
