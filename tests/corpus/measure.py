"""Precision and recall of the engine on the labelled corpus, per split.

    python tests/corpus/measure.py [--split train|validation|holdout|shapes|shapes_holdout|all]
        [--jobs N] [--verbose]

Counts are per (function, attribute) pair: a biased label names the pairs that must carry a
dynamic finding, an unverified label the pairs that must carry a static one. A function
counts as exact when its status, finding set, counterexamples and pinned attributes_tested
all match its label. The engine runs with the default policy and the default (sandboxed)
executor, exactly as `tests/test_corpus.py` runs it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_labels import SPLITS, Label, load_labels  # noqa: E402

if TYPE_CHECKING:
    from analysis import Engine, FunctionReport


def make_engine(jobs: int = 1, executor: str = "default") -> Engine:
    from analysis import Engine
    from analysis.execution.process import ProcessExecutor
    from config.policy import default_policy

    # "process" (rlimits only) is for trying the engine where the sandbox is missing;
    # the figures to quote come from the default, sandboxed executor.
    chosen = ProcessExecutor() if executor == "process" else None
    return Engine(default_policy(), executor=chosen, jobs=jobs)


def scan_file(engine: Engine, label: Label) -> dict[str, FunctionReport]:
    """Every function the engine reports for the label's file, by qualname.

    A module inside a package of the split (`shapes/fleetcover/quote.py`) is scanned as
    `codebias scan` would scan it in a repository: the split folder is the project root, so
    the module's relative and absolute imports of its siblings resolve."""
    source = label.path.read_text(encoding="utf-8")
    if "/" in label.file:
        from analysis.scan.project import Project

        project = Project.discover(label.path.parents[label.file.count("/")])
        reports = engine.scan_source(source, label.file, project=project)
    else:
        reports = engine.scan_source(source, f"{label.split}/{label.file}")
    return {report.qualname: report for report in reports}


def problems(label: Label, report: FunctionReport) -> list[str]:
    """What the report gets wrong against the label, in words; empty when it matches."""
    out: list[str] = []
    found = {f.attribute for f in report.findings}
    if report.status != label.status:
        out.append(f"status {report.status!r}, expected {label.status!r} ({report.reason})")
    if label.status in ("biased", "unverified"):
        if found != set(label.attributes):
            out.append(f"findings for {sorted(found)}, expected {sorted(label.attributes)}")
    elif found:
        out.append(f"findings for {sorted(found)}, expected none")
    want_method = "static" if label.status == "unverified" else "dynamic"
    for finding in report.findings:
        if finding.method != want_method:
            out.append(f"{finding.attribute}: method {finding.method}, expected {want_method}")
        if finding.method == "dynamic":
            out.extend(counterexample_problems(finding))
    if label.attrs is not None and set(report.attributes_tested) != set(label.attrs):
        out.append(
            f"attributes_tested {sorted(report.attributes_tested)}, expected {sorted(label.attrs)}"
        )
    return out


def counterexample_problems(finding: Any) -> list[str]:
    example = finding.example
    name = finding.attribute
    if example is None:
        return [f"{name}: dynamic finding without a counterexample"]
    out = []
    if len(example.values) != 2 or example.values[0] == example.values[1]:
        out.append(f"{name}: counterexample values {example.values!r} are not two different values")
    if len(example.outputs) != 2 or example.outputs[0] == example.outputs[1]:
        out.append(f"{name}: counterexample outputs {example.outputs!r} do not differ")
    return out


@dataclass
class Tally:
    functions: int = 0
    exact: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    static_tp: int = 0
    static_fp: int = 0
    static_fn: int = 0
    executions: int = 0
    seconds: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def add(self, label: Label, report: FunctionReport | None, error: str | None) -> None:
        self.functions += 1
        if report is None:
            self.misses.append(f"{label.id}: {error}")
            if label.status == "biased":
                self.fn += len(label.attributes)
            if label.status == "unverified":
                self.static_fn += len(label.attributes)
            return
        self.executions += report.executions
        self.seconds.append(report.seconds)
        wrong = problems(label, report)
        if wrong:
            self.misses.append(f"{label.id}: " + "; ".join(wrong))
        else:
            self.exact += 1
        dynamic = {f.attribute for f in report.findings if report.status == "biased"}
        static = {f.attribute for f in report.findings if report.status == "unverified"}
        want_dynamic = set(label.attributes) if label.status == "biased" else set()
        want_static = set(label.attributes) if label.status == "unverified" else set()
        self.tp += len(dynamic & want_dynamic)
        self.fp += len(dynamic - want_dynamic)
        self.fn += len(want_dynamic - dynamic)
        self.static_tp += len(static & want_static)
        self.static_fp += len(static - want_static)
        self.static_fn += len(want_static - static)

    def row(self, name: str) -> str:
        median = statistics.median(self.seconds) if self.seconds else 0.0
        return (
            f"{name:<11} {self.functions:>5} {self.exact:>6}  "
            f"{ratio(self.tp, self.tp + self.fp):>9} {ratio(self.tp, self.tp + self.fn):>7}  "
            f"({self.tp} tp, {self.fp} fp, {self.fn} fn)  "
            f"static {ratio(self.static_tp, self.static_tp + self.static_fp)}"
            f"/{ratio(self.static_tp, self.static_tp + self.static_fn)}  "
            f"executions {self.executions}, median {median:.3f}s"
        )


def ratio(num: int, den: int) -> str:
    return f"{num / den:.3f}" if den else "n/a"


def measure(splits: Iterable[str], jobs: int = 1, executor: str = "default") -> dict[str, Tally]:
    engine = make_engine(jobs, executor)
    tallies: dict[str, Tally] = {}
    for split in splits:
        tally = tallies.setdefault(split, Tally())
        by_file: dict[str, list[Label]] = {}
        for label in load_labels(split):
            by_file.setdefault(label.file, []).append(label)
        for labels in by_file.values():
            try:
                reports = scan_file(engine, labels[0])
                error = None
            except Exception as exc:  # noqa: BLE001 - a crash is a figure here, reported below
                reports, error = {}, f"scan failed: {type(exc).__name__}: {exc}"
            for label in labels:
                report = reports.get(label.qualname)
                why = error or f"not reported (engine reported {sorted(reports)})"
                tally.add(label, report, None if report else why)
    return tallies


# Splits the developer never reads (tests/corpus/README.md): their figures only.
BLIND = frozenset({"holdout", "shapes_holdout"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--executor", choices=["default", "process"], default="default")
    parser.add_argument("--verbose", action="store_true", help="list every mismatch")
    args = parser.parse_args(argv)
    splits = SPLITS if args.split == "all" else (args.split,)
    started = time.monotonic()
    tallies = measure(splits, args.jobs, args.executor)
    print(f"executor: {args.executor}")
    print(f"{'split':<11} {'funcs':>5} {'exact':>6}  {'precision':>9} {'recall':>7}")
    for split, tally in tallies.items():
        print(tally.row(split))
    print(f"({time.monotonic() - started:.1f}s wall clock)")
    for split, tally in tallies.items():
        if tally.misses:
            print(f"\n{split}: {len(tally.misses)} function(s) differ from their label")
            if split in BLIND:
                continue  # a blind split's misses are counted, never named to the developer
            for miss in tally.misses if args.verbose else tally.misses[:20]:
                print(f"  {miss}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
