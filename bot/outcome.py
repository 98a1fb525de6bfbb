"""The result of one review, before it is rendered and published."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from analysis.report import FunctionReport

Conclusion = Literal["success", "failure", "neutral"]


@dataclass(frozen=True)
class Suggestion:
    """A verified patch for a whole function: replace lines start..end of the head version."""

    start_line: int
    end_line: int
    source: str
    agreement: float | None
    note: str | None = None
    made_by: str | None = None  # "the mechanical rule collapse-branch (...)", "the language model"


@dataclass
class FunctionResult:
    report: FunctionReport
    # Attributes flagged here and not in the base version of the same function: a proven bias
    # is new unless the base was proven biased for it too; a static finding is new unless the
    # base had any finding for it.
    new_attributes: set[str] = field(default_factory=set)
    suggestion: Suggestion | None = None
    fix_note: str | None = None  # why no suggestion, when mitigation was tried
    fix_patch: str | None = None  # a verified fix that a suggestion cannot express
    cached: bool = False

    @property
    def key(self) -> str:
        return f"{self.report.path}::{self.report.qualname}"


@dataclass(frozen=True)
class FileNote:
    path: str
    reason: str


@dataclass
class ReviewOutcome:
    owner: str
    repo: str
    number: int
    head_sha: str
    base_sha: str
    fail_on: Literal["new", "any", "none"]
    results: list[FunctionResult] = field(default_factory=list)
    skipped_files: list[FileNote] = field(default_factory=list)
    # head lines inside the diff, per path: the only places an inline comment may go
    commentable: dict[str, set[int]] = field(default_factory=dict)
    fail_on_static: bool = False  # the policy's: static findings fail the check too
    warnings: list[str] = field(default_factory=list)  # policy lines that cannot match, cuts

    @property
    def biased(self) -> list[FunctionResult]:
        """Functions with an executed counterexample."""
        return [r for r in self.results if r.report.is_biased]

    @property
    def static(self) -> list[FunctionResult]:
        """Functions that could not run but whose protected inputs reach a decision."""
        return [r for r in self.results if r.report.static_findings]

    def failing(self) -> list[FunctionResult]:
        if self.fail_on == "none":
            return []
        counted = self.biased + (self.static if self.fail_on_static else [])
        if self.fail_on == "any":
            return counted
        return [r for r in counted if r.new_attributes]

    @property
    def conclusion(self) -> Conclusion:
        if self.failing():
            return "failure"
        if self.biased or any(not r.report.is_settled for r in self.results):
            return "neutral"
        return "success"
