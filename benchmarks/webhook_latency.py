"""Webhook answer time: N signed `pull_request.opened` deliveries to the real service.

Runs `codebias serve`'s app under uvicorn, configured as `codebias serve` does (bot/serving.py),
on 127.0.0.1 and posts deliveries one after another over a keep-alive connection, timing each
answer (202, job enqueued). Default mode is RQ with a `redis-server` this script starts on a
free port (the production shape: the request only writes to Redis); `--mode embedded` uses
the in-process pool instead, whose jobs fail fast against an unreachable GitHub so that only
the webhook path is measured.

    python benchmarks/webhook_latency.py [--deliveries 1000] [--mode rq|embedded]

Targets (issue 4): median < 20 ms, p99 < 100 ms.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.service import create_app  # noqa: E402
from bot.serving import server_config  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.webhooks import sign  # noqa: E402

PAYLOAD = ROOT / "tests" / "bot" / "payloads" / "pull_request.opened.json"
SECRET = b"benchmark-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def start_redis(workdir: str) -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server not found (scripts/install installs it), or use --mode embedded")
    port = free_port()
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            workdir,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.3)
    return proc, f"redis://127.0.0.1:{port}/0"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--mode", choices=["rq", "embedded"], default="rq")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as workdir:
        redis_proc, redis_url = start_redis(workdir) if args.mode == "rq" else (None, None)
        env = {
            "GITHUB_APP_ID": "1",
            "GITHUB_PRIVATE_KEY": private_key(),
            "GITHUB_WEBHOOK_SECRET": SECRET.decode(),
            "GITHUB_API_URL": "http://127.0.0.1:1",  # jobs are not the subject here
            "CODEBIAS_RETRY_INTERVALS": "",
        }
        if redis_url:
            env["REDIS_URL"] = redis_url
        # The embedded jobs fail at once (no GitHub here); their tracebacks are not the subject.
        logging.getLogger("bot").setLevel(logging.CRITICAL)
        app = create_app(Settings.from_env(env))
        port = free_port()
        # As `codebias serve` runs it: the same protocol, deadlines and connection limit.
        server = uvicorn.Server(server_config(app, "127.0.0.1", port))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.01)

        template = json.loads(PAYLOAD.read_text())
        template["installation"] = {"id": 1}
        bodies = []
        for i in range(args.deliveries):
            template["pull_request"]["head"]["sha"] = f"{i:040x}"
            bodies.append(json.dumps(template).encode())

        timings: list[float] = []
        statuses: dict[int, int] = {}
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            for i, body in enumerate(bodies):
                headers = {
                    "X-GitHub-Event": "pull_request",
                    "X-GitHub-Delivery": f"bench-{i}",
                    "X-Hub-Signature-256": sign(SECRET, body),
                    "Content-Type": "application/json",
                }
                started = time.perf_counter()
                answer = client.post("/webhook", content=body, headers=headers)
                timings.append((time.perf_counter() - started) * 1000)
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

        server.should_exit = True
        thread.join(timeout=30)
        if redis_proc is not None:
            redis_proc.terminate()
            redis_proc.wait(timeout=10)

    timings.sort()
    p99 = timings[min(len(timings) - 1, int(round(0.99 * len(timings))) - 1)]
    median = statistics.median(timings)
    print(
        f"mode: {args.mode}, deliveries: {len(timings)}, payload: {len(bodies[0])} bytes, "
        f"answers: {statuses}"
    )
    print(
        f"median {median:.2f} ms   p99 {p99:.2f} ms   "
        f"mean {statistics.fmean(timings):.2f} ms   max {timings[-1]:.2f} ms"
    )
    ok = median < 20 and p99 < 100 and set(statuses) == {202}
    print("targets (median < 20 ms, p99 < 100 ms, all 202):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
