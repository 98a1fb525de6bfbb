"""SARIF 2.1.0: one result per finding, ruleId `codebias/<attribute>`, for code scanning."""

from __future__ import annotations

import json
from typing import Any

from analysis.report import Finding, FunctionReport, ScanReport, safe_repr
from analysis.version import ENGINE_VERSION

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def rule(attribute: str) -> dict[str, Any]:
    return {
        "id": f"codebias/{attribute}",
        "name": f"Bias{attribute.title().replace('_', '')}",
        "shortDescription": {"text": f"Output depends on {attribute.replace('_', ' ')}"},
        "fullDescription": {
            "text": f"Changing only the {attribute.replace('_', ' ')} of an input, with every "
            "other input fixed, changes what the function returns."
        },
        "helpUri": "https://arxiv.org/abs/2309.14345",
        "defaultConfiguration": {"level": "error"},
    }


def message(fn: FunctionReport, finding: Finding) -> str:
    attribute = finding.attribute.replace("_", " ")
    if finding.is_static or finding.example is None:
        return (
            f"`{fn.qualname}` may treat people differently by {attribute} (static finding, not "
            f"run: {finding.parameter} reaches a branch or the output; {fn.reason})"
        )
    subject = f"`{fn.qualname}` treats people differently by {attribute}"
    ex = finding.example
    # A call the project's own tests or demos made, recorded (analysis/evidence/).
    origin = f" (from the call made by {ex.source})" if ex.source else ""
    side = finding.refused_side
    if side is not None and len(ex.values) == 2 and len(ex.outputs) == 2:
        other = 1 - side
        return (
            f"`{fn.qualname}` refuses people by {attribute}: with "
            f"{json.dumps(ex.inputs, default=safe_repr)}, {finding.parameter} = "
            f"{safe_repr(ex.values[side])} {ex.outputs[side]}, while "
            f"{safe_repr(ex.values[other])} returns {ex.outputs[other]}{origin}."
        )
    return (
        f"{subject}: with {json.dumps(ex.inputs, default=safe_repr)}, changing {finding.parameter} "
        f"from {safe_repr(ex.values[0])} to {safe_repr(ex.values[1])} changes the result from "
        f"{ex.outputs[0]} to {ex.outputs[1]}{origin}."
    )


def result(fn: FunctionReport, finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    line = finding.line or fn.line
    return {
        "ruleId": f"codebias/{finding.attribute}",
        "ruleIndex": index[finding.attribute],
        # Proven bias is an error; a static finding (the function could not run) a warning.
        "level": "warning" if finding.is_static else "error",
        "message": {"text": message(fn, finding)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": fn.path.replace("\\", "/")},
                    "region": {"startLine": max(1, line)},
                },
                "logicalLocations": [{"fullyQualifiedName": fn.qualname, "kind": "function"}],
            }
        ],
        "partialFingerprints": {"codebias/v1": f"{fn.path}::{fn.qualname}::{finding.attribute}"},
        "properties": {"method": finding.method},
    }


def render_sarif(report: ScanReport) -> str:
    attributes = sorted(
        {f.attribute for fn in report.functions for f in fn.findings}
        | {a.finding.attribute for fn in report.functions for a in fn.accepted}
    )
    index = {a: i for i, a in enumerate(attributes)}
    results = []
    for fn in report.functions:
        results += [result(fn, finding, index) for finding in fn.findings]
        for accepted in fn.accepted:
            # Accepted findings stay visible, suppressed with the reason (SARIF §3.35).
            suppressed = result(fn, accepted.finding, index)
            suppressed["suppressions"] = [
                {
                    "kind": "inSource" if accepted.source == "code" else "external",
                    "justification": accepted.reason,
                }
            ]
            results.append(suppressed)
    sarif = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "codebias",
                        "version": ENGINE_VERSION,
                        "informationUri": "https://arxiv.org/abs/2309.14345",
                        "rules": [rule(a) for a in attributes],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2, default=safe_repr) + "\n"
