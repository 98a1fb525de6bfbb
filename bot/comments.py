"""What a review says on GitHub: the check run's title and summary, the inline comment on a
biased function, and the review's body. Built from the renderer's markdown pieces.

Proven bias (a counterexample was executed) and static findings (the function could not run)
are counted and listed apart; only the first is called "biased".
"""

from __future__ import annotations

from analysis.report import ScanReport
from bot.outcome import FunctionResult, ReviewOutcome
from bot.render.escape import code_span, fenced
from bot.render.markdown import accepted_lines, attribute_table, finding_block


def _age(result: FunctionResult, attribute: str) -> str:
    return "new" if attribute in result.new_attributes else "pre-existing"


def check_title(outcome: ReviewOutcome) -> str:
    biased, static = len(outcome.biased), len(outcome.static)
    failing = len(outcome.failing())
    if not biased and not static:
        return f"No bias found in {len(outcome.results)} changed function(s)"
    parts = [f"{biased} biased function(s)"]
    if static:
        parts.append(f"{static} with static findings (not run)")
    return f"{', '.join(parts)}; {failing} failing the policy (fail_on: {outcome.fail_on})"


def check_summary(outcome: ReviewOutcome) -> str:
    reports = [r.report for r in outcome.results]
    summary = ScanReport(reports).summary()
    new = sum(len(set(r.report.biased_attributes) & r.new_attributes) for r in outcome.biased)
    old = sum(len(set(r.report.biased_attributes) - r.new_attributes) for r in outcome.biased)
    static_rule = "they fail the check" if outcome.fail_on_static else "they do not fail the check"
    lines = [
        f"Tested **{summary['tested']}** of **{summary['functions']}** changed functions; "
        f"**{summary['biased']}** biased (CBS {summary['cbs']:.2f}).",
        f"Bias findings: **{new}** new in this pull request, **{old}** pre-existing "
        f"(the check fails on: `{outcome.fail_on}`).",
    ]
    if outcome.static:
        lines.append(
            f"**{len(outcome.static)}** function(s) could not run and have static findings "
            f"(`fail_on_static: {str(outcome.fail_on_static).lower()}`: {static_rule})."
        )
    lines.append("")
    lines += attribute_table(summary)
    if outcome.biased:
        lines.append("**Biased functions** (a counterexample was executed)")
        for r in outcome.biased:
            kinds = ", ".join(f"{a} ({_age(r, a)})" for a in r.report.biased_attributes)
            where = code_span(f"{r.report.path}:{r.report.line}")
            lines.append(f"- {where} {code_span(r.report.qualname)}: {kinds}")
        lines.append("")
    if outcome.static:
        lines.append("**Static findings** (not run: a protected input reaches a decision)")
        for r in outcome.static:
            kinds = ", ".join(f"{a} ({_age(r, a)})" for a in r.report.static_attributes)
            lines.append(
                f"- {code_span(f'{r.report.path}:{r.report.line}')} "
                f"{code_span(r.report.qualname)}: "
                f"{kinds} — {code_span(r.report.reason or 'could not run')}"
            )
        lines.append("")
    accepted = accepted_lines(reports)
    if accepted:
        lines += ["**Accepted** (allow list or `# codebias: ignore`)", *accepted, ""]
    other = [
        r.report
        for r in outcome.results
        if not r.report.was_run and not r.report.static_findings
    ]
    if other or outcome.skipped_files:
        lines.append("**Not verified or skipped**")
        lines += [
            f"- {code_span(f'{r.path}::{r.qualname}')} {r.status}: "
            f"{code_span(r.reason or 'no reason given')}"
            for r in other
        ]
        lines += [f"- {code_span(n.path)}: {code_span(n.reason)}" for n in outcome.skipped_files]
        lines.append("")
    if outcome.warnings:
        lines.append("**Warnings**")
        lines += [f"- {code_span(w)}" for w in outcome.warnings]
        lines.append("")
    cached = sum(1 for r in outcome.results if r.cached)
    if cached:
        lines.append(f"<sub>{cached} unchanged function(s) reused from an earlier run.</sub>")
    return "\n".join(lines).rstrip() + "\n"


def function_comment(result: FunctionResult, fingerprint: str, head_sha: str) -> str:
    """The inline review comment for one biased function."""
    report = result.report
    parts = [
        f"### ⚖️ codebias: {code_span(report.qualname)} treats people differently by "
        f"{', '.join(report.biased_attributes)}",
        "",
    ]
    for finding in report.findings:
        parts += [finding_block(finding, finding.attribute in result.new_attributes), ""]
    if result.suggestion is not None:
        agreement = result.suggestion.agreement
        share = (
            f" and gives the same output on {agreement:.0%} of the other inputs"
            if agreement is not None
            else ""
        )
        made_by = f", made by {result.suggestion.made_by}" if result.suggestion.made_by else ""
        parts += [
            f"A version that passed the same tests with no bias found{share} "
            f"(verified in the sandbox{made_by}):",
            "",
            fenced(result.suggestion.source, "suggestion"),
            "",
        ]
    elif result.fix_patch:
        parts += [
            "A verified fix (no bias found when re-tested in the sandbox), as a patch to apply:",
            "",
            fenced(result.fix_patch, "diff"),
            "",
        ]
    elif result.fix_note:
        parts += [f"_No verified fix:_ {code_span(result.fix_note)}", ""]
    parts += [
        "If this use is intended (for example a legal requirement), accept it in `.codebias.yml` "
        f"(`allow:`) or with `# codebias: ignore[{report.findings[0].attribute}] <reason>` "
        "on the `def` line.",
        "",
        f"<sub>commit {head_sha[:7]}</sub>",
        fingerprint,
    ]
    return "\n".join(parts)


def review_body(outcome: ReviewOutcome, outside_diff: list[str]) -> list[str]:
    """The review's own text: what was found, and findings that cannot sit on a diff line."""
    counts = f"{len(outcome.biased)} biased"
    if outcome.static:
        counts += f", {len(outcome.static)} with static findings (not run)"
    parts = [
        f"codebias tested the functions this pull request changes: {counts}, "
        f"conclusion **{outcome.conclusion}**."
    ]
    if outside_diff:
        parts += ["", "These findings are on lines outside the diff:", "", *outside_diff]
    return parts
