"""Fleet scale: one `codebias serve` and 1, 2, 4 `codebias worker` processes on one Redis,
against the fake GitHub on loopback, take a burst of pull-request reviews.

Each run starts from an empty Redis (no cached verdicts, no tokens), sends the burst as fast
as the web process answers (1–30 changed functions a review, some heads superseded by a
later push, 10% of deliveries sent twice with the same id), and waits until every final head
has its check run and review. It prints reviews per minute and the p50/p95 time from a
head's delivery to its completed check run, and checks that every review was done exactly
once and that no superseded head was posted after its successor.

The fake GitHub answers each request after `--latency` seconds, so that reviews are
I/O-bound as they are against github.com (a review makes a dozen API calls).

    python benchmarks/fleet_scale.py [--reviews 200] [--workers 1,2,4] [--latency 0.08]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bot"))

from botsupport import APP_ID, app_key_pair, start_redis  # noqa: E402
from fleet import Fleet, check_exactly_once, plan_burst, run_burst  # noqa: E402
from fleetgithub import FleetGitHub  # noqa: E402
from redis import Redis  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reviews", type=int, default=200)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--latency", type=float, default=0.08, help="seconds per GitHub answer")
    parser.add_argument("--timeout", type=float, default=1200)
    parser.add_argument("--logs", type=Path, help="keep each process's JSON log here")
    args = parser.parse_args()
    private, public = app_key_pair()
    failures = 0
    with tempfile.TemporaryDirectory() as workdir:
        redis_proc, redis_url = start_redis(Path(workdir))
        try:
            rows = []
            for count in [int(n) for n in args.workers.split(",")]:
                Redis.from_url(redis_url).flushall()
                github = FleetGitHub(
                    public, APP_ID, installations=tuple(range(5000, 5005)), latency=args.latency
                ).start()
                logs = (args.logs or Path(workdir)) / f"logs-{count}"
                logs.mkdir(parents=True, exist_ok=True)
                fleet = Fleet(github, redis_url, private, logs)
                try:
                    fleet.start_web()
                    for _ in range(count):
                        fleet.start_worker()
                    time.sleep(2)  # workers up and waiting before the burst starts
                    burst = plan_burst(args.reviews, seed=count)
                    result = run_burst(fleet, burst, args.timeout)
                    problems = check_exactly_once(github, burst)
                finally:
                    fleet.stop()
                    github.stop()
                failures += len(problems)
                for problem in problems[:10]:
                    print(f"  PROBLEM ({count} workers): {problem}")
                rows.append((count, burst, result, problems))
                print(
                    f"{count} worker(s): {len(burst.final_heads)} reviews "
                    f"({len(burst.deliveries)} deliveries) in {result.seconds:.1f} s = "
                    f"{result.reviews_per_minute:.1f} reviews/min; time to check run "
                    f"p50 {result.p50:.1f} s, p95 {result.p95:.1f} s; answers {result.statuses}; "
                    f"{'exactly once' if not problems else f'{len(problems)} problems'}",
                    flush=True,
                )
            base = rows[0][2].reviews_per_minute
            print("\n| workers | reviews/min | speed-up | p50 to check run | p95 to check run |")
            print("|---|---|---|---|---|")
            for count, _, result, _ in rows:
                print(
                    f"| {count} | {result.reviews_per_minute:.1f} | "
                    f"{result.reviews_per_minute / base:.2f}x | {result.p50:.1f} s | "
                    f"{result.p95:.1f} s |"
                )
        finally:
            redis_proc.terminate()
            redis_proc.wait(timeout=10)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
