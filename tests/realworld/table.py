"""The measurement as markdown tables (pasted into tests/realworld/README.md as they print)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from score import ratio

if TYPE_CHECKING:
    from measure import Run


@dataclass(frozen=True)
class Totals:
    """Label agreement summed over a set of runs (one mode)."""

    pairs: int
    proved: int
    detected: int
    true_alarms: int
    false_alarms: int
    static_alarms: int
    crashes: int
    general_biased: int

    @property
    def precision(self) -> float | None:
        found = self.true_alarms + self.false_alarms
        return self.true_alarms / found if found else None


def totals(runs: list[Run]) -> Totals:
    scored = [r.score for r in runs if r.score is not None]
    return Totals(
        pairs=sum(s.labelled_pairs for s in scored),
        proved=sum(len(s.proved) for s in scored),
        detected=sum(len(s.detected) for s in scored),
        true_alarms=sum(s.true_alarms for s in scored),
        false_alarms=sum(len(s.false_alarms) for s in scored),
        static_alarms=sum(len(s.static_alarms) for s in scored),
        crashes=sum(1 for r in runs if r.crash),
        general_biased=sum(
            r.score.biased_functions for r in runs
            if r.score is not None and r.package.kind == "general"
        ),
    )


def _reasons(counter: Counter[str], limit: int = 4) -> str:
    if not counter:
        return "-"
    parts = [f"{group} {n}" for group, n in counter.most_common(limit)]
    rest = sum(counter.values()) - sum(n for _, n in counter.most_common(limit))
    return "; ".join(parts) + (f"; other {rest}" if rest else "")


def _header(*cells: str) -> list[str]:
    return ["| " + " | ".join(cells) + " |", "|" + "---|" * len(cells)]


def package_rows(runs: list[Run]) -> list[str]:
    # `recording s`: of `seconds`, the recording of the project's own runs (analysis/evidence/)
    rows = _header("package", "kind", "functions", "tested", "unverified (by reason)", "biased",
                   "seconds", "recording s", "functions/s", "crash")
    for run in runs:
        s = run.score
        kind = run.package.kind + (f" ({run.package.split})" if run.package.split else "")
        if s is None:
            rows.append(f"| {run.package.key} | {kind} | - | - | - | - | {run.seconds:.1f} | - "
                        f"| - | {run.crash} |")
            continue
        rate = s.functions / run.seconds if run.seconds else 0.0
        unverified = s.statuses["unverified"] + s.statuses["error"]
        rows.append(
            f"| {run.package.key} | {kind} | {s.functions} | {s.tested} | "
            f"{unverified}: {_reasons(s.unverified)} | {s.biased_functions} | "
            f"{run.seconds:.1f} | {run.recording_seconds:.1f} | {rate:.0f} | {run.crash or 'no'} |"
        )
    return rows


def label_rows(runs: list[Run]) -> list[str]:
    rows = _header("package", "split", "labelled biased pairs", "proved", "detected",
                   "biased pairs found", "false alarms")
    for run in runs:
        s = run.score
        if s is None or (s.labelled_pairs == 0 and s.biased_findings == 0):
            continue
        rows.append(
            f"| {run.package.key} | {run.package.split or run.package.kind} "
            f"| {s.labelled_pairs} | {ratio(len(s.proved), s.labelled_pairs)} "
            f"| {ratio(len(s.detected), s.labelled_pairs)} "
            f"| {s.biased_findings} | {len(s.false_alarms)} |"
        )
    return rows


def summary_lines(runs: list[Run]) -> list[str]:
    lines = []
    person = [r for r in runs if r.package.kind == "person"]
    for name, chosen in (
        ("all person packages", person),
        ("dev", [r for r in person if r.package.split == "dev"]),
        ("holdout", [r for r in person if r.package.split == "holdout"]),
    ):
        t = totals(chosen)
        lines.append(f"- {name}: proved {ratio(t.proved, t.pairs)}, "
                     f"detected {ratio(t.detected, t.pairs)}")
    every = totals(runs)
    precision = f"{every.precision:.3f}" if every.precision is not None else "n/a (no finding)"
    lines.append(f"- precision over every package: {precision} "
                 f"({every.true_alarms} true / {every.false_alarms} false biased "
                 "(function, attribute) pairs)")
    lines.append(f"- static findings against the labels (or in a general library): "
                 f"{every.static_alarms} (function, attribute) pairs")
    lines.append(f"- biased functions in the general libraries: {every.general_biased}")
    lines.append(f"- crashes: {every.crashes}")
    for run in runs:
        if run.package.speed and run.score is not None:
            lines.append(f"- speed target ({run.package.key}, {run.score.functions} functions): "
                         f"{run.seconds:.1f} s (target < 60 s)")
    return lines


def print_report(runs: list[Run], verbose: bool = False, out: Any = None) -> None:
    import sys

    stream = out or sys.stdout
    modes = list(dict.fromkeys(r.mode for r in runs))
    for mode in modes:
        chosen = [r for r in runs if r.mode == mode]
        title = "without dependencies" if mode == "bare" else "with dependencies"
        print(f"\n## {mode}: {title}\n", file=stream)
        print("\n".join(package_rows(chosen)), file=stream)
        print("", file=stream)
        print("\n".join(label_rows(chosen)), file=stream)
        print("", file=stream)
        print("\n".join(summary_lines(chosen)), file=stream)
        for run in chosen:
            if run.crash:
                print(f"\nCRASH {run.package.key}: {run.crash}", file=stream)
            s = run.score
            if s is None:
                continue
            if run.package.split == "holdout":  # blind: its totals only, never what it missed
                continue
            for alarm in s.false_alarms:
                print(f"FALSE ALARM {alarm}", file=stream)
            if s.missing_modules:
                print(f"{run.package.key}: missing modules {_reasons(s.missing_modules, 8)}",
                      file=stream)
            shown = s.missed if verbose else s.missed[:8]
            for miss in shown:
                print(f"MISSED {miss}", file=stream)
            if len(s.missed) > len(shown):
                print(f"... {len(s.missed) - len(shown)} more misses (--verbose)", file=stream)
