"""The readable table of `codebias scan` (rich), with each counterexample spelled out.

Wrapped to the terminal's width on a terminal; anywhere else (a pipe, a file, a CI log) each
line is as long as it needs to be, so that grep and diff see whole lines.
"""

from __future__ import annotations

import io
import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from analysis.report import ScanReport, safe_repr
from bot.render.escape import printable

STYLE = {
    "biased": "bold red",
    "clean": "green",
    "unverified": "yellow",
    "error": "magenta",
    "skipped": "dim",
    "accepted": "cyan",
}


def shown(text: object) -> str:
    """Untrusted text (file names, outputs, reasons) as rich markup that shows it literally."""
    return escape(printable(str(text)))


# Off a terminal: wide enough never to wrap, and the table takes only the room it needs.
UNWRAPPED = 100_000


def render_text(report: ScanReport, width: int | None = None, color: bool = False) -> str:
    """`width`: the terminal's columns to wrap at; None never wraps."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width or UNWRAPPED,
        soft_wrap=width is None,
        force_terminal=color,
        no_color=not color,
        highlight=False,
    )
    table = Table(title="codebias: functions tested for bias", show_lines=False)
    for column in ("function", "status", "attributes", "biased for", "calls"):
        table.add_column(column, overflow="fold")
    for fn in report.functions:
        table.add_row(
            f"{shown(fn.path)}:{fn.line} {fn.qualname}",
            f"[{STYLE[fn.shown_status]}]{fn.shown_status}[/]",
            ", ".join(fn.attributes_tested) or "-",
            ", ".join(fn.biased_attributes)
            or (f"static: {', '.join(fn.static_attributes)}" if fn.static_attributes else "-"),
            str(fn.executions),
        )
    console.print(table)
    for fn in report.functions:
        for finding in fn.findings:
            where = f"{shown(fn.path)}:{finding.line or fn.line}"
            refusal = finding.refusal_text
            console.print(
                f"[bold]{where}[/] {fn.qualname}: "
                f"[red]{finding.attribute}[/] via {shown(finding.parameter)}"
                + (f": [red]{shown(refusal)}[/]" if refusal else "")
            )
            if finding.example is not None:
                ex = finding.example
                parameter = shown(finding.parameter)
                if ex.source:  # a call the project's own tests or demos made, recorded
                    console.print(f"    from    {shown(ex.source)}")
                console.print(f"    inputs  {shown(json.dumps(ex.inputs, default=safe_repr))}")
                for value, output in zip(ex.values[:2], ex.outputs[:2], strict=False):
                    console.print(f"    {parameter} = {shown(safe_repr(value))} -> {shown(output)}")
            else:
                console.print("    static finding: reaches a branch or the output (not run)")
        for accepted in fn.accepted:
            console.print(
                f"[dim]{shown(fn.path)}:{fn.line} {fn.qualname}: {accepted.finding.attribute} "
                f"accepted in the {accepted.source}: {shown(accepted.reason)}[/]"
            )
        if not fn.is_settled and fn.reason:
            console.print(
                f"[yellow]{shown(fn.path)}:{fn.line} {fn.qualname}: {fn.status}: "
                f"{shown(fn.reason)}[/]"
            )
    s = report.summary()
    per = ", ".join(f"{a} {v['biased']}/{v['functions']}" for a, v in s["by_attribute"].items())
    static = f", {s['static']} with static findings (not run)" if s["static"] else ""
    console.print(
        f"\n{s['functions']} functions, {s['tested']} tested, {s['biased']} biased{static} "
        f"(CBS {s['cbs']:.1%}){'; by attribute: ' + per if per else ''}; {s['seconds']:.1f}s"
    )
    return buffer.getvalue()
