"""What the sandbox costs: sandboxed vs unsandboxed wall time per function.

Three executors run the same work, interleaved round by round so that machine noise falls on
all of them alike:
  process   ProcessExecutor as shipped (`--trust-code`: rlimits only, `python -I` with site)
  plain     no isolation, but the sandbox's own interpreter start (`-S`, limits set by the
            same prelude): the difference bwrap - plain is the cost of isolation alone
  bwrap     BwrapExecutor (namespaces, slot uid, read-only view, pid-namespace kill)
Two measures:
  session   start + load + one batch of 50 calls + close, for each function of examples/
            (the same small driver function stands in for calls, so every run is alike)
  scan      Engine.scan_function for each function of examples/ (all its sessions and calls)
and what a project's writable scratch view costs (analysis/sandbox/staging.py): the session
measure again, each module of examples/ imported from the project's copy, with the view
against the copy shown read-only (the same bwrap executor, the view switched off).

    python benchmarks/sandbox_overhead.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import site
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.engine import Engine  # noqa: E402
from analysis.execution.process import (  # noqa: E402
    HARNESS_SOURCE,
    Call,
    Executor,
    Limits,
    ProcessExecutor,
    Target,
)
from analysis.sandbox import BwrapExecutor, default_executor  # noqa: E402
from analysis.sandbox.bwrap import prelude  # noqa: E402
from analysis.source.functions import list_functions  # noqa: E402
from analysis.source.reading import parse_module  # noqa: E402
from config.policy import default_policy  # noqa: E402


class PlainExecutor(Executor):
    """The sandbox's interpreter start without the sandbox: isolates the cost of bwrap."""

    name = "plain"

    def argv(self, limits: Limits) -> list[str]:
        paths = tuple(p for p in site.getsitepackages() if os.path.isdir(p))
        return [
            sys.executable, "-B", "-S", "-s", "-P",
            "-c", prelude(limits, paths) + HARNESS_SOURCE,
        ]  # fmt: skip

    def preexec(self, limits: Limits) -> Callable[[], None] | None:
        return None


def example_functions() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = parse_module(source, str(path)).tree
        found += [(source, str(path.relative_to(ROOT)), f.qualname) for f in list_functions(tree)]
    return found


DRIVER = "\n\ndef __codebias_bench(x):\n    return x * 2\n"


def session_time(executor: Executor, source: str, path: str) -> float:
    started = time.perf_counter()
    target = Target(source=source + DRIVER, filename=path, qualname="__codebias_bench")
    with executor.open(target, Limits()) as session:
        assert session.load_error is None, session.load_error
        session.run([Call((i,)) for i in range(50)])
    return time.perf_counter() - started


def scan_time(executor: Executor, source: str, path: str, qualname: str) -> float:
    engine = Engine(default_policy(), executor=executor, jobs=1)
    started = time.perf_counter()
    engine.scan_function(source, path, qualname)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    executors: dict[str, Executor] = {
        "process": ProcessExecutor(),
        "plain": PlainExecutor(),
        "bwrap": default_executor(),  # self-tested; raises SandboxUnavailable otherwise
    }
    functions = example_functions()
    print(
        f"{len(functions)} functions from examples/, {args.rounds} rounds, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start"
    )
    for measure in ("session", "scan"):
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.rounds):
            for source, path, qualname in functions:
                for name, executor in executors.items():
                    t = (
                        session_time(executor, source, path)
                        if measure == "session"
                        else scan_time(executor, source, path, qualname)
                    )
                    times.setdefault((name, f"{path}::{qualname}"), []).append(t)
        names = [f"{p}::{q}" for _, p, q in functions]
        # Per function: the median over rounds, and the best round (least disturbed by noise).
        for label, pick in (("median", statistics.median), ("best", min)):
            per_function = {key: pick(values) * 1000 for key, values in times.items()}
            print(f"\n{measure}, {label} of {args.rounds} rounds: ms per function")
            for name in executors:
                typical = statistics.median(per_function[(name, f)] for f in names)
                print(f"  {name:8s} {typical:8.1f}")
            for other in ("plain", "process"):
                added = [per_function[("bwrap", f)] - per_function[(other, f)] for f in names]
                print(
                    f"  bwrap - {other:8s} added per function: median "
                    f"{statistics.median(added):+.1f} ms "
                    f"(min {min(added):+.1f}, max {max(added):+.1f})"
                )
    project_cost(executors["bwrap"], functions, args.rounds)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    return 0


def project_session_time(executor: Executor, copy: str, source: str, path: str) -> float:
    name = Path(path).stem
    started = time.perf_counter()
    target = Target(
        source=source + DRIVER,
        filename=f"{name}.py",
        qualname="__codebias_bench",
        module=name,
        repo=copy,
        paths=("",),
    )
    with executor.open(target, Limits()) as session:
        assert session.load_error is None, session.load_error
        session.run([Call((i,)) for i in range(50)])
    return time.perf_counter() - started


def project_cost(executor: Executor, functions: list[tuple[str, str, str]], rounds: int) -> None:
    """Sessions of a project's modules with the scratch view and with a read-only copy."""
    if not isinstance(executor, BwrapExecutor) or not executor.writable_projects:
        print(f"\nno scratch views here: {getattr(executor, 'scratch_problem', '')}")
        return
    times: dict[str, list[float]] = {"scratch view": [], "read-only": []}
    with ExitStack() as copies:
        # Each way with its own copy: shown read-only, a copy keeps the modes slot uids need.
        shared = {}
        for how in times:
            executor.scratch_problem = "" if how == "scratch view" else "measuring"
            shared[how] = copies.enter_context(executor.share(str(ROOT / "examples"))).path
        for _ in range(rounds):
            for source, path, _ in functions:
                for how in times:
                    executor.scratch_problem = "" if how == "scratch view" else "measuring"
                    times[how].append(project_session_time(executor, shared[how], source, path))
        executor.scratch_problem = ""
    medians = {how: statistics.median(t) * 1000 for how, t in times.items()}
    print(f"\nproject sessions, median of {rounds} rounds: ms per function")
    for how, ms in medians.items():
        print(f"  {how:12s} {ms:8.1f}")
    added = medians["scratch view"] - medians["read-only"]
    print(f"  scratch view added per session: {added:+.1f} ms")


if __name__ == "__main__":
    raise SystemExit(main())
