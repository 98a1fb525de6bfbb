"""The result of a scan, as the JSON report of interfaces.md describes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["biased", "clean", "unverified", "error", "skipped"]
Method = Literal["dynamic", "static"]

REPORT_VERSION = 1


@dataclass
class Example:
    """One concrete counterexample: the same inputs, two protected values, two outputs."""

    inputs: dict[str, Any]
    values: list[Any]
    outputs: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "values": self.values, "outputs": self.outputs}


@dataclass
class Finding:
    attribute: str
    parameter: str
    example: Example | None = None
    line: int | None = None
    method: Method = "dynamic"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"attribute": self.attribute, "parameter": self.parameter}
        if self.example is not None:
            out["example"] = self.example.to_dict()
        out["line"] = self.line
        return out


@dataclass
class FunctionReport:
    path: str
    qualname: str
    line: int
    end_line: int
    status: Status
    method: Method = "dynamic"
    attributes_tested: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    executions: int = 0
    reason: str | None = None
    seconds: float = 0.0
    # Findings accepted by `# codebias: ignore[attr]` or the policy's allow list.
    accepted: list[tuple[Finding, str]] = field(default_factory=list)

    @property
    def biased_attributes(self) -> list[str]:
        return sorted({f.attribute for f in self.findings})

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "qualname": self.qualname,
            "line": self.line,
            "end_line": self.end_line,
            "status": self.status,
            "method": self.method,
            "attributes_tested": list(self.attributes_tested),
            "findings": [f.to_dict() for f in self.findings],
            "executions": self.executions,
            "reason": self.reason,
        }


@dataclass
class ScanReport:
    functions: list[FunctionReport]
    seconds: float = 0.0
    # Files that could not be read or parsed at all, with the reason.
    problems: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        total = len(self.functions)
        tested = sum(1 for f in self.functions if f.status in ("biased", "clean"))
        biased = sum(1 for f in self.functions if f.status == "biased")
        by_attribute: dict[str, dict[str, Any]] = {}
        for fn in self.functions:
            hit = set(fn.biased_attributes) if fn.status == "biased" else set()
            for attr in fn.attributes_tested:
                row = by_attribute.setdefault(attr, {"functions": 0, "biased": 0})
                row["functions"] += 1
                row["biased"] += attr in hit
        for row in by_attribute.values():
            row["cbs"] = round(row["biased"] / row["functions"], 4) if row["functions"] else 0.0
        return {
            "functions": total,
            "tested": tested,
            "biased": biased,
            "cbs": round(biased / total, 4) if total else 0.0,
            "by_attribute": dict(sorted(by_attribute.items())),
            "seconds": round(self.seconds, 3),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "functions": [f.to_dict() for f in self.functions],
            "summary": self.summary(),
        }
