"""A small mutation run: how many planted bugs in the engine's core does the suite catch?

    python benchmarks/mutation.py [--module webhooks|search|harness|loop ...]
                                  [--sample N] [--seed 14] [--timeout 120] [--verbose]

Cosmic Ray (the `bench` extra) mutates one module at a time (operators, comparisons,
constants, boolean logic...) and runs the tests aimed at that module against each mutant;
a mutant is killed when they fail, survives when they pass. The run happens in a copy of
the repository's files in a temporary folder, so the working tree is never touched, and
imports come from that copy (PYTHONPATH), not from an installed codebias.

With --sample N, N mutants of each module are drawn with a fixed seed (the others are
marked skipped) so the run fits a time budget and gives the same mutants every time.
Figures and the commands used: docs/testing.md.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Target:
    module: str  # path of the mutated module, relative to the repository
    tests: tuple[str, ...]  # the tests aimed at it (pytest paths)


TARGETS = {
    "webhooks": Target(
        "bot/webhooks.py",
        (
            "tests/bot/test_signatures.py",
            "tests/bot/test_dedupe.py",
            "tests/bot/test_service.py",
        ),
    ),
    "search": Target(
        "analysis/search/search.py",
        (
            "tests/analysis/test_witness_rerun.py",
            "tests/analysis/test_echo_masking.py",
            "tests/analysis/test_value_pools.py",
            "tests/analysis/test_field_reads.py",
        ),
    ),
    "harness": Target(
        "analysis/execution/harness/runner.py",
        (
            "tests/analysis/test_harness_protocol.py",
            "tests/analysis/test_echo_masking.py",
            "tests/analysis/test_witness_rerun.py",
        ),
    ),
    "loop": Target(
        "analysis/mitigation/loop.py",
        (
            "tests/mitigation/test_fix_notes.py",
            "tests/mitigation/test_fix_loop.py",
            "tests/mitigation/test_fix_command.py",
        ),
    ),
}


@dataclass
class Tally:
    name: str
    mutants: int = 0
    run: int = 0
    killed: int = 0
    survived: list[str] = field(default_factory=list)
    incompetent: int = 0  # the mutant could not be tested (did not import, crashed the run)
    equivalent: int = 0  # mutants of annotations never evaluated: left out
    seconds: float = 0.0

    @property
    def kill_rate(self) -> float:
        tested = self.killed + len(self.survived)
        return self.killed / tested if tested else 0.0

    def row(self) -> str:
        return (
            f"{self.name:<10} {self.mutants:>7} {self.equivalent:>10} {self.run:>5} "
            f"{self.killed:>6} "
            f"{len(self.survived):>8} {self.incompetent:>11} {self.kill_rate:>9.1%} "
            f"{self.seconds:>8.0f}s"
        )


def copy_repository(into: Path) -> Path:
    """The repository's tracked and unignored files, copied to `into/codebias`."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    copy = into / "codebias"
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return copy


def config_text(target: Target, timeout: float) -> str:
    tests = " ".join(target.tests)
    command = f"{sys.executable} -m pytest -x -q -p no:cacheprovider -p no:randomly {tests}"
    return (
        "[cosmic-ray]\n"
        f'module-path = "{target.module}"\n'
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f'test-command = "{command}"\n'
        "\n[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where the module's annotations are, when it never evaluates them (`from __future__
    import annotations`): a mutant there (`str | None` -> `str & None`) cannot change
    anything, so it is left out as equivalent rather than counted as a survivor."""
    tree = ast.parse(source)
    lazy = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(a.name == "annotations" for a in node.names)
        for node in tree.body
    )
    if not lazy:
        return []
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            found.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return [
        ((n.lineno, n.col_offset), (n.end_lineno or n.lineno, n.end_col_offset or 0)) for n in found
    ]


def sample(session: Path, source: str, size: int | None, seed: int) -> tuple[int, int, int]:
    """Leave out equivalent mutants (in annotations), then all but `size` of the others
    (drawn with `seed`): (mutants, equivalent, to run)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    spans = annotation_spans(source)
    skipped = WorkResult(worker_outcome=WorkerOutcome.SKIPPED)
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = list(db.work_items)
        equivalent = [
            item.job_id
            for item in items
            if all(
                any(start <= tuple(m.start_pos) < end for start, end in spans)
                for m in item.mutations
            )
        ]
        jobs = sorted(item.job_id for item in items if item.job_id not in set(equivalent))
        chosen = set(jobs)
        if size is not None and size < len(jobs):
            chosen = set(random.Random(seed).sample(jobs, size))
        left_out = equivalent + [job for job in jobs if job not in chosen]
        if left_out:
            db.set_multiple_results(left_out, skipped)
        return len(items), len(equivalent), len(chosen)


def tally(name: str, session: Path, mutants: int, seconds: float) -> Tally:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    out = Tally(name, mutants=mutants, seconds=seconds)
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            out.run += 1
            if result.test_outcome == TestOutcome.KILLED:
                out.killed += 1
            elif result.test_outcome == TestOutcome.SURVIVED:
                where = ", ".join(
                    f"line {m.start_pos[0]} {m.operator_name} #{m.occurrence}"
                    for m in item.mutations
                )
                out.survived.append(f"{where}\n{result.diff or ''}")
            else:
                out.incompetent += 1
    return out


def run_target(
    name: str, target: Target, copy: Path, size: int | None, seed: int, timeout: float
) -> Tally:
    work = copy.parent / f"{name}.session"
    work.mkdir()
    config = work / "config.toml"
    config.write_text(config_text(target, timeout), encoding="utf-8")
    session = work / "session.sqlite"
    env = {
        **os.environ,
        "PYTHONPATH": str(copy),
        "HYPOTHESIS_PROFILE": "ci",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    subprocess.run(["cosmic-ray", "init", str(config), str(session)], cwd=copy, env=env, check=True)
    source = (copy / target.module).read_text(encoding="utf-8")
    mutants, equivalent, chosen = sample(session, source, size, seed)
    print(
        f"{name}: {mutants} mutants of {target.module}, {equivalent} in annotations "
        f"(equivalent), running {chosen}",
        file=sys.stderr,
    )
    started = time.monotonic()
    subprocess.run(["cosmic-ray", "exec", str(config), str(session)], cwd=copy, env=env, check=True)
    result = tally(name, session, mutants, time.monotonic() - started)
    result.equivalent = equivalent
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", choices=sorted(TARGETS))
    parser.add_argument("--sample", type=int, help="mutants per module, drawn with --seed")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant")
    parser.add_argument("--verbose", action="store_true", help="print every surviving mutant")
    args = parser.parse_args(argv)
    if shutil.which("cosmic-ray") is None:
        print("cosmic-ray is not installed: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    names = args.module or list(TARGETS)
    results = []
    with tempfile.TemporaryDirectory(prefix="codebias-mutation-") as folder:
        copy = copy_repository(Path(folder))
        for name in names:
            results.append(
                run_target(name, TARGETS[name], copy, args.sample, args.seed, args.timeout)
            )
    sampled = f"sample {args.sample} per module, seed {args.seed}" if args.sample else "all"
    print(f"mutants: {sampled}")
    print("module     mutants equivalent   run killed survived incompetent kill rate     time")
    for result in results:
        print(result.row())
    for result in results:
        if result.survived:
            print(f"\n{result.name}: {len(result.survived)} surviving mutant(s)")
            for mutant in result.survived if args.verbose else result.survived[:10]:
                print("  " + mutant.strip().replace("\n", "\n    "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
