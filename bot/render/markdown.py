"""Markdown for people: a whole scan (`codebias scan --format markdown`) and the pieces the
App's check summary and review comments are built from (bot/comments.py): counterexample
tables, finding blocks, per-attribute tables. Renderers take report data only.
"""

from __future__ import annotations

from typing import Any

from analysis.report import Finding, FunctionReport, ScanReport, safe_repr
from bot.render.escape import code_span, table_code
from bot.render.example_rows import Row, example_rows, fields

MAX_CELL = 60
STATUS_ICON = {
    "biased": "❌",
    "clean": "✅",
    "accepted": "☑️",
    "unverified": "⚠️",
    "error": "⚠️",
    "skipped": "➖",
}


def code(value: Any) -> str:
    """A table cell holding text (or a value, as Python writes it) as inline code: pipes
    escaped, long values shortened, nothing at all shown as a dash."""
    text = value if isinstance(value, str) else safe_repr(value)
    text = " ".join(text.split())
    if not text:
        return "—"
    if len(text) > MAX_CELL:
        text = text[: MAX_CELL - 1] + "…"
    return table_code(text)


def example_table(finding: Finding) -> str:
    """The counterexample: every input with the values each case used (the varied ones in
    bold, as Python writes them), then the two outputs."""
    ex = finding.example
    if ex is None:
        return (
            f"_judged from the code: {code_span(finding.parameter)} reaches the result (no run)_"
        )
    rows = ["| input | case A | case B |", "|---|---|---|"]
    found = example_rows(finding.parameter, ex)
    if found is None:  # not a path into the inputs: the values tried on a row of their own
        a, b = (ex.values + [None, None])[:2]
        others = [Row(name, (v, v)) for name, v in fields("", ex.inputs)]
        found = [Row(finding.parameter, (a, b)), *others]
    for row in found:
        a, b = (safe_repr(side) for side in row.sides)
        if row.varied:
            rows.append(f"| **{code(row.name)}** | **{code(a)}** | **{code(b)}** |")
        else:
            rows.append(f"| {code(row.name)} | {code(a)} | {code(b)} |")
    out_a, out_b = (ex.outputs + ["", ""])[:2]
    rows.append(f"| **output** | {code(out_a)} | {code(out_b)} |")
    if ex.source:  # a call the project's own tests or demos made, recorded
        rows.insert(0, f"From the call made by {code_span(ex.source)}, one value changed:\n")
    return "\n".join(rows)


def finding_block(finding: Finding, new: bool | None) -> str:
    tag = "" if new is None else (" — **new in this pull request**" if new else " — pre-existing")
    where = f" (line {finding.line})" if finding.line else ""
    if finding.is_static:
        return (
            f"**{finding.attribute}** (static finding){tag}: {code_span(finding.parameter)} "
            f"reaches a decision{where}; the function could not run, so nothing was proven."
        )
    refused = finding.refused
    if refused is not None:
        head = (
            f"**{finding.attribute}**{tag}: {code_span(finding.parameter)} = "
            f"{code_span(safe_repr(refused[0]))} is refused (raises {code_span(refused[1])}) "
            f"where another value returns{where}."
        )
        return f"{head}\n\n{example_table(finding)}"
    head = (
        f"**{finding.attribute}**{tag}: changing only {code_span(finding.parameter)} "
        f"changes the result{where}."
    )
    return f"{head}\n\n{example_table(finding)}"


def accepted_lines(reports: list[FunctionReport]) -> list[str]:
    return [
        f"- {code_span(f'{r.path}::{r.qualname}')} {a.finding.attribute} "
        f"(accepted in the {a.source}): {code_span(a.reason)}"
        for r in reports
        for a in r.accepted
    ]


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
    if summary["static"]:
        lines += [
            f"**{summary['static']}** function(s) could not run and have static findings "
            "(a protected input reaches a decision; not counted as biased).",
            "",
        ]
    lines += attribute_table(summary)
    lines += ["| | function | status | attributes | note |", "|---|---|---|---|---|"]
    for fn in report.functions:
        attrs = ", ".join(fn.flagged_attributes or fn.attributes_tested)
        note = table_code(fn.reason or "")
        where = code_span(f"{fn.path}:{fn.line}").replace("|", "\\|")
        status = fn.shown_status
        lines.append(
            f"| {STATUS_ICON.get(status, '')} | {where} `{fn.qualname}` "
            f"| {status} "
            f"| {attrs or '—'} | {note} |"
        )
    lines.append("")
    for fn in report.functions:
        if not fn.findings:
            continue
        lines += [f"## {code_span(f'{fn.path}::{fn.qualname}')} (line {fn.line})", ""]
        for finding in fn.findings:
            lines += [finding_block(finding, None), ""]
    accepted = accepted_lines(report.functions)
    if accepted:
        lines += ["## Accepted", "", *accepted, ""]
    if report.problems:
        lines += ["## Files that could not be read", ""]
        lines += [f"- {code_span(path)}: {code_span(reason)}" for path, reason in report.problems]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
