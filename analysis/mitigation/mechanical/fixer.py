"""A fix without a language model: the rules' rewrites of the function, each verified as a
model's answer is (re-run the search: no bias left; and every output of the reference
group's tested inputs kept), the first that passes kept."""

from __future__ import annotations

import ast
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from analysis.errors import ExecutionError, SandboxUnavailable
from analysis.mitigation.answer import Candidate
from analysis.mitigation.loop import FixResult, Tester, accept, start
from analysis.mitigation.mechanical.edits import Source
from analysis.mitigation.mechanical.rules import (
    RULES,
    CollapseBranch,
    DropFilter,
    NeutralEntry,
    PinReference,
    Rule,
)
from analysis.mitigation.mechanical.target import NotApplicable, build_target
from analysis.mitigation.splice import function_source
from analysis.report import FunctionReport
from analysis.scan.project import Placement
from analysis.shapes import FrameShape, InputModel, Leaf
from analysis.source.functions import FunctionInfo, find_function

log = logging.getLogger(__name__)

STRATEGY = "mechanical"
MAX_PASSES = 25  # passes of one rule over one function: each removes at least one use

# Tried in order; the first verified rewrite is the fix. The first keeps the reference
# group's code but lets everyone through filters and gives tables' neutral entries; the
# second is the reference group's code alone; the last two keep, where the reference group's
# branch cannot be worked out, one branch or the other.
PIPELINES: tuple[tuple[Rule, ...], ...] = (
    (NeutralEntry(), DropFilter(), CollapseBranch(), PinReference()),
    (CollapseBranch(), PinReference()),
    (NeutralEntry(), DropFilter(), CollapseBranch("body"), PinReference()),
    (NeutralEntry(), DropFilter(), CollapseBranch("orelse"), PinReference()),
)


class InputTester(Tester, Protocol):
    """The part of `analysis.Engine` a mechanical fix uses."""

    def function_inputs(
        self, source: str, path: str, qualname: str, place: Placement | None = None
    ) -> tuple[Any, FunctionInfo, InputModel] | None: ...


@dataclass(frozen=True)
class Rewrite:
    text: str  # the module with the function rewritten
    rules: tuple[str, ...]  # the rules that changed it, in the order they did


def mechanical_fix(
    engine: InputTester,
    source: str,
    path: str,
    qualname: str,
    report: FunctionReport | None = None,
    place: Placement | None = None,
) -> FixResult:
    """A verified rewrite of `qualname` by the mechanical rules, or why there is none."""
    original = report if report is not None else engine.scan_function(source, path, qualname, place)
    result = start(original, STRATEGY)
    if result.status != "not_fixed":
        return result
    try:
        ast.parse(source)
    except SyntaxError as exc:
        result.note = f"no mechanical fix: the file does not parse (line {exc.lineno}: {exc.msg})"
        return result
    found = engine.function_inputs(source, path, qualname, place)
    if found is None:
        result.note = "no mechanical fix: the module does not run whole here"
        return result
    module, info, model = found
    biased = set(original.biased_attributes)
    leaves = [leaf for leaf in model.protected if leaf.category in biased]
    constants: Mapping[str, Any] = module.facts.constants
    try:
        candidates = rewrites(source, qualname, leaves, constants, frames_of(model))
    except (RecursionError, MemoryError):
        result.note = "no mechanical fix: the function is too deeply nested to rewrite"
        return result
    except Exception as exc:  # noqa: BLE001 - a rule's internal error loses no other fix
        log.exception("internal error in the mechanical rules for %s::%s", path, qualname)
        result.note = f"no mechanical fix: internal error in codebias: {type(exc).__name__}: {exc}"
        return result
    if not candidates:
        result.note = (
            f"no mechanical rule applies to how {qualname} uses {', '.join(sorted(biased))}"
        )
        return result
    reasons: list[str] = []
    for rewrite in candidates:
        why = verify(engine, source, rewrite.text, path, qualname, place)
        if isinstance(why, str):
            reasons.append(why)
            continue
        new_info = find_function(ast.parse(rewrite.text), qualname)
        assert new_info is not None  # the rules only ever edit inside the function
        accept(result, source, path, info, Candidate(function_source(rewrite.text, new_info)), why)
        result.rule = "+".join(rewrite.rules)
        result.note = describe(rewrite, leaves)
        return result
    result.after = list(biased)
    result.note = f"no mechanical fix passed the tests: {'; '.join(dict.fromkeys(reasons))}"
    return result


def frames_of(model: InputModel) -> frozenset[str]:
    """The parameters that are data frames (their columns are read whole)."""
    return frozenset(p.name for p in model.params if isinstance(p.shape, FrameShape))


def verify(
    engine: Tester, source: str, patched: str, path: str, qualname: str, place: Placement | None
) -> float | str:
    """The rewrite's agreement when it passes (no bias left, every output of one tested
    group kept), else why it does not."""
    try:
        retest = engine.scan_function(patched, path, qualname, place)
    except SandboxUnavailable:
        raise
    except ExecutionError as exc:
        return f"the rewrite could not be run: {exc}"
    if not retest.is_settled:
        return f"the rewrite could not be run: {retest.reason or retest.status}"
    if retest.is_biased:
        return "the rewrite is still biased for " + ", ".join(retest.biased_attributes)
    agreement = engine.agreement(source, patched, path, qualname, place=place)
    if agreement is None or agreement < 1.0:
        shown = "not measurable" if agreement is None else f"{agreement:.0%}"
        return f"the rewrite changes outputs the attribute did not decide (agreement {shown})"
    return agreement


def rewrites(
    source: str,
    qualname: str,
    leaves: Sequence[Leaf],
    constants: Mapping[str, Any],
    frames: frozenset[str] = frozenset(),
) -> list[Rewrite]:
    """Each pipeline's rewrite of the function, different from the source and each other
    (`frames`: parameters that are data frames, see build_target)."""
    out: list[Rewrite] = []
    for pipeline in PIPELINES:
        text, used = source, []
        for rule in pipeline:
            text, changed = run_rule(text, qualname, list(leaves), constants, frames, rule)
            if changed and rule.name not in used:
                used.append(rule.name)
        text = tidy(text, source, qualname)
        if text != source and all(r.text != text for r in out):
            out.append(Rewrite(text, tuple(used)))
    return out


def run_rule(
    text: str,
    qualname: str,
    leaves: list[Leaf],
    constants: Mapping[str, Any],
    frames: frozenset[str],
    rule: Rule,
) -> tuple[str, bool]:
    changed = False
    for _ in range(MAX_PASSES):
        try:
            target = build_target(text, qualname, leaves, constants, frames)
        except NotApplicable:
            break
        edits = rule.edits(target)
        if not edits:
            break
        new = target.source.apply(edits)
        try:
            ast.parse(new)
        except SyntaxError:
            break  # never hand on text that does not parse; what was made so far stands
        text, changed = new, True
    return text, changed


def tidy(text: str, original: str, qualname: str) -> str:
    """What the rewrite left behind taken out: assignments no decision reads any more
    (`age = applicant.get("age")`), and statements after a branch's `return` that now
    stands unconditionally. Only what the rewrite made so, never the author's own."""
    before = find_function(ast.parse(original), qualname)
    if text == original or before is None:
        return text
    used_before = used_names(before.node)
    dead_before = bool(unreachable(before.node))
    for _ in range(MAX_PASSES):
        source = Source(text)
        info = find_function(source.tree, qualname)
        if info is None:
            return text
        dead = [] if dead_before else unreachable(info.node)
        if dead and all(source.own_lines(s) for s in dead):
            start = source.whole_lines(dead[0].lineno, dead[0].lineno)[0]
            end = source.whole_lines(dead[-1].lineno, dead[-1].end_lineno or dead[-1].lineno)[1]
            text = source.text[:start] + source.text[end:]
            continue
        unused = unused_assignment(info, used_before)
        if unused is None or not source.own_lines(unused):
            return text
        start, end = source.whole_lines(unused.lineno, unused.end_lineno or unused.lineno)
        text = source.text[:start] + source.text[end:]
    return text


def unreachable(fn: ast.AST) -> list[ast.stmt]:
    """The statements of the first block that go on after its `return` or `raise`."""
    for node in ast.walk(fn):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block[:-1]):
                if isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
                    return block[i + 1 :]
    return []


def used_names(fn: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def unused_assignment(info: FunctionInfo, used_before: set[str]) -> ast.Assign | None:
    used = used_names(info.node)
    for node in ast.walk(info.node):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in used_before
            and node.targets[0].id not in used
            and pure(node.value)
        ):
            if any(getattr(s, "body", None) == [node] for s in ast.walk(info.node)):
                continue  # the only statement of its block: leave it rather than write `pass`
            return node
    return None


def pure(node: ast.expr) -> bool:
    """Reads and literals only: taking it out changes nothing else."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            method = isinstance(func, ast.Attribute) and func.attr in ("get", "lower", "strip")
            if not method and not (isinstance(func, ast.Name) and func.id == "getattr"):
                return False
        elif isinstance(sub, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
    return True


def describe(rewrite: Rewrite, leaves: Sequence[Leaf]) -> str:
    attributes = ", ".join(sorted({leaf.category for leaf in leaves if leaf.category}))
    reference = ", ".join(
        f"{leaf.display}={leaf.pool[leaf.typical]!r}" for leaf in leaves if leaf.pool
    )
    done = "; ".join(RULES[name].does.format(attribute=attributes) for name in rewrite.rules)
    return f"mechanical fix ({'+'.join(rewrite.rules)}): {done} (reference group: {reference})"
