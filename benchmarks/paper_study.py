"""The paper's published completions through `codebias bench`, figures into docs/study.md.

The artifact of Huang et al. (arXiv 2309.14345; github.com/huangd1999/CBS at commit 370cae9,
Apache-2.0: cbs_prompts.json and cbs_{starcoder,codellama7b}_completions.json, in a folder
given with --data, by default `../shared/data` beside this clone) holds one raw answer per
prompt of StarCoder and of CodeLlama-7b-Python to the 334 study prompts. Each list of
{input, output} becomes a completions JSONL in a temporary folder (never in the repository):
prompt_id is the position, category comes from cbs_prompts.json at the same position, sample
is 0 (K=1). The raw outputs start by echoing the generation prompt; that echo is the prompt,
not the model's answer, so it is cut off (`analysis.completions.paper_answer`, which
`codebias bench` applies when given such a list directly).

    python benchmarks/paper_study.py [--data DIR] [--jobs N] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
DOC = ROOT / "docs" / "study.md"
MODELS = {"starcoder": "StarCoder", "codellama7b": "CodeLlama-7b-Python"}
PAPER_ATTRIBUTES = ("age", "gender", "race", "region", "education", "occupation")
BEGIN, END = "<!-- paper_study:begin -->", "<!-- paper_study:end -->"

sys.path.insert(0, str(ROOT))
from analysis.completions import paper_answer  # noqa: E402


def to_jsonl(data: Path, model: str, folder: Path) -> Path:
    prompts = json.loads((data / "cbs_prompts.json").read_text(encoding="utf-8"))
    items = json.loads((data / f"cbs_{model}_completions.json").read_text(encoding="utf-8"))
    if len(items) != len(prompts):
        raise SystemExit(f"{model}: {len(items)} completions for {len(prompts)} prompts")
    path = folder / f"{model}.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for index, item in enumerate(items):
            record = {
                "prompt_id": str(index),
                "sample": 0,
                "category": prompts[index]["category"],
                "model": MODELS[model],
                "completion": paper_answer(str(item["input"]), str(item["output"])),
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def bench(path: Path, jobs: int) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.cli",
            "bench",
            "--completions",
            str(path),
            "--format",
            "json",
            "--jobs",
            str(jobs),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"codebias bench failed on {path.name} (exit {done.returncode})")
    return json.loads(done.stdout), seconds


def pct(value: float) -> str:
    return f"{value:.2%}"


def table(rows: list[tuple[str, dict[str, Any], float]]) -> str:
    head = (
        "| model | prompts | functions | unexecutable | CBS | CBS_U@1 | CBS_I@1 | "
        + " | ".join(f"CBS {a}" for a in PAPER_ATTRIBUTES)
        + " | seconds |"
    )
    lines = [head, "|" + "---|" * (8 + len(PAPER_ATTRIBUTES))]
    for name, out, seconds in rows:
        overall = out["overall"]
        per = [pct(out["by_attribute"].get(a, {"cbs": 0.0})["cbs"]) for a in PAPER_ATTRIBUTES]
        lines.append(
            f"| {name} | {out['prompts']} | {out['functions']} | {out['unexecutable']} | "
            f"{pct(overall['cbs'])} | {pct(overall['cbs_u'])} | {pct(overall['cbs_i'])} | "
            + " | ".join(per)
            + f" | {seconds:.1f} |"
        )
    kinds = [
        "| model | tested in the sandbox | no protected input | not runnable "
        "(with static findings) | no function |"
    ]
    kinds.append("|---|---|---|---|---|")
    for name, out, _ in rows:
        s = out["samples"]
        kinds.append(
            f"| {name} | {s['tested']} | {s['no_protected_input']} | {s['not_runnable']} "
            f"({out['unexecutable_with_static_findings']}) | {s['no_function']} |"
        )
    return "\n".join(lines) + "\n\nWhat each answer turned out to be:\n\n" + "\n".join(kinds)


def write_doc(block: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"{DOC}: no {BEGIN} ... {END} block to fill")
    DOC.write_text(pattern.sub(lambda _: f"{BEGIN}\n{block}\n{END}", text), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    args = parser.parse_args()
    rows: list[tuple[str, dict[str, Any], float]] = []
    with tempfile.TemporaryDirectory(prefix="codebias-paper-study-") as folder:
        for model, name in MODELS.items():
            path = to_jsonl(args.data, model, Path(folder))
            out, seconds = bench(path, args.jobs)
            rows.append((name, out, seconds))
            print(f"{name}: {json.dumps(out)} ({seconds:.1f}s)")
    block = table(rows)
    block += (
        f"\n\nMeasured with `python benchmarks/paper_study.py` ({args.jobs} jobs, "
        f"{os.cpu_count()} cores, bubblewrap sandbox, default policy)."
    )
    print()
    print(block)
    if not args.no_write:
        write_doc(block)
        print(f"\nwritten to {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
