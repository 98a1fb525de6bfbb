"""From a pull request's files to a `ReviewOutcome`: which functions changed, their verdicts
at the head, and for biased ones the verdict at the base (new in this PR, or pre-existing).

Accepted findings (`# codebias: ignore[attr] reason`, the policy's `allow:`) are moved to
`FunctionReport.accepted` by the engine itself; they are listed, never counted.

The checkout the changed modules ran in stays until the reviewer is closed, so that fixes
suggested afterwards load, run and re-test each function as the review did (`placement`).
"""

from __future__ import annotations

import ast
import json
import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

from analysis import ENGINE_VERSION, Engine, FunctionReport
from analysis.execution.interpreter import Interpreter
from analysis.report import safe_repr
from analysis.scan.budget import Deadline
from analysis.scan.files import selects
from analysis.scan.project import Placement
from analysis.source.functions import FunctionInfo, list_functions
from bot.cache import ResultsCache, cache_key
from bot.changes import FileChange, file_change
from bot.checkout import Checkout, Fetcher
from bot.github import FileTooLarge, Json, RepoClient, UnreadableFile
from bot.github_errors import GitHubError
from bot.outcome import FileNote, FunctionResult, ReviewOutcome
from config.policy import Policy, default_policy

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
    deadline: Deadline | None = None  # after it, no further function is run
    interpreter: Interpreter | None = None  # the code's Python (`review --python`)
    engine: Engine = field(init=False)
    # path -> the files its module was run with (for the fix cache: `fix_scope`)
    imports: dict[str, str] = field(init=False, default_factory=dict)
    checkout: Checkout | None = field(init=False, default=None)
    _open: ExitStack = field(init=False, default_factory=ExitStack)

    def __post_init__(self) -> None:
        # The App runs code for anyone who installs it: a repository's policy may lower the
        # built-in budgets, never raise them (CPU of the service is shared).
        capped = self.policy.budget.capped(default_policy().budget)
        self.policy = self.policy.model_copy(update={"budget": capped})
        self.engine = Engine(
            self.policy,
            jobs=self.engine_jobs,
            deadline=self.deadline,
            interpreter=self.interpreter,
        )

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
        changed: list[tuple[FileChange, str, str | None]] = []
        for entry in self.client.pull_files(outcome.number):
            path = str(entry["filename"])
            if not selects(self.policy, path):  # as `scan .` walks: no `.venv`, `build`...
                continue
            read = self._read(entry, outcome)
            if isinstance(read, str):
                outcome.skipped_files.append(FileNote(path, read))
            elif read is not None:
                changed.append(read)
        if not changed:
            return outcome
        heads = {change.path: head for change, head, _ in changed}
        # Kept open until close(): suggestions run the functions where the review did.
        self.checkout = checkout = self._open.enter_context(self._checkout(outcome, heads))
        for change, head, base in changed:
            outcome.results.extend(self._test(change, head, base, checkout))
        # Accepting lines that can never match, and what the budget cut, as `scan` says them.
        outcome.warnings = [
            *self.engine.acceptance.warnings(complete=False),
            *self.engine.budget_warnings,
        ]
        return outcome

    def placement(self, path: str) -> Placement:
        """Where the module at `path` ran in this review: as its module in the checkout, or
        on its own when there is none."""
        if self.checkout is None:
            return Placement(None, None)
        project = self.checkout.project
        return Placement(project, project.locate(project.root / path))

    def close(self) -> None:
        """Remove the checkout and the engine's copies of it."""
        try:
            self.engine.close()
        finally:
            self.checkout = None
            self._open.close()

    def __enter__(self) -> Reviewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _checkout(self, outcome: ReviewOutcome, heads: dict[str, str]) -> Iterator[Checkout | None]:
        """The modules the changed files need, or None (each file then runs on its own)."""
        fetcher = Fetcher(self.client, outcome.head_sha, self.cache)
        with ExitStack() as stack:
            checkout: Checkout | None = None
            try:
                checkout = stack.enter_context(fetcher.checkout(heads))
            except (GitHubError, UnreadableFile, OSError) as exc:
                log.warning(
                    "review %s: no checkout of %s: %s", outcome.number, outcome.head_sha, exc
                )
            if checkout is not None and checkout.left_out:
                outcome.skipped_files.append(
                    FileNote(
                        ", ".join(checkout.left_out[:5]),
                        f"{len(checkout.left_out)} file(s) the changed modules import were not "
                        "fetched (over the review's size budget); they run as stubs",
                    )
                )
            yield checkout

    def fix_scope(self, path: str) -> str:
        """What a fix for a function of `path` was made with besides the module's own text:
        this repository, and the files the module imports (transitively) as this review
        fetched them."""
        return f"{self.client.owner}/{self.client.name}\0{self.imports.get(path, '')}"

    def _read(
        self, entry: Json, outcome: ReviewOutcome
    ) -> tuple[FileChange, str, str | None] | str | None:
        """One changed file's head and base text; a note when it is skipped, None when it has
        nothing new to test."""
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
        return change, head, base

    def _test(
        self, change: FileChange, head: str, base: str | None, checkout: Checkout | None
    ) -> list[FunctionResult]:
        project = checkout.project if checkout is not None else None
        if checkout is not None:
            self.imports[change.path] = checkout.imported_by(change.path)
        functions = changed_functions(head, change.added)
        if functions is None:
            # The engine reports a file that does not parse as unverified, with its reason.
            reports = self.engine.scan_source(head, change.path, change.added, project)
            return [FunctionResult(r, set(r.flagged_attributes)) for r in reports]
        results = self._reports(head, change.path, functions, checkout)
        base_path = change.previous_path or change.path
        flagged = [r for r in results if r.report.has_findings]
        by_name = {fn.qualname: fn for fn in _all(base)} if base and flagged else {}
        wanted = [by_name[r.report.qualname] for r in flagged if r.report.qualname in by_name]
        # The base version runs as its module too, beside the head's other files.
        base_reports = (
            {r.report.qualname: r.report for r in self._reports(base, base_path, wanted, checkout)}
            if base and wanted
            else {}
        )
        for result in results:
            result.new_attributes = new_attributes(
                result.report, base_reports.get(result.report.qualname)
            )
        return results

    def _reports(
        self,
        source: str,
        path: str,
        functions: list[FunctionInfo],
        checkout: Checkout | None,
    ) -> list[FunctionResult]:
        """Reports for `functions`, from the cache where possible; in source order."""
        found: dict[str, FunctionResult] = {}
        missing: list[FunctionInfo] = []
        keys: dict[str, str | None] = {}
        # A verdict belongs to this repository and to the files its module was imported with.
        context = f"{self.client.owner}/{self.client.name}"
        if checkout is not None:
            context += "\0" + checkout.dependencies(path)
        for fn in functions:
            key = keys[fn.qualname] = cache_key(
                source, fn.qualname, self.policy.fingerprint, ENGINE_VERSION, context
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
            project = checkout.project if checkout is not None else None
            lines = {fn.line for fn in missing}
            for report in self.engine.scan_source(source, path, lines, project):
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
