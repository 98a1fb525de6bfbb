"""The JSON report of interfaces.md §2."""

from __future__ import annotations

import json

from analysis.report import ScanReport


def render_json(report: ScanReport) -> str:
    data = report.to_dict()
    for entry, fn in zip(data["functions"], report.functions, strict=True):
        if fn.accepted:
            # Added to the fixed edge, never changing it: findings someone accepted, with why.
            entry["accepted"] = [
                {**finding.to_dict(), "reason": reason} for finding, reason in fn.accepted
            ]
    return json.dumps(data, indent=2, default=str) + "\n"
