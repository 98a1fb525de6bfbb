"""Benchmark: what recording a repository's own runs costs a whole scan (issue 27's 2x bound).

    python benchmarks/recording_cost.py --only NAME ... [--mode bare|deps] [--pairs 3]

For each real-world corpus package named (tests/realworld/manifest.yml; sdists and venvs as
benchmarks/realworld.py builds them, in ~/.cache/codebias-realworld or
$CODEBIAS_REALWORLD_CACHE), `codebias scan . --format json` runs in turn with the recording
(`evidence: {enabled: true}`) and without it (`evidence: {enabled: false}`), `--pairs` times
each, with and without alternating so that a drift of the machine's speed falls on both.
Printed per package: the median wall seconds of each, the median of the pairs' ratios, and
the median seconds the recording itself took (the report's `evidence[].seconds`: it runs
beside the search, so the whole scan grows by less). Wall time is the subprocess's, start-up
included, as a user waits for it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "realworld"))

from corpus import MODES, cache_dir, load_manifest  # noqa: E402
from fetch import fetch  # noqa: E402
from measure import ROOT, interpreters  # noqa: E402

SETTINGS = {"with": "evidence: {enabled: true}\n", "without": "evidence: {enabled: false}\n"}


def timed_scan(command: list[str], cwd: Path, output: Path) -> tuple[float, float]:
    """One scan's wall seconds, and the seconds its report says the recording took."""
    output.unlink(missing_ok=True)
    started = time.monotonic()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False, timeout=1800)
    seconds = time.monotonic() - started
    report = json.loads(output.read_text(encoding="utf-8")) if output.exists() else {}
    recording = sum(float(e.get("seconds", 0.0)) for e in report.get("evidence") or [])
    return seconds, recording


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", required=True, metavar="NAME")
    parser.add_argument("--mode", choices=MODES, default="bare")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--codebias-root", type=Path, default=ROOT,
                        help="the checkout installed into the bare venv (as measure.py's)")
    args = parser.parse_args(argv)
    cache = args.cache or cache_dir()
    packages = [p for p in load_manifest() if p.name in args.only]
    failures = fetch(packages, cache)
    print(f"{'package':40} {'with s':>7} {'without s':>9} {'ratio':>6} {'recording s':>11}")
    with tempfile.TemporaryDirectory() as folder:
        configs = {}
        for name, text in SETTINGS.items():
            configs[name] = Path(folder) / f"{name}.yml"
            configs[name].write_text(text)
        output = Path(folder) / "report.json"
        for package in packages:
            if package.name in failures:
                print(f"{package.key:40} fetch failed: {failures[package.name]}")
                continue
            exe, target = interpreters(package, args.mode, cache, args.codebias_root,
                                       sys.executable)
            command = [str(exe), str(exe.parent / "codebias"), "scan", ".", "--format", "json",
                       "--output", str(output), *(["--python", str(target)] if target else [])]
            root = package.source_root(cache)
            times: dict[str, list[float]] = {"with": [], "without": []}
            recorded: list[float] = []
            for _ in range(args.pairs):
                for name in ("with", "without"):
                    seconds, recording = timed_scan(
                        [*command, "--config", str(configs[name])], root, output
                    )
                    times[name].append(seconds)
                    if name == "with":
                        recorded.append(recording)
            ratio = statistics.median(a / b for a, b in zip(times["with"], times["without"],
                                                            strict=True))
            print(f"{package.key:40} {statistics.median(times['with']):7.1f} "
                  f"{statistics.median(times['without']):9.1f} {ratio:5.2f}x "
                  f"{statistics.median(recorded):11.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
