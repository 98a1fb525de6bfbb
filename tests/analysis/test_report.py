"""Report records: one meaning of each status, and a lossless JSON round trip."""

from __future__ import annotations

import json

from analysis.report import Accepted, Example, Finding, FunctionReport, ScanReport


def full_report() -> FunctionReport:
    finding = Finding(
        "age", "age", Example({"age": 51, "score": 2}, [50, 51], ["False", "True"]), 11
    )
    return FunctionReport(
        "a.py",
        "decide",
        10,
        12,
        "biased",
        "dynamic",
        attributes_tested=["age", "gender"],
        findings=[finding],
        executions=9,
        reason="stopped at the execution or time budget",
        seconds=0.25,
        accepted=[Accepted(Finding("gender", "sex", None, 12, "static"), "statutory", "policy")],
    )


def test_a_report_survives_json_unchanged() -> None:
    report = full_report()
    assert FunctionReport.from_dict(json.loads(json.dumps(report.to_dict()))) == report


def test_moving_a_report_moves_its_lines_and_nothing_else() -> None:
    moved = full_report().moved("b.py", 20, 22)
    assert (moved.path, moved.line, moved.end_line) == ("b.py", 20, 22)
    assert moved.findings[0].line == 21 and moved.accepted[0].finding.line == 22
    assert moved.findings[0].example == full_report().findings[0].example
    assert (moved.executions, moved.reason, moved.seconds) == (9, full_report().reason, 0.25)


def test_static_findings_are_not_bias() -> None:
    static = Finding("age", "age", None, 2, "static")
    report = FunctionReport("a.py", "f", 1, 2, "unverified", "static", ["age"], [static])
    assert not report.is_biased and not report.was_run and report.has_findings
    assert report.biased_attributes == [] and report.static_attributes == ["age"]
    summary = ScanReport([report, full_report()]).summary()
    assert (summary["biased"], summary["static"], summary["tested"]) == (1, 1, 1)


def test_a_function_whose_findings_were_all_accepted_reads_accepted() -> None:
    report = full_report()
    report.findings, report.status = [], "clean"
    assert report.is_accepted and report.shown_status == "accepted" and report.is_settled
    assert ScanReport([report]).summary()["accepted"] == 1
