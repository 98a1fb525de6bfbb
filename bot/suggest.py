"""Verified fixes as review suggestions: ask the configured LLM (through `analysis.mitigation`)
for a bias-free version of a biased function, keep it only when the engine re-tested it clean,
and turn it into a ```suggestion that replaces exactly the function's lines.
"""

from __future__ import annotations

import ast
import logging

from analysis import Engine
from analysis.functions import list_functions
from analysis.mitigation import Provider, mitigate
from bot.outcome import FunctionResult, Suggestion
from config.policy import Policy

log = logging.getLogger(__name__)


def _span(source: str, qualname: str) -> tuple[int, int] | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for fn in list_functions(tree):
        if fn.qualname == qualname:
            return fn.first_line, fn.end_line
    return None


def as_suggestion(
    original: str, patched: str, qualname: str, agreement: float | None, note: str | None
) -> Suggestion | None:
    """The patched function's lines, if the patch changes nothing else in the module (a
    suggestion can only replace the lines it is attached to)."""
    old, new = _span(original, qualname), _span(patched, qualname)
    if old is None or new is None:
        return None
    a, b = original.splitlines(), patched.splitlines()
    if a[: old[0] - 1] != b[: new[0] - 1] or a[old[1] :] != b[new[1] :]:
        return None  # e.g. the fix adds an import: shown as a patch, not a suggestion
    body = "\n".join(b[new[0] - 1 : new[1]]) + "\n"
    return Suggestion(old[0], old[1], body, agreement, note)


def suggest(
    engine: Engine, policy: Policy, provider: Provider, source: str, result: FunctionResult
) -> None:
    """Attach a verified suggestion (or the reason there is none) to `result`."""
    report = result.report
    fix = mitigate(
        engine,
        source,
        report.path,
        report.qualname,
        provider,
        strategy=policy.mitigation.strategy,
        max_rounds=policy.mitigation.max_rounds,
        report=report,
    )
    if fix.status != "fixed" or fix.new_module_source is None:
        result.fix_note = fix.note or fix.status
        return
    # The patch is kept too: shown instead when the suggestion cannot sit on the function's lines.
    result.fix_patch = fix.patch
    result.suggestion = as_suggestion(
        source, fix.new_module_source, report.qualname, fix.agreement, fix.note
    )
