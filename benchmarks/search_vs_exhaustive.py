"""The engine's search against exhaustive search over the same functions and value pools.

Exhaustive search tries, for every protected input, all of its values in every combination
of the other inputs' pools (the full cartesian product, stopping at the first confirmed
witness as the engine does). Both run in the same sandbox through the same harness.
Functions: the labelled corpus (tests/corpus), biased and clean alike.

Both searches vary every protected input the model holds (`--leaves all`, the default, the
method of every figure in benchmarks/RESULTS.md). `--leaves read` varies only those the
function can read, as `codebias scan` chooses its targets (a field of a record the function
never touches is searched by neither): exhaustive search then has far less to waste, so the
ratio is smaller.

    python benchmarks/search_vs_exhaustive.py [--split train|validation|all] [--cap N]
        [--leaves read|all]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.engine import Engine  # noqa: E402
from analysis.inputs.builder import InputBuilder  # noqa: E402
from analysis.search.search import Search  # noqa: E402
from analysis.shapes import InputModel  # noqa: E402
from analysis.source.functions import list_functions  # noqa: E402
from analysis.static.review import acting_with, condition_scopes, never_read  # noqa: E402
from analysis.static.taint import tainters  # noqa: E402
from config.policy import default_policy  # noqa: E402


def product_contexts(model: InputModel, cap: int) -> Iterator[dict[Any, Any]]:
    leaves = model.leaves
    for combo in itertools.islice(itertools.product(*(leaf.pool for leaf in leaves)), cap):
        yield {leaf.path: value for leaf, value in zip(leaves, combo, strict=True)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=["train", "validation", "holdout", "all"], default="all")
    parser.add_argument(
        "--cap", type=int, default=200_000, help="max executions per function for exhaustive"
    )
    parser.add_argument("--leaves", choices=["read", "all"], default="all")
    parser.add_argument("--json", type=Path, help="write each function's figures here")
    args = parser.parse_args()
    splits = ["train", "validation", "holdout"] if args.split == "all" else [args.split]
    files = sorted(p for s in splits for p in (ROOT / "tests/corpus" / s).glob("*.py"))
    policy = default_policy()
    engine = Engine(policy)
    rows = []
    for file in files:
        source = file.read_text()
        module = engine.load_module(source, str(file))
        if module is None or not module.runnable:
            continue
        for info in list_functions(module.parsed.tree):
            model = InputBuilder(module.facts, policy).build(info)
            targets = model.protected
            if args.leaves == "read":
                targets = [leaf for leaf in targets if not never_read(info.node, leaf)]
            if not targets:
                continue
            row: dict[str, Any] = {"fn": f"{file.name}::{info.qualname}"}
            for mode in ("engine", "exhaustive"):
                started = time.monotonic()
                # The engine runs under its own limits; exhaustive search may need minutes.
                exhaustive = mode == "exhaustive"
                limits = (
                    replace(engine.limits, session_timeout=900.0, cpu_seconds=900)
                    if exhaustive
                    else engine.limits
                )
                seconds = 900.0 if exhaustive else policy.budget.seconds_per_function
                with engine.executor().open(engine.target(info, module), limits) as session:
                    if session.load_error:
                        break
                    stream = None if mode == "engine" else product_contexts(model, args.cap)
                    budget = policy.budget.executions_per_function if mode == "engine" else args.cap
                    deadline = time.monotonic() + seconds
                    # The engine's own search, as `Engine.judge` sets it up: the conditions
                    # of the function say which pairs of inputs may act together.
                    walks = tainters(info.node, model.leaves)
                    scopes = (
                        condition_scopes(info.node, model.leaves, walks) if stream is None else None
                    )
                    acting = acting_with(info.node, model.leaves, walks)
                    search = Search(
                        model,
                        session,
                        targets,
                        budget,
                        deadline,
                        stream,
                        policy,
                        scopes=scopes,
                        acting=acting if stream is None else frozenset(),
                    )
                    try:
                        result = search.run()
                    except Exception as exc:  # noqa: BLE001 - a dying function is one row, not the run
                        print(f"{row['fn']}: {mode}: {exc}", file=sys.stderr)
                        break
                row[mode] = {
                    "found": {w.leaf.category for w in result.witnesses.values()},
                    "executions": result.executions,
                    "seconds": time.monotonic() - started,
                }
            else:
                rows.append(row)
    if args.json:
        args.json.write_text(
            json.dumps([{**r, **{m: {**r[m], "found": sorted(r[m]["found"])} for m in
                                 ("engine", "exhaustive")}} for r in rows], indent=1)
        )
    found_engine = sum(len(r["engine"]["found"]) for r in rows)
    found_exhaustive = sum(len(r["exhaustive"]["found"]) for r in rows)
    both = sum(len(r["engine"]["found"] & r["exhaustive"]["found"]) for r in rows)
    exec_engine = sum(r["engine"]["executions"] for r in rows)
    exec_exhaustive = sum(r["exhaustive"]["executions"] for r in rows)
    sec_engine = [r["engine"]["seconds"] for r in rows]
    sec_exhaustive = [r["exhaustive"]["seconds"] for r in rows]
    missed = [
        (r["fn"], sorted(r["exhaustive"]["found"] - r["engine"]["found"]))
        for r in rows
        if r["exhaustive"]["found"] - r["engine"]["found"]
    ]
    print(
        f"functions: {len(rows)} (with protected inputs, runnable) from {len(files)} corpus files"
    )
    print(
        "biased (function, attribute) pairs found: "
        f"engine {found_engine}, exhaustive {found_exhaustive}"
    )
    recall = both / found_exhaustive if found_exhaustive else 1.0
    print(f"engine recall relative to exhaustive: {recall:.1%}")
    print(
        f"executions: engine {exec_engine}, exhaustive {exec_exhaustive}, "
        f"ratio 1/{exec_exhaustive / max(exec_engine, 1):.1f}"
    )
    print(
        f"seconds per function (median): engine {statistics.median(sec_engine):.3f}, "
        f"exhaustive {statistics.median(sec_exhaustive):.3f}; "
        f"totals {sum(sec_engine):.1f} vs {sum(sec_exhaustive):.1f}"
    )
    for fn, attrs in missed:
        print(f"  missed by the engine: {fn} {attrs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
