"""The JSON report of `codebias scan --format json` (schemas/report.schema.json): accepted
findings under each function's added `accepted` key, with the reason and where it was
accepted, and a function whose every finding was accepted reads the added status `accepted`
(as in every other format); accepting lines that can never match under the added top-level
`warnings`; what each recording run did (analysis/evidence/) under the added top-level
`evidence`."""

from __future__ import annotations

import json

from analysis.report import ScanReport, safe_repr


def render_json(report: ScanReport) -> str:
    data = report.to_dict()
    for shown, function in zip(data["functions"], report.functions, strict=True):
        shown["status"] = function.shown_status
    if report.warnings:
        data["warnings"] = list(report.warnings)
    if report.evidence:
        data["evidence"] = list(report.evidence)
    return json.dumps(data, indent=2, default=safe_repr) + "\n"
