"""Measure codebias on the real-world corpus: per package, without and with its dependencies.

    python tests/realworld/measure.py [--modes bare,deps] [--only NAME ... | --smoke]
                                      [--json FILE] [--cache DIR] [--codebias-root DIR]
                                      [--python PYTHON]

For each package of tests/realworld/manifest.yml (fetched into the cache first) and each mode,
runs `codebias scan . --format json` as a subprocess, in the unpacked sdist, from the bare venv
(codebias with the App image's numpy, pandas and scipy), with the code under test run by:
- bare: that venv's own interpreter (the repository as the App sees it, no dependencies);
- deps: `--python` the interpreter of a venv where `pip install <name>==<version>` pulled the
  package's dependencies and nothing else (the repository as its own CI sees it; a dependency
  that installs a top-level `config` never meets codebias's own).
codebias is installed (editable, from --codebias-root, default this checkout) into the bare
venv only, never into the interpreter running this script nor a package's venv.

Prints a table per mode (functions, tested, unverified by reason, biased, seconds,
functions/second) and, against the labels: proved and detected recall on biased labels,
precision, false alarms and crashes (exit 3, a traceback, an exit code other than 0/1, or
exit 1 without a biased function). A package whose scan crashes is recorded and the run goes
on. The default modes come from $CODEBIAS_REALWORLD_MODES (default "bare,deps"). `--smoke`
measures, in each mode, the packages the manifest puts in that mode's smoke subset (what the
fast tier of the test suite scans and holds to its floors).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import MODES, Package, cache_dir, load_labels, load_manifest  # noqa: E402
from fetch import fetch  # noqa: E402
from score import Score, score  # noqa: E402
from table import print_report  # noqa: E402
from venvs import VenvError, ensure_bare, ensure_deps  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCAN_TIMEOUT = 1800.0


@dataclass
class Run:
    """One scan of one package in one mode."""

    package: Package
    mode: str
    exit_code: int | None  # None: the scan never ran (venv or fetch failure, timeout)
    seconds: float
    report: dict[str, Any] | None
    crash: str | None  # why this run counts as a crash, in words
    score: Score | None

    @property
    def recording_seconds(self) -> float:
        """Seconds the scan spent recording the project's own runs (issue 27's cost)."""
        evidence = (self.report or {}).get("evidence") or []
        return float(sum(entry.get("seconds", 0.0) for entry in evidence))

    def as_dict(self) -> dict[str, Any]:
        s = self.score
        return {
            "package": self.package.name, "version": self.package.version,
            "kind": self.package.kind, "split": self.package.split, "mode": self.mode,
            "exit_code": self.exit_code, "seconds": round(self.seconds, 2), "crash": self.crash,
            "recording_seconds": round(self.recording_seconds, 2),
            "functions": s.functions if s else None, "tested": s.tested if s else None,
            "statuses": dict(s.statuses) if s else None,
            "unverified": dict(s.unverified) if s else None,
            "missing_modules": dict(s.missing_modules) if s else None,
            "biased": s.biased_functions if s else None,
            "labelled_pairs": s.labelled_pairs if s else 0,
            "proved": s.proved if s else [], "detected": s.detected if s else [],
            "missed": s.missed if s else [], "true_alarms": s.true_alarms if s else 0,
            "false_alarms": s.false_alarms if s else [],
            "static_alarms": s.static_alarms if s else [],
            "not_reported": s.not_reported if s else [],
        }


def crash_reason(exit_code: int, stderr: str, report: dict[str, Any] | None) -> str | None:
    if "Traceback (most recent call last)" in stderr:
        return f"traceback on stderr (exit {exit_code}): " + stderr.strip().splitlines()[-1][:200]
    if exit_code == 3:
        return "exit 3 (internal error stopped the scan)"
    if exit_code not in (0, 1):
        tail = stderr.strip().splitlines()[-1][:200] if stderr.strip() else ""
        return f"exit {exit_code}: {tail}"
    if report is None:
        return f"exit {exit_code} without a readable JSON report"
    biased = any(f.get("status") == "biased" for f in report.get("functions", []))
    if exit_code == 1 and not biased:
        return "exit 1 (the 'bias found' code) without any biased function"
    return None


def scan(package: Package, mode: str, python: Path, cache: Path, target: Path | None = None) -> Run:
    """Run codebias from `python`'s environment on the package's unpacked sdist; the code under
    test with `target` (`--python`), or with `python` itself."""
    root = package.source_root(cache)
    out_dir = cache / "reports" / mode
    out_dir.mkdir(parents=True, exist_ok=True)
    output = out_dir / f"{package.key}.json"
    output.unlink(missing_ok=True)
    # The console script, not `python -m bot.cli`: -m would put the scanned tree first on
    # sys.path, where a top-level `config/` or `bot/` of the package would shadow codebias.
    command = [str(python), str(python.parent / "codebias"), "scan", ".", "--format", "json",
               "--output", str(output), *(["--python", str(target)] if target else [])]
    started = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as err:
        try:
            done = subprocess.run(command, cwd=root, stdout=subprocess.DEVNULL, stderr=err,
                                  timeout=SCAN_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            seconds = time.monotonic() - started
            return Run(package, mode, None, seconds, None, f"timeout after {seconds:.0f} s", None)
        seconds = time.monotonic() - started
        err.seek(0)
        stderr = err.read()
    report = None
    if output.exists():
        try:
            report = json.loads(output.read_text(encoding="utf-8"))
        except ValueError:
            report = None
    crash = crash_reason(done.returncode, stderr, report)
    result = None
    if report is not None:
        labels = load_labels(package.name)
        result = score(report, labels, general=package.kind == "general")
    return Run(package, mode, done.returncode, seconds, report, crash, result)


def rescore(package: Package, mode: str, cache: Path) -> Run:
    """Score the report the last scan left in the cache again (after editing labels)."""
    output = cache / "reports" / mode / f"{package.key}.json"
    if not output.exists():
        return Run(package, mode, None, 0.0, None, f"no earlier report at {output}", None)
    report = json.loads(output.read_text(encoding="utf-8"))
    seconds = float(report.get("summary", {}).get("seconds", 0.0))
    result = score(report, load_labels(package.name), general=package.kind == "general")
    return Run(package, mode, None, seconds, report, None, result)


def interpreters(package: Package, mode: str, cache: Path, codebias_root: Path,
                 python: str) -> tuple[Path, Path | None]:
    """codebias's interpreter, and the one the code under test runs with (None: the same)."""
    codebias = ensure_bare(cache, codebias_root, python)
    if mode == "bare":
        return codebias, None
    return codebias, ensure_deps(package, cache, python)


def measure(packages: list[Package], modes: list[str], cache: Path, codebias_root: Path,
            python: str, log: Any = sys.stderr, reuse: bool = False) -> list[Run]:
    if reuse:
        return [rescore(package, mode, cache) for mode in modes for package in packages]
    failures = fetch(packages, cache)
    runs: list[Run] = []
    for mode in modes:
        for package in packages:
            if package.name in failures:
                runs.append(Run(package, mode, None, 0.0, None,
                                f"fetch failed: {failures[package.name]}", None))
                continue
            try:
                exe, target = interpreters(package, mode, cache, codebias_root, python)
            except (VenvError, subprocess.SubprocessError, OSError) as error:
                runs.append(Run(package, mode, None, 0.0, None, f"venv: {error}", None))
                continue
            print(f"[{mode}] scanning {package.key} ...", file=log, flush=True)
            run = scan(package, mode, exe, cache, target)
            state = run.crash or "ok"
            print(f"[{mode}] {package.key}: {run.seconds:.1f} s, {state}", file=log, flush=True)
            runs.append(run)
    return runs


def default_modes() -> list[str]:
    return [m for m in os.environ.get("CODEBIAS_REALWORLD_MODES", "bare,deps").split(",") if m]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", default=",".join(default_modes()))
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--smoke", action="store_true",
                        help="each mode's smoke subset (the manifest's `smoke:`), as the fast "
                             "tier of the test suite scans it")
    parser.add_argument("--json", type=Path, default=None, help="write every run as JSON")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--codebias-root", type=Path, default=ROOT)
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter the venvs are created from")
    parser.add_argument("--verbose", action="store_true", help="list every miss")
    parser.add_argument("--reuse", action="store_true",
                        help="score the reports of the last scan again instead of scanning "
                             "(seconds are then the engine's own, not the subprocess's)")
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    if not modes or set(modes) - set(MODES):
        parser.error(f"--modes takes a comma-separated subset of {MODES}")
    if args.smoke and args.only:
        parser.error("--smoke and --only choose packages each; give one")
    packages = [p for p in load_manifest() if not args.only or p.name in args.only]
    runs: list[Run] = []
    for mode in modes:
        chosen = [p for p in packages if mode in p.smoke] if args.smoke else packages
        runs += measure(chosen, [mode], args.cache or cache_dir(), args.codebias_root,
                        args.python, reuse=args.reuse)
    print_report(runs, verbose=args.verbose)
    if args.json:
        args.json.write_text(json.dumps([r.as_dict() for r in runs], indent=1) + "\n")
    return 1 if any(r.crash for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
