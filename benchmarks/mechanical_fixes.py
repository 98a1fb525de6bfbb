"""Fixes without a model on the labelled corpus: the share of biased functions that the
mechanical rules fix (re-tested in the sandbox: no bias left, every output of the reference
group's tested inputs kept), per form of bias.

    python benchmarks/mechanical_fixes.py [--split train validation shapes] [--verbose]
    python benchmarks/mechanical_fixes.py --split holdout shapes_holdout   # blind: totals only

Functions: every function labelled `biased` in the splits named (tests/corpus), run as
`tests/corpus/measure.py` runs them (a module of a package of the split as its module there).
A fix counts only when the fixer verified it; each one is then checked again here with a
fresh engine (the patched module scanned anew: no dynamic finding; agreement 1.0 with the
original), and a fix that fails this second check is counted as "shown unverified" (it must
be 0). The form of a function's bias is read from its code, apart from the fixer: where the
biased attribute (or a local made from it) first decides something, in this order: a filter
over a collection, a table lookup, a branch (`if`, a conditional expression, `match`,
`assert`), a comparison whose truth is the output, a formula, a helper it is passed to.

Holdout splits (`holdout`, `shapes_holdout`) print totals only, never function names: they
are measured once and not tuned on.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "corpus"))

from corpus_labels import SPLITS, Label, load_labels  # noqa: E402

from analysis.engine import Engine  # noqa: E402
from analysis.errors import ExecutionError  # noqa: E402
from analysis.mitigation import FixResult, mechanical_fix  # noqa: E402
from analysis.scan.project import Placement, Project  # noqa: E402
from analysis.shapes import Leaf  # noqa: E402
from analysis.source.functions import FunctionNode, find_function  # noqa: E402
from analysis.static.review import Tainter  # noqa: E402
from config.policy import default_policy  # noqa: E402

BLIND = ("holdout", "shapes_holdout")
FORMS = ("filter", "lookup", "branch", "comparison", "formula", "helper", "other")
SHAPE_FUNCTIONS = frozenset({"sorted", "min", "max", "filter", "heapq.nlargest"})


@dataclass
class Outcome:
    label: Label
    form: str
    found: bool  # the engine proved the bias the label names (a fix needs a finding)
    fixed: bool = False
    rule: str | None = None
    shown_unverified: bool = False
    note: str = ""


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)

    def rows(self) -> list[tuple[str, int, int, int]]:
        """(form, biased functions, found by the engine, fixed) per form, then all."""
        out = []
        for form in [*FORMS, "all"]:
            chosen = [o for o in self.outcomes if form in ("all", o.form)]
            if chosen:
                out.append(
                    (
                        form,
                        len(chosen),
                        sum(o.found for o in chosen),
                        sum(o.fixed for o in chosen),
                    )
                )
        return out


def place_of(label: Label) -> tuple[str, Placement | None]:
    """The path and placement `tests/corpus/measure.py` scans the label's file with."""
    if "/" in label.file:
        project = Project.discover(label.path.parents[label.file.count("/")])
        return label.file, Placement(project, project.locate(label.path))
    return f"{label.split}/{label.file}", None


def form_of(fn: FunctionNode, leaves: list[Leaf]) -> str:
    """Where the biased attribute first decides something (see the module's docstring)."""
    seen: set[str] = set()
    for leaf in leaves:
        tainter = Tainter(fn, leaf)
        for node in ast.walk(fn):
            seen |= forms_at(node, tainter)
    return next((form for form in FORMS if form in seen), "other")


def forms_at(node: ast.AST, tainter: Tainter) -> set[str]:
    found: set[str] = set()
    if isinstance(node, ast.comprehension) and any(tainter.tainted(c) for c in node.ifs):
        found.add("filter")
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func)
        keyed = [k.value for k in node.keywords if k.arg == "key"]
        picked_by = keyed + (node.args[:1] if name == "filter" else [])
        if name in SHAPE_FUNCTIONS and any(tainter.tainted(k) for k in picked_by):
            found.add("filter")
        elif name.endswith((".get", ".index")) and node.args and tainter.tainted(node.args[0]):
            found.add("lookup")
        elif name.endswith("bisect") and any(tainter.tainted(a) for a in node.args):
            found.add("lookup")
        elif any(tainter.tainted(a) for a in node.args) and not name.startswith(
            ("str", "int", "float", "round", "abs", "min", "max", "len")
        ):
            found.add("helper")
    if isinstance(node, ast.Subscript) and tainter.tainted(node.slice):
        found.add("lookup")
    if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)) and tainter.tainted(node.test):
        found.add("branch")
    if isinstance(node, ast.Match) and tainter.tainted(node.subject):
        found.add("branch")
    if isinstance(node, ast.Compare) and tainter.tainted(node):
        found.add("comparison")
    if isinstance(node, ast.BinOp) and tainter.tainted(node):
        found.add("formula")
    return found


def measure(labels: list[Label], verbose: bool, blind: bool) -> Tally:
    policy = default_policy()
    tally = Tally()
    for label in labels:
        with Engine(policy) as engine:
            outcome = one(engine, label)
        tally.outcomes.append(outcome)
        if verbose and not blind:
            state = "fixed" if outcome.fixed else ("missed" if not outcome.found else "no fix")
            print(
                f"  {state:7} {outcome.form:10} {label.id} "
                f"{outcome.rule or ''} {outcome.note[:160]}",
                file=sys.stderr,
            )
    return tally


def one(engine: Engine, label: Label) -> Outcome:
    source = label.path.read_text(encoding="utf-8")
    path, place = place_of(label)
    found = engine.function_inputs(source, path, label.qualname, place)
    form = "other"
    if found is not None:
        _, info, model = found
        leaves = [leaf for leaf in model.protected if leaf.category in label.attributes]
        form = form_of(info.node, leaves)
    try:
        report = engine.scan_function(source, path, label.qualname, place)
    except ExecutionError as exc:
        return Outcome(label, form, False, note=str(exc))
    proven = set(report.biased_attributes) >= set(label.attributes)
    outcome = Outcome(label, form, bool(report.is_biased and proven))
    if not report.is_biased:
        outcome.note = f"the engine finds no bias ({report.status})"
        return outcome
    result = mechanical_fix(engine, source, path, label.qualname, report, place)
    outcome.note = result.note or ""
    if result.status == "fixed":
        outcome.fixed, outcome.rule = True, result.rule
        outcome.shown_unverified = not verified_again(result, source, path, label, place)
    return outcome


def verified_again(
    result: FixResult, source: str, path: str, label: Label, place: Placement | None
) -> bool:
    """The fix checked by a fresh engine: the patched module scanned anew shows no bias,
    and every output of one tested group is kept."""
    patched = result.new_module_source
    if patched is None or find_function(ast.parse(patched), label.qualname) is None:
        return False
    with Engine(default_policy()) as engine:
        retest = engine.scan_function(patched, path, label.qualname, place)
        agreement = engine.agreement(source, patched, path, label.qualname, place=place)
    return retest.is_settled and not retest.is_biased and agreement == 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split", nargs="+", choices=SPLITS, default=["train", "validation", "shapes"]
    )
    parser.add_argument("--only", help="only functions whose id contains this text")
    parser.add_argument("--verbose", action="store_true", help="one line per function")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    blind = any(split in BLIND for split in args.split)
    if blind and (args.only or args.verbose):
        parser.error("holdout splits are measured whole and by totals only")
    labels = [
        label
        for split in args.split
        for label in load_labels(split)
        if label.status == "biased" and (args.only is None or args.only in label.id)
    ]
    started = time.monotonic()
    tally = measure(labels, args.verbose, blind)
    seconds = time.monotonic() - started
    print(f"splits: {', '.join(args.split)}; {len(labels)} biased functions; {seconds:.0f} s")
    print(f"{'form':12} {'biased':>7} {'found':>6} {'fixed':>6} {'of found':>9} {'of all':>7}")
    for form, biased, proven, fixed in tally.rows():
        print(
            f"{form:12} {biased:7d} {proven:6d} {fixed:6d} "
            f"{fixed / proven if proven else 0:9.3f} {fixed / biased:7.3f}"
        )
    rules = Counter(o.rule for o in tally.outcomes if o.rule)
    print("rules: " + ", ".join(f"{name} {count}" for name, count in rules.most_common()))
    unverified = sum(o.shown_unverified for o in tally.outcomes)
    print(f"fixes shown that a fresh re-test did not verify: {unverified}")
    if args.json is not None:
        figures = {
            "splits": args.split,
            "seconds": round(seconds),
            "forms": {f: {"biased": b, "found": p, "fixed": x} for f, b, p, x in tally.rows()},
            "rules": dict(rules),
            "shown_unverified": unverified,
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 1 if unverified else 0


if __name__ == "__main__":
    sys.exit(main())
