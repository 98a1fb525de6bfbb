"""The mitigation loop: propose, check, re-test in the sandbox, feed back, and keep only a
version that our own tests show to be free of bias."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from analysis.errors import ExecutionError, SandboxUnavailable
from analysis.mitigation.answer import AnswerRejected, Candidate, extract_function
from analysis.mitigation.prompts import (
    feedback_message,
    get_strategy,
    initial_messages,
    rejection_message,
)
from analysis.mitigation.provider import Message, Provider, ProviderError
from analysis.mitigation.splice import (
    find_function,
    function_source,
    replacement_text,
    splice,
    unified_patch,
)
from analysis.report import Finding, FunctionReport
from analysis.scan.project import Placement
from analysis.source.functions import FunctionInfo

FixStatus = Literal["fixed", "not_fixed", "clean", "error"]
Outcome = Literal["accepted", "biased", "rejected", "untestable"]

# Below this share of unchanged outputs the note asks a human to look at the behaviour change.
LOW_AGREEMENT = 0.8


class Tester(Protocol):
    """The part of `analysis.Engine` the loop uses."""

    def scan_function(
        self, source: str, path: str, qualname: str, place: Placement | None = None
    ) -> FunctionReport: ...

    def agreement(
        self,
        source: str,
        patched_source: str,
        path: str,
        qualname: str,
        samples: int = ...,
        place: Placement | None = None,
    ) -> float | None: ...


@dataclass
class Attempt:
    """One request to the model and what became of its answer."""

    outcome: Outcome
    reason: str | None = None
    biased: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class FixResult:
    status: FixStatus
    strategy: str
    attempts: int = 0
    patch: str | None = None
    new_function_source: str | None = None
    new_module_source: str | None = None
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    agreement: float | None = None
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    note: str | None = None
    report: FunctionReport | None = None  # the original function's test report
    history: list[Attempt] = field(default_factory=list)
    # Where the function was (first line with decorators, last line; 1-based) and the text
    # that replaces exactly those lines, for review comments that suggest a change.
    span: tuple[int, int] | None = None
    replacement: str | None = None
    added_imports: list[str] = field(default_factory=list)
    # The mechanical rules that made the fix (`collapse-branch`, ...), when no model did.
    rule: str | None = None

    @property
    def changed_lines(self) -> int:
        """Lines the patch removes and adds: how big the change is to review."""
        lines = (self.patch or "").splitlines()
        return sum(
            1 for line in lines if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))
        )

    @property
    def suggestion(self) -> str | None:
        """The replacement when it alone is the whole fix (no imports to add elsewhere)."""
        return self.replacement if self.status == "fixed" and not self.added_imports else None

    @property
    def findings(self) -> list[Finding]:
        return list(self.report.findings) if self.report is not None else []

    def to_dict(self, function: str) -> dict[str, Any]:
        """The JSON of `codebias fix --format json` (README, "Fixes"), plus `note` and the
        original `findings`."""
        out: dict[str, Any] = {
            "function": function,
            "status": self.status,
            "strategy": self.strategy,
            "rule": self.rule,
            "attempts": self.attempts,
        }
        if self.status == "fixed" and self.patch is not None:
            out["patch"] = self.patch
        out.update(
            before=list(self.before),
            after=list(self.after),
            agreement=None if self.agreement is None else round(self.agreement, 4),
            tokens=dict(self.tokens),
            note=self.note,
            findings=[f.to_dict() for f in self.findings],
        )
        return out


def mitigate(
    engine: Tester,
    source: str,
    path: str,
    qualname: str,
    provider: Provider | None,
    strategy: str = "feedback-cot",
    max_rounds: int = 3,
    report: FunctionReport | None = None,
    temperature: float = 0.2,
    place: Placement | None = None,
) -> FixResult:
    """Ask `provider` for a bias-free `qualname`; return it only once the engine finds no bias
    in it for any attribute.

    Strategies with feedback go up to `max_rounds` rounds, each telling the model what its
    last answer still got wrong; the others make one attempt, as in the study they follow.
    `report` is the original function's report when the caller has it already; `place`
    says where the file lives on disk (Engine.place), so that every version is run as the
    module it is in its package, as `scan` runs it. Raises UnknownStrategy for a strategy
    name that does not exist.
    """
    # The fix loop's steps in order (re-test, ask, verify, feed back), each may end it.
    plan = get_strategy(strategy)
    original = report if report is not None else engine.scan_function(source, path, qualname, place)
    result = start(original, strategy)
    if result.status != "not_fixed":
        return result
    if provider is None:
        result.note = "no LLM provider configured"
        return result

    tree = ast.parse(source)
    info = find_function(tree, qualname)
    if info is None:
        result.status = "error"
        result.note = f"no function {qualname} in {path}"
        return result

    original_text = function_source(source, info)
    messages: list[Message] = initial_messages(
        plan,
        function_source=original_text,
        qualname=qualname,
        path=path,
        attributes=original.attributes_tested or result.before,
        findings=original.findings,
    )
    rounds = max_rounds if plan.feedback else 1
    last_reason: str | None = None
    for _ in range(rounds):
        try:
            completion = provider.complete(messages, temperature)
        except ProviderError as exc:
            result.status = "error"
            result.note = f"the language model could not be reached: {exc}"
            return result
        result.attempts += 1
        result.tokens["prompt"] += completion.prompt_tokens
        result.tokens["completion"] += completion.completion_tokens
        attempt = Attempt(
            "rejected",
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
        )
        result.history.append(attempt)
        messages.append({"role": "assistant", "content": completion.text})

        try:
            candidate = extract_function(completion.text, info, tree, original_text)
        except AnswerRejected as exc:
            attempt.reason = last_reason = exc.reason
            messages.append(rejection_message(qualname, exc.reason))
            continue
        patched = splice(source, info, candidate)
        try:
            ast.parse(patched)
        except SyntaxError as exc:
            attempt.reason = last_reason = (
                f"the function does not fit into the module (line {exc.lineno}: {exc.msg})"
            )
            messages.append(rejection_message(qualname, attempt.reason))
            continue

        # A version that raises for some realistic people instead of deciding against them
        # refuses them: the engine reports that (kind `refuses`) as it does in a scan.
        try:
            retest = engine.scan_function(patched, path, qualname, place)
        except SandboxUnavailable:
            raise
        except ExecutionError as exc:
            retest = None
            untestable = str(exc)
        # "skipped" means the new version reads no protected input at all (the biased read
        # of `applicant["gender"]` was simply deleted): the most natural fix there is.
        if retest is None or not retest.is_settled:
            attempt.outcome = "untestable"
            attempt.reason = last_reason = "your version could not be run: " + (
                untestable if retest is None else retest.reason or retest.status
            )
            messages.append(rejection_message(qualname, attempt.reason))
            continue
        if retest.is_biased:
            attempt.outcome = "biased"
            attempt.biased = retest.biased_attributes
            attempt.reason = last_reason = "still biased for " + ", ".join(attempt.biased)
            result.after = list(attempt.biased)
            messages.append(feedback_message(qualname, retest.findings))
            continue

        agreement = engine.agreement(source, patched, path, qualname, place=place)
        if not agreement and not self_agrees(engine, patched, path, qualname, place):
            # "No bias" can also mean "never returns": a version that raises on every tested
            # input (or does not load) has no outputs to compare, not even with itself.
            attempt.outcome = "untestable"
            attempt.reason = last_reason = (
                "your version could not be run: it fails on every tested input"
            )
            messages.append(rejection_message(qualname, attempt.reason))
            continue

        attempt.outcome = "accepted"
        accept(result, source, path, info, candidate, agreement)
        result.note = _agreement_note(agreement)
        return result

    result.status = "not_fixed"
    tried = f"{result.attempts} attempt{'s' if result.attempts != 1 else ''}"
    result.note = f"no verified fix after {tried}: {last_reason}"
    if not plan.feedback:
        result.note += f"; {strategy} does not feed test results back, feedback-cot does"
    return result


def start(original: FunctionReport, strategy: str) -> FixResult:
    """The result before any fix is tried: `not_fixed` when the function is biased (there is
    something to fix and a fix can be verified), else what there is to say about it."""
    result = FixResult(status="not_fixed", strategy=strategy, report=original)
    # Static findings of a function that could not run count too: they are what needs fixing.
    result.before = original.flagged_attributes
    result.after = list(result.before)
    if original.status == "clean":
        result.status = "clean"
        result.note = "no bias found: nothing to fix"
    elif original.status == "skipped":  # no protected input (or a test): nothing to fix either
        result.status = "clean"
        result.note = f"{original.reason or 'no protected input'}: nothing to fix"
    elif not original.is_biased:
        why = original.reason or "no reason given"
        result.status = "error"
        result.note = (
            f"the function could not be tested ({original.status}: {why}), "
            "so no fix could be verified"
        )
    return result


def accept(
    result: FixResult,
    source: str,
    path: str,
    info: FunctionInfo,
    candidate: Candidate,
    agreement: float | None,
) -> None:
    """Record a verified version of the function `info` of `source` as the fix."""
    patched = splice(source, info, candidate)
    result.status = "fixed"
    result.after = []
    result.new_module_source = patched
    result.new_function_source = candidate.function_source
    result.patch = unified_patch(source, patched, path)
    result.agreement = agreement
    result.span = (info.first_line, info.end_line)
    result.replacement = replacement_text(source, info, candidate)
    result.added_imports = list(candidate.imports)


def self_agrees(
    engine: Tester, source: str, path: str, qualname: str, place: Placement | None
) -> bool:
    """Whether a version gives any output to compare (with itself) on the tested inputs."""
    return engine.agreement(source, source, path, qualname, place=place) is not None


def _agreement_note(agreement: float | None) -> str | None:
    if agreement is None:
        return "agreement with the original could not be measured: review the change"
    if agreement < LOW_AGREEMENT:
        return (
            f"low agreement: only {agreement:.0%} of tested inputs keep their output; "
            "review the behaviour change"
        )
    return None
