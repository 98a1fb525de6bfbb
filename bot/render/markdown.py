"""Markdown for people: a whole scan (`codebias scan --format markdown`), the check run's
summary, and the review comment on one function (counterexample as a small table).
"""

from __future__ import annotations

from typing import Any

from analysis.report import Finding, FunctionReport, ScanReport
from bot.outcome import FunctionResult, ReviewOutcome

MAX_CELL = 60
STATUS_ICON = {"biased": "❌", "clean": "✅", "unverified": "⚠️", "error": "⚠️", "skipped": "➖"}


def code(value: Any) -> str:
    """A table cell holding a value as inline code: pipes escaped, long values shortened."""
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    if len(text) > MAX_CELL:
        text = text[: MAX_CELL - 1] + "…"
    text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _flatten(prefix: str, value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        out: list[tuple[str, Any]] = []
        for key, inner in value.items():
            out.extend(_flatten(f"{prefix}[{key!r}]", inner))
        return out
    return [(prefix, value)]


def example_table(finding: Finding) -> str:
    """The counterexample: every input, the two protected values, the two outputs."""
    ex = finding.example
    if ex is None:
        return f"_judged from the code: `{finding.parameter}` reaches the result (no run)_"
    a, b = (ex.values + [None, None])[:2]
    rows = ["| input | case A | case B |", "|---|---|---|"]
    placed = False
    for name, value in (pair for k, v in ex.inputs.items() for pair in _flatten(k, v)):
        if name == finding.parameter:
            rows.append(f"| **{code(name)}** | **{code(a)}** | **{code(b)}** |")
            placed = True
        else:
            rows.append(f"| {code(name)} | {code(value)} | {code(value)} |")
    if not placed:
        rows.insert(2, f"| **{code(finding.parameter)}** | **{code(a)}** | **{code(b)}** |")
    out_a, out_b = (ex.outputs + ["", ""])[:2]
    rows.append(f"| **output** | {code(out_a)} | {code(out_b)} |")
    return "\n".join(rows)


def _finding_block(finding: Finding, new: bool | None) -> str:
    tag = "" if new is None else (" — **new in this pull request**" if new else " — pre-existing")
    where = f" (line {finding.line})" if finding.line else ""
    head = (
        f"**{finding.attribute}**{tag}: changing only `{finding.parameter}` "
        f"changes the result{where}."
    )
    return f"{head}\n\n{example_table(finding)}"


def function_comment(result: FunctionResult, fingerprint: str, head_sha: str) -> str:
    """The inline review comment for one biased function."""
    report = result.report
    parts = [
        f"### ⚖️ codebias: `{report.qualname}` treats people differently by "
        f"{', '.join(report.biased_attributes)}",
        "",
    ]
    for finding in report.findings:
        parts += [_finding_block(finding, finding.attribute in result.new_attributes), ""]
    if result.suggestion is not None:
        agreement = result.suggestion.agreement
        share = (
            f" and gives the same output on {agreement:.0%} of the other inputs"
            if agreement is not None
            else ""
        )
        parts += [
            f"A version that passed the same tests with no bias found{share} "
            "(verified in the sandbox):",
            "",
            "```suggestion",
            result.suggestion.source.rstrip("\n"),
            "```",
            "",
        ]
    elif result.fix_patch:
        parts += [
            "A verified fix (no bias found when re-tested in the sandbox), as a patch to apply:",
            "",
            "```diff",
            result.fix_patch.rstrip("\n"),
            "```",
            "",
        ]
    elif result.fix_note:
        parts += [f"_No verified fix: {result.fix_note}_", ""]
    parts += [
        "If this use is intended (for example a legal requirement), accept it in `.codebias.yml` "
        f"(`allow:`) or with `# codebias: ignore[{report.findings[0].attribute}] <reason>` "
        "on the `def` line.",
        "",
        f"<sub>commit {head_sha[:7]}</sub>",
        fingerprint,
    ]
    return "\n".join(parts)


def _accepted_lines(reports: list[FunctionReport]) -> list[str]:
    return [
        f"- `{r.path}::{r.qualname}` {f.attribute}: {reason}"
        for r in reports
        for f, reason in r.accepted
    ]


def check_summary(outcome: ReviewOutcome) -> str:
    reports = [r.report for r in outcome.results]
    scan = ScanReport(reports)
    summary = scan.summary()
    new = sum(len(r.new_attributes) for r in outcome.biased)
    old = sum(len(set(r.report.biased_attributes) - r.new_attributes) for r in outcome.biased)
    lines = [
        f"Tested **{summary['tested']}** of **{summary['functions']}** changed functions; "
        f"**{summary['biased']}** biased (CBS {summary['cbs']:.2f}).",
        f"Findings: **{new}** new in this pull request, **{old}** pre-existing "
        f"(the check fails on: `{outcome.fail_on}`).",
        "",
    ]
    lines += attribute_table(summary)
    if outcome.biased:
        lines.append("**Biased functions**")
        for r in outcome.biased:
            kinds = ", ".join(
                f"{a} ({'new' if a in r.new_attributes else 'pre-existing'})"
                for a in r.report.biased_attributes
            )
            lines.append(f"- `{r.report.path}:{r.report.line}` `{r.report.qualname}`: {kinds}")
        lines.append("")
    accepted = _accepted_lines(reports)
    if accepted:
        lines += ["**Accepted** (allow list or `# codebias: ignore`)", *accepted, ""]
    other = [
        r.report for r in outcome.results if r.report.status in ("unverified", "error", "skipped")
    ]
    if other or outcome.skipped_files:
        lines.append("**Not verified or skipped**")
        lines += [
            f"- `{r.path}::{r.qualname}` {r.status}: {r.reason or 'no reason given'}" for r in other
        ]
        lines += [f"- `{n.path}`: {n.reason}" for n in outcome.skipped_files]
        lines.append("")
    cached = sum(1 for r in outcome.results if r.cached)
    if cached:
        lines.append(f"<sub>{cached} unchanged function(s) reused from an earlier run.</sub>")
    return "\n".join(lines).rstrip() + "\n"


def attribute_table(summary: dict[str, Any]) -> list[str]:
    """Per-attribute CBS as markdown table lines (none when no attribute was tested)."""
    if not summary["by_attribute"]:
        return []
    lines = ["| attribute | functions | biased | CBS |", "|---|---|---|---|"]
    for attr, row in summary["by_attribute"].items():
        lines.append(f"| {attr} | {row['functions']} | {row['biased']} | {row['cbs']:.2f} |")
    return [*lines, ""]


def render_report(report: ScanReport) -> str:
    """A whole scan as markdown: summary, per-attribute CBS, each function, each counterexample."""
    summary = report.summary()
    lines = [
        "# codebias report",
        "",
        f"**{summary['biased']}** of **{summary['functions']}** functions biased "
        f"(CBS {summary['cbs']:.2f}; {summary['tested']} tested, {summary['seconds']} s).",
        "",
    ]
    lines += attribute_table(summary)
    lines += ["| | function | status | attributes | note |", "|---|---|---|---|---|"]
    for fn in report.functions:
        attrs = ", ".join(fn.biased_attributes) if fn.findings else ", ".join(fn.attributes_tested)
        note = (fn.reason or "").replace("|", "\\|")
        lines.append(
            f"| {STATUS_ICON.get(fn.status, '')} | `{fn.path}:{fn.line}` `{fn.qualname}` "
            f"| {fn.status} "
            f"| {attrs or '—'} | {note} |"
        )
    lines.append("")
    for fn in report.functions:
        if not fn.findings:
            continue
        lines += [f"## `{fn.path}::{fn.qualname}` (line {fn.line})", ""]
        for finding in fn.findings:
            lines += [_finding_block(finding, None), ""]
    accepted = _accepted_lines(report.functions)
    if accepted:
        lines += ["## Accepted", "", *accepted, ""]
    if report.problems:
        lines += ["## Files that could not be read", ""]
        lines += [f"- `{path}`: {reason}" for path, reason in report.problems]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
