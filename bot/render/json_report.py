"""The JSON report of interfaces.md §2 (accepted findings under each function's added
`accepted` key, with the reason and where it was accepted)."""

from __future__ import annotations

import json

from analysis.report import ScanReport, safe_repr


def render_json(report: ScanReport) -> str:
    return json.dumps(report.to_dict(), indent=2, default=safe_repr) + "\n"
