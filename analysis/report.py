"""The result of a scan, as the JSON report describes it (schemas/report.schema.json).

One meaning of "biased" everywhere: a function is biased when the sandbox executed a
counterexample (a *dynamic* finding). A function that could not run may still carry *static*
findings (a protected input reaches a branch or the output); it is `unverified`, and its
findings are counted and shown apart, never as bias.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

Status = Literal["biased", "clean", "unverified", "error", "skipped"]
Method = Literal["dynamic", "static"]
Kind = Literal["output", "refuses"]

REPORT_VERSION = 1
# How the refused side of a refusal's example reads: "raises ValueError: unsupported gender".
REFUSAL_PREFIX = "raises "


def safe_repr(value: Any) -> str:
    """repr() that never raises: a report is written whatever a value's __repr__ does."""
    try:
        return repr(value)
    except Exception as exc:  # noqa: BLE001 - any failure of foreign code is just text here
        return f"<unrepresentable {type(value).__name__}: {type(exc).__name__}>"


# Statuses that come from running the function (a verdict, not a guess).
RUN_STATUSES = frozenset({"biased", "clean"})


@dataclass
class Example:
    """One concrete counterexample: the same inputs, two protected values, two outputs."""

    inputs: dict[str, Any]
    values: list[Any]
    outputs: list[str]
    # Where the recorded call the example starts from came from (a test's node id, a
    # program's `__main__`); None for synthesised inputs (analysis/evidence/).
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"inputs": self.inputs, "values": self.values, "outputs": self.outputs}
        if self.source is not None:
            out["source"] = self.source
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Example:
        source = data.get("source")
        return cls(
            dict(data["inputs"]),
            list(data["values"]),
            [str(o) for o in data["outputs"]],
            str(source) if source is not None else None,
        )


@dataclass
class Finding:
    attribute: str
    parameter: str
    example: Example | None = None
    line: int | None = None
    method: Method = "dynamic"
    kind: Kind = "output"

    @property
    def is_static(self) -> bool:
        return self.method == "static"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"attribute": self.attribute, "parameter": self.parameter}
        if self.example is not None:
            out["example"] = self.example.to_dict()
        out["line"] = self.line
        out["method"] = self.method
        out["kind"] = self.kind
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        example = data.get("example")
        return cls(
            attribute=str(data["attribute"]),
            parameter=str(data["parameter"]),
            example=Example.from_dict(example) if example else None,
            line=data.get("line"),
            method=data.get("method", "dynamic"),
            kind=data.get("kind", "output"),
        )

    def moved(self, shift: int) -> Finding:
        return replace(self, line=None if self.line is None else self.line + shift)

    @property
    def refused_side(self) -> int | None:
        """For a refusal, which side of the example raised (0 or 1)."""
        if self.kind != "refuses" or self.example is None:
            return None
        for side, output in enumerate(self.example.outputs[:2]):
            if output.startswith(REFUSAL_PREFIX):
                return side
        return None

    @property
    def refused(self) -> tuple[Any, str] | None:
        """For a refusal, the value refused and the exception type it raised."""
        side = self.refused_side
        if side is None or self.example is None or len(self.example.values) <= side:
            return None
        output = self.example.outputs[side]
        return self.example.values[side], output.removeprefix(REFUSAL_PREFIX).split(":")[0]

    @property
    def refusal_text(self) -> str | None:
        """ "refuses gender='non-binary': ValueError", for a refusal."""
        refused = self.refused
        if refused is None:
            return None
        return f"refuses {self.parameter}={safe_repr(refused[0])}: {refused[1]}"


@dataclass
class Accepted:
    """A finding someone accepted, and why: in the code (`# codebias: ignore[...]`) or in the
    policy (`allow:`)."""

    finding: Finding
    reason: str
    source: Literal["code", "policy"] = "code"

    def to_dict(self) -> dict[str, Any]:
        return {**self.finding.to_dict(), "reason": self.reason, "accepted_in": self.source}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Accepted:
        source: Literal["code", "policy"] = (
            "policy" if data.get("accepted_in") == "policy" else "code"
        )
        return cls(Finding.from_dict(data), str(data.get("reason", "")), source)


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
    accepted: list[Accepted] = field(default_factory=list)

    @property
    def is_biased(self) -> bool:
        """A counterexample was executed (the only meaning of "biased")."""
        return self.status == "biased"

    @property
    def was_run(self) -> bool:
        """The function ran and got a verdict (biased or clean)."""
        return self.status in RUN_STATUSES

    @property
    def is_settled(self) -> bool:
        """A verdict that running again would not change: biased, clean, or nothing to test."""
        return self.was_run or self.status == "skipped"

    @property
    def has_findings(self) -> bool:
        """Any finding, dynamic or static."""
        return bool(self.findings)

    @property
    def is_accepted(self) -> bool:
        """Every finding was accepted: the function would be biased or flagged otherwise."""
        return bool(self.accepted) and not self.findings

    @property
    def shown_status(self) -> str:
        """The status people read: `accepted` for a function whose every finding was accepted."""
        return "accepted" if self.is_accepted else self.status

    @property
    def static_findings(self) -> list[Finding]:
        return [f for f in self.findings if f.is_static]

    @property
    def biased_attributes(self) -> list[str]:
        """Attributes with an executed counterexample."""
        return sorted({f.attribute for f in self.findings if not f.is_static})

    @property
    def static_attributes(self) -> list[str]:
        return sorted({f.attribute for f in self.static_findings})

    @property
    def flagged_attributes(self) -> list[str]:
        """Attributes with any finding."""
        return sorted({f.attribute for f in self.findings})

    def to_dict(self) -> dict[str, Any]:
        out = {
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
            "seconds": round(self.seconds, 3),
        }
        if self.accepted:
            out["accepted"] = [a.to_dict() for a in self.accepted]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FunctionReport:
        return cls(
            path=str(data["path"]),
            qualname=str(data["qualname"]),
            line=int(data["line"]),
            end_line=int(data["end_line"]),
            status=data["status"],
            method=data.get("method", "dynamic"),
            attributes_tested=[str(a) for a in data.get("attributes_tested", [])],
            findings=[Finding.from_dict(f) for f in data.get("findings", [])],
            executions=int(data.get("executions", 0)),
            reason=data.get("reason"),
            seconds=float(data.get("seconds", 0.0)),
            accepted=[Accepted.from_dict(a) for a in data.get("accepted", [])],
        )

    def moved(self, path: str, line: int, end_line: int) -> FunctionReport:
        """The same verdict for the same function, now at another place in its file."""
        shift = line - self.line
        return replace(
            self,
            path=path,
            line=line,
            end_line=end_line,
            findings=[f.moved(shift) for f in self.findings],
            accepted=[Accepted(a.finding.moved(shift), a.reason) for a in self.accepted],
        )


@dataclass
class ScanReport:
    functions: list[FunctionReport]
    seconds: float = 0.0
    # Files that could not be read or parsed at all, with the reason.
    problems: list[tuple[str, str]] = field(default_factory=list)
    # Accepting comments and `allow:` entries that can never match, in words.
    warnings: list[str] = field(default_factory=list)
    # What each project's recording run did (analysis/evidence/): an added JSON key.
    evidence: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        total = len(self.functions)
        biased = sum(1 for f in self.functions if f.is_biased)
        by_attribute: dict[str, dict[str, Any]] = {}
        for fn in self.functions:
            hit = set(fn.biased_attributes)
            for attr in fn.attributes_tested:
                row = by_attribute.setdefault(attr, {"functions": 0, "biased": 0})
                row["functions"] += 1
                row["biased"] += attr in hit
        for row in by_attribute.values():
            row["cbs"] = round(row["biased"] / row["functions"], 4) if row["functions"] else 0.0
        return {
            "functions": total,
            "tested": sum(1 for f in self.functions if f.was_run),
            "biased": biased,
            "static": sum(1 for f in self.functions if f.static_findings),
            "accepted": sum(1 for f in self.functions if f.is_accepted),
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
