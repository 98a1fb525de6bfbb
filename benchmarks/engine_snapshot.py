"""Every verdict the engine gives on the labelled corpus, as one JSON file, to diff across changes.

    python benchmarks/engine_snapshot.py OUT.json [--split all] [--jobs 1]
    python benchmarks/engine_snapshot.py --compare BEFORE.json AFTER.json

A refactor that claims "behaviour unchanged" shows it here: status, method, findings with
their counterexamples and executions of every corpus function, before and after. Seconds are
left out (they are the only field that differs between identical runs).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "corpus")]

from corpus_labels import SPLITS  # noqa: E402


def snapshot(splits: list[str], jobs: int) -> dict[str, Any]:
    from analysis import Engine
    from config.policy import default_policy

    engine = Engine(default_policy(), jobs=jobs)
    out: dict[str, Any] = {}
    for split in splits:
        folder = ROOT / "tests" / "corpus" / split
        for path in sorted(folder.glob("*.py")):
            rel = f"{split}/{path.name}"
            for report in engine.scan_source(path.read_text(encoding="utf-8"), rel):
                data = report.to_dict()
                data.pop("seconds", None)
                out[f"{rel}::{report.qualname}"] = data
    return out


def comparable(entry: dict[str, Any] | None) -> dict[str, Any]:
    """An entry without the fields that only say how long it took, and without the per-finding
    fields that older reports did not have (method and kind: the function's method says it)."""
    data = dict(entry or {})
    data.pop("seconds", None)
    data["findings"] = [
        {k: v for k, v in f.items() if k not in ("method", "kind")}
        for f in data.get("findings", [])
    ]
    return data


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    differences = 0
    for key in sorted(set(before) | set(after)):
        a, b = comparable(before.get(key)), comparable(after.get(key))
        if a != b:
            differences += 1
            print(f"{key}:")
            for field in sorted(set(a or {}) | set(b or {})):
                va, vb = (a or {}).get(field), (b or {}).get(field)
                if va != vb:
                    print(f"    {field}: {json.dumps(va)[:300]}\n -> {json.dumps(vb)[:300]}")
    executions = [sum(d.get("executions", 0) for d in s.values()) for s in (before, after)]
    print(f"{len(before)} vs {len(after)} functions; {differences} differ; executions {executions}")
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?")
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(Path(p).read_text()) for p in args.compare)
        return compare(before, after)
    if not args.out:
        parser.error("give OUT.json, or --compare BEFORE AFTER")
    splits = list(SPLITS) if args.split == "all" else [args.split]
    Path(args.out).write_text(json.dumps(snapshot(splits, args.jobs), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
