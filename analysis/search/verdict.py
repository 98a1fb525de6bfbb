"""From a search's result to a function's report: the findings with their counterexamples,
or why the function could only be judged statically, and the notes a reader needs."""

from __future__ import annotations

from dataclasses import replace

from analysis.errors import ReplyForged, SessionDied
from analysis.facts.conversions import Constant, converts
from analysis.report import Example, Finding, FunctionReport
from analysis.search.results import SearchResult
from analysis.shapes import ALIKE, InputModel, display, every_item, plain_value
from analysis.source.functions import FunctionInfo
from analysis.static.review import most_responsible, reaches_all
from config.policy import Policy, name_tokens


def findings_of(info: FunctionInfo, model: InputModel, result: SearchResult) -> list[Finding]:
    """A finding for each witness, at the line most responsible for the difference."""
    findings = []
    reached = reaches_all(info.node, [witness.leaf for witness in result.witnesses.values()])
    for witness in result.witnesses.values():
        leaf = witness.leaf
        assert leaf.category is not None
        reach = most_responsible(reached[leaf.display])
        inputs = model.plain({**witness.context, leaf.path: witness.values[0]})
        # With the peers alike, the value tried is every item's.
        every = ALIKE in witness.context
        findings.append(
            Finding(
                attribute=leaf.category,
                parameter=display(every_item(leaf.path, model)) if every else leaf.display,
                example=Example(
                    inputs, [plain_value(v) for v in witness.values], list(witness.outputs)
                ),
                line=reach.line if reach else info.line,
                kind=witness.kind,
            )
        )
    return findings


def record_result(
    info: FunctionInfo,
    model: InputModel,
    report: FunctionReport,
    result: SearchResult,
    runnable: bool,
    note: str | None,
) -> None:
    """Fill `report` from what the search found (`runnable`, `note`: of the module)."""
    report.executions = result.executions
    if result.errors.get("TamperError"):
        # Whatever the calls answered, they answered through a harness the module changed.
        static_review(info, model, report, "the module tampers with the test harness")
        report.executions = result.executions
        return
    report.findings += findings_of(info, model, result)
    if report.status == "error":
        # The child died or ran out of time before any proof: what the code says still holds.
        died(info, model, report, report.reason or "the sandbox died", result.executions)
        return
    if result.needs and not report.findings:
        # A call that used a stub proves nothing either way: not clean, not biased.
        needed = ", ".join(sorted(result.needs))
        static_review(
            info,
            model,
            report,
            f"needs {needed}, which cannot be imported here (stubbed); judged statically",
        )
        report.executions = result.executions
        return
    if result.never_ran and not report.findings:
        common = result.errors.most_common(1)[0][0] if result.errors else "an error"
        common = one_line(result.error_messages.get(common, common))
        static_review(info, model, report, f"every call raised ({common}); judged statically")
        report.executions = result.executions
        return
    report.status = "biased" if report.findings else "clean"
    notes = [] if runnable else [f"{note}; this function itself is intact and was run"]
    untested = judge_leaves(info, model, report, result.needing)
    if untested:
        needed = ", ".join(sorted(result.needs))
        notes.append(f"{untested} needs {needed} (stubbed here): judged statically")
    unsettled = judge_leaves(info, model, report, result.undecided)
    if unsettled:
        notes.append(f"the budget ran out before settling {unsettled}: judged statically")
    if result.noisy:
        notes.append(
            f"output is nondeterministic for {', '.join(sorted(result.noisy))}; "
            "no stable difference found"
        )
    if result.exhausted and not report.findings:
        notes.append("stopped at the execution or time budget")
    if notes:
        report.reason = "; ".join(notes)


def static_review(
    info: FunctionInfo, model: InputModel, report: FunctionReport, reason: str
) -> None:
    report.status, report.method, report.reason = "unverified", "static", reason
    report.findings += static_findings(info, model)


def static_findings(info: FunctionInfo, model: InputModel) -> list[Finding]:
    """The protected inputs that visibly reach a branch or the output, as static findings."""
    found_all = []
    reached = reaches_all(info.node, model.protected)
    for leaf in model.protected:
        reach = most_responsible(reached[leaf.display])
        if reach is not None and leaf.category:
            found_all.append(Finding(leaf.category, leaf.display, None, reach.line, "static"))
    return found_all


def died(
    info: FunctionInfo, model: InputModel, report: FunctionReport, reason: str, executions: int
) -> None:
    """The function (or its module, while loading) killed its sandbox before any proof: a
    crash, `os._exit`, a clock or a memory kill. That is an `error`, as the README says; the
    calls that ran are counted, the fatal one included, and what the code says is kept
    beside it as static findings."""
    report.status, report.reason = "error", f"{reason}; judged statically"
    report.executions = executions
    report.method = "dynamic" if executions else "static"
    report.findings += static_findings(info, model)


def tampered(exc: Exception) -> str:
    return f"the module tampers with the test harness ({exc}); judged statically"


def stopped(
    info: FunctionInfo, model: InputModel, report: FunctionReport, exc: Exception, calls: int
) -> None:
    """The session ended before the search could judge: the child died, a reply came that
    the harness did not send, or every call needed a stubbed module."""
    if isinstance(exc, SessionDied) and not isinstance(exc, ReplyForged):
        died(info, model, report, str(exc), calls)
        return
    reason = tampered(exc) if isinstance(exc, ReplyForged) else f"{exc}; judged statically"
    static_review(info, model, report, reason)
    report.executions = calls


def judge_leaves(
    info: FunctionInfo, model: InputModel, report: FunctionReport, displays: set[str]
) -> str:
    """Static findings, beside the proof found for other attributes, for the protected inputs
    the search could not settle (their calls used a stubbed module, or the budget ran out
    first) and that the code visibly uses; their names."""
    proved = {f.attribute for f in report.findings}
    named: list[str] = []
    open_leaves = [leaf for leaf in model.protected if leaf.display in displays and leaf.category]
    reached = reaches_all(info.node, open_leaves)
    for leaf in open_leaves:
        if leaf.category is None or leaf.category in proved:
            continue
        reach = most_responsible(reached[leaf.display])
        if reach is not None:
            report.findings.append(Finding(leaf.category, leaf.display, None, reach.line, "static"))
            proved.add(leaf.category)
            named.append(leaf.display)
    return ", ".join(named)


def drop_conversions(
    info: FunctionInfo, report: FunctionReport, policy: Policy, const: Constant | None = None
) -> None:
    """A function that computes the attribute it receives (`decimal_age(birth_date, ...)`)
    echoes it in another form: not a finding (analysis/facts/conversions.py). Unless it refuses a
    realistic value: `canonical_sex("non-binary")` raising turns the person away."""
    converted = {
        f.attribute
        for f in report.findings
        if converts(info, f.attribute, policy, const) and f.kind != "refuses"
    }
    if not converted:
        return
    report.findings = [f for f in report.findings if f.attribute not in converted]
    named = ", ".join(sorted(converted))
    note = f"computes {named} itself (named so): a conversion, not a decision"
    report.reason = f"{report.reason}; {note}" if report.reason else note
    if report.status == "biased" and not any(f.method == "dynamic" for f in report.findings):
        report.status = "clean"


def one_line(error: str, limit: int = 160) -> str:
    """An error message short enough for a reason: its first line, cut at `limit`."""
    first = error.strip().splitlines()[0] if error.strip() else error
    return first if len(first) <= limit else first[: limit - 1] + "…"


def told_by_values(report: FunctionReport, policy: Policy) -> None:
    """A proof whose two values are themselves values of another category proves that one
    too: `WorkerType.MALE` against `WorkerType.FEMALE_WORKER` (a worker type, whose members
    say a sex) differs in gender as much as in occupation. Both values must name the other
    category, by a strong word or as one of its own values, and name it differently."""
    proved = {f.attribute for f in report.findings if f.method == "dynamic"}
    for found in list(report.findings):
        if found.method != "dynamic" or found.example is None or len(found.example.values) < 2:
            continue
        told = [value_told(value, policy) for value in found.example.values[:2]]
        if told[0] is None or told[1] is None:
            continue
        (category, word_a), (other, word_b) = told[0], told[1]
        if (
            category == other
            and word_a != word_b
            and category not in proved
            and category in policy.enabled_categories
        ):
            report.findings.append(replace(found, attribute=category))
            proved.add(category)
            if category not in report.attributes_tested:
                report.attributes_tested = sorted({*report.attributes_tested, category})


def value_told(value: object, policy: Policy) -> tuple[str, tuple[str, ...]] | None:
    """(category, word) a value of a proof names: a member's name (`WorkerType.FEMALE_CADRE`)
    or a text, by a strong word of a category or as one of its telling values."""
    if not isinstance(value, str) or len(value) > 60:
        return None
    text = value.rsplit(".", 1)[-1] if value[:1].isupper() and "." in value else value
    word = policy.word_in(text)
    category = policy.canonical_category(text)
    if category is not None and word is not None and policy.strength(word) == "strong":
        return category, word
    told = policy.category_told_by_value(text)
    return (told, tuple(name_tokens(text))) if told is not None else None
