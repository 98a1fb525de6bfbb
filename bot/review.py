"""From a pull request's files to a `ReviewOutcome`: which functions changed, their verdicts
at the head, and for biased ones the verdict at the base (new in this PR, or pre-existing).

Accepted findings (`# codebias: ignore[attr] reason`, the policy's `allow:`) are moved to
`FunctionReport.accepted` by the engine itself; they are listed, never counted.
"""

from __future__ import annotations

import ast
import json
import logging
from dataclasses import dataclass, field

from analysis import ENGINE_VERSION, Engine, FunctionReport
from analysis.functions import FunctionInfo, list_functions
from analysis.report import safe_repr
from bot.cache import ResultsCache, cache_key
from bot.changes import FileChange, file_change
from bot.github import FileTooLarge, Json, RepoClient, UnreadableFile
from bot.outcome import FileNote, FunctionResult, ReviewOutcome
from config.policy import Policy

log = logging.getLogger(__name__)

def changed_functions(source: str, lines: set[int]) -> list[FunctionInfo] | None:
    """Functions of the module that overlap the changed lines; None when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    return [
        fn for fn in list_functions(tree) if any(fn.first_line <= n <= fn.end_line for n in lines)
    ]


@dataclass
class Reviewer:
    """Tests the changed functions of one pull request under one policy."""

    client: RepoClient
    policy: Policy
    cache: ResultsCache
    engine_jobs: int = 1
    engine: Engine = field(init=False)

    def __post_init__(self) -> None:
        self.engine = Engine(self.policy, jobs=self.engine_jobs)

    def review(self, pr: Json) -> ReviewOutcome:
        outcome = ReviewOutcome(
            owner=self.client.owner,
            repo=self.client.name,
            number=int(pr["number"]),
            head_sha=str(pr["head"]["sha"]),
            base_sha=str(pr["base"]["sha"]),
            fail_on=self.policy.fail_on,
            fail_on_static=self.policy.fail_on_static,
        )
        for entry in self.client.pull_files(outcome.number):
            path = str(entry["filename"])
            if not self.policy.in_scope(path):
                continue
            note = self._file(entry, outcome)
            if note is not None:
                outcome.skipped_files.append(FileNote(path, note))
        return outcome

    def _file(self, entry: Json, outcome: ReviewOutcome) -> str | None:
        """Tests one file's changed functions into `outcome`; a note when it was skipped."""
        status = str(entry.get("status") or "modified")
        if status == "removed":
            return "removed in this pull request"
        if not entry.get("patch"):
            return "no textual diff (binary, or too large for GitHub to show)"
        change = file_change(entry)
        if not change.added:
            return None  # only deletions: nothing new to test
        try:
            head = self.client.file_text(change.path, outcome.head_sha)
            base = None
            if status not in ("added", "copied"):
                base = self.client.file_text(change.previous_path or change.path, outcome.base_sha)
        except (FileTooLarge, UnreadableFile) as exc:
            return str(exc).split(": ", 1)[-1]
        if head is None:
            return "not found at the head commit"
        outcome.commentable[change.path] = change.commentable
        outcome.results.extend(self._test(change, head, base))
        return None

    def _test(self, change: FileChange, head: str, base: str | None) -> list[FunctionResult]:
        functions = changed_functions(head, change.added)
        if functions is None:
            # The engine reports a file that does not parse as unverified, with its reason.
            reports = self.engine.scan_source(head, change.path, lines=change.added)
            return [FunctionResult(r, set(r.flagged_attributes)) for r in reports]
        results = self._reports(head, change.path, functions)
        base_path = change.previous_path or change.path
        flagged = [r for r in results if r.report.has_findings]
        by_name = {fn.qualname: fn for fn in _all(base)} if base and flagged else {}
        wanted = [by_name[r.report.qualname] for r in flagged if r.report.qualname in by_name]
        base_reports = (
            {r.report.qualname: r.report for r in self._reports(base, base_path, wanted)}
            if base and wanted
            else {}
        )
        for result in results:
            result.new_attributes = new_attributes(
                result.report, base_reports.get(result.report.qualname)
            )
        return results

    def _reports(
        self, source: str, path: str, functions: list[FunctionInfo]
    ) -> list[FunctionResult]:
        """Reports for `functions`, from the cache where possible; in source order."""
        found: dict[str, FunctionResult] = {}
        missing: list[FunctionInfo] = []
        keys: dict[str, str | None] = {}
        for fn in functions:
            key = keys[fn.qualname] = cache_key(
                source, fn.qualname, self.policy.fingerprint, ENGINE_VERSION
            )
            hit = self.cache.get(key) if key else None
            if hit is not None:
                cached = FunctionReport.from_dict(json.loads(hit))
                found[fn.qualname] = FunctionResult(
                    cached.moved(path, fn.line, fn.end_line), cached=True
                )
            else:
                missing.append(fn)
        if missing:
            for report in self.engine.scan_source(source, path, lines={fn.line for fn in missing}):
                found.setdefault(report.qualname, FunctionResult(report))
                key = keys.get(report.qualname)
                if key and report.is_settled:
                    self.cache.put(key, json.dumps(report.to_dict(), default=safe_repr))
        return [found[fn.qualname] for fn in functions if fn.qualname in found]


def new_attributes(head: FunctionReport, base: FunctionReport | None) -> set[str]:
    """What this pull request brings: a proven bias the base was not proven to have, and a
    static finding for an attribute the base had no finding for at all."""
    if base is None:
        return set(head.flagged_attributes)
    proven = set(head.biased_attributes) - set(base.biased_attributes)
    return proven | (set(head.static_attributes) - set(base.flagged_attributes))


def _all(source: str) -> list[FunctionInfo]:
    try:
        return list_functions(ast.parse(source))
    except SyntaxError:
        return []
