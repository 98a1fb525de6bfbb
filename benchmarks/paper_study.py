"""The paper's published completions through `codebias bench`, figures into docs/study.md.

The artifact of Huang et al. (arXiv 2309.14345; github.com/huangd1999/CBS at commit 370cae9,
Apache-2.0: cbs_prompts.json and cbs_{starcoder,codellama7b}_completions.json, in a folder
given with --data, by default `../shared/data` beside this clone) holds one raw answer per
prompt of StarCoder and of CodeLlama-7b-Python to the 334 study prompts. Each list of
{input, output} becomes a completions JSONL in a temporary folder (never in the repository):
prompt_id is the position, category comes from cbs_prompts.json at the same position, sample
is 0 (K=1). The raw outputs start by echoing the generation prompt; that echo is the prompt,
not the model's answer, so it is cut off (`analysis.study.completions.paper_answer`, which
`codebias bench` applies when given such a list directly). The answers collected in
benchmarks/data (see its README) are benched too.

How many answers become testable depends on how answers are read (analysis/source/reading.py).
`--baseline REF` also benches every set with the code of git revision REF (exported to a
temporary folder), so that the figures say what reading them as a person does adds.

    python benchmarks/paper_study.py [--data DIR] [--jobs N] [--baseline REF] [--no-write]
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
COLLECTED = {
    "StarCoder (CBS, Dec 2023)": ROOT / "benchmarks" / "data" / "cbs_starcoder_2023-12.jsonl"
}
PAPER_ATTRIBUTES = ("age", "gender", "race", "region", "education", "occupation")
BEGIN, END = "<!-- paper_study:begin -->", "<!-- paper_study:end -->"

sys.path.insert(0, str(ROOT))
from analysis.study.completions import paper_answer  # noqa: E402


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


def export(ref: str, folder: Path) -> Path:
    """The tree of git revision `ref`, written into `folder` (for the baseline figures)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"git archive {ref} failed: {archive.stderr.decode(errors='replace')}")
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def bench(path: Path, jobs: int, root: Path = ROOT) -> tuple[dict[str, Any], float]:
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
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
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


# How a tree's own recover_module reads each answer of a completions file (the same question
# asked of the code at the baseline revision and of the current code).
READ_COUNTS = """
import ast, collections, inspect, json, sys
from analysis.source.reading import recover_module
# Read as an answer where the tree knows the difference from a repository file.
answer = {"answer": True} if "answer" in inspect.signature(recover_module).parameters else {}
counts = collections.Counter()
for line in open(sys.argv[1], encoding="utf-8"):
    text = json.loads(line)["completion"]
    try:
        ast.parse(text)
        counts["as_written"] += 1
        continue
    except (SyntaxError, ValueError):
        pass
    read = recover_module(text, "answer.py", **answer)
    way = "unreadable" if read is None else "partly_recovered" if read.touched else "recovered"
    counts[way] += 1
print(json.dumps(counts))
"""


def read_counts(path: Path, root: Path) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", READ_COUNTS, str(path)],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=True,
    )
    counts: dict[str, int] = json.loads(done.stdout)
    return counts


def recovery_table(
    rows: list[tuple[str, dict[str, Any], float]],
    before: dict[str, dict[str, Any]],
    reads: dict[str, tuple[dict[str, int] | None, dict[str, int]]],
    ref: str,
) -> str:
    """Answers testable before (the code at `ref`) and now, and how the answers were read."""
    lines = [
        f"| answers | parsed as written | read whole after repairs ({ref} → now) | only in part "
        f"({ref} → now) | no function ({ref} → now) | tested in the sandbox ({ref} → now) | "
        f"judged ({ref} → now) | biased ({ref} → now) | read whole now: tested, biased | "
        "repairs made (answers) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, out, _ in rows:
        old, r = before.get(name), out["recovery"]
        was, now = reads[name]

        def way(key: str, was: dict[str, int] | None = was, now: dict[str, int] = now) -> str:
            return ("" if was is None else f"{was.get(key, 0)} → ") + str(now.get(key, 0))

        repairs = ", ".join(f"{k} {v}" for k, v in r["by_repair"].items())
        lines.append(
            f"| {name}: {out['functions']} | {now.get('as_written', 0)} | {way('recovered')} | "
            f"{way('partly_recovered')} | {way('unreadable')} | {change(old, out, 'tested')} | "
            f"{change(old, out, 'judged')} | {change(old, out, 'biased')} | "
            f"{r['recovered_tested']}, {r['recovered_biased']} | {repairs} |"
        )
    return "\n".join(lines)


def change(old: dict[str, Any] | None, out: dict[str, Any], key: str) -> str:
    was = "" if old is None else f"{count(old, key)} → "
    now = count(out, key)
    return f"{was}{now} ({now / out['functions']:.1%})"


def count(out: dict[str, Any], key: str) -> int:
    """tested: answers with a function run in the sandbox; judged: those plus answers whose
    functions take no protected input (a verdict without running); biased."""
    samples = out["samples"]
    if key == "judged":
        return int(samples["tested"] + samples["no_protected_input"])
    return int(out["biased"] if key == "biased" else samples[key])


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
    parser.add_argument("--baseline", metavar="REF", help="also bench with the code of REF")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    args = parser.parse_args()
    rows: list[tuple[str, dict[str, Any], float]] = []
    before: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="codebias-paper-study-") as folder:
        sets = [(name, to_jsonl(args.data, model, Path(folder))) for model, name in MODELS.items()]
        sets += list(COLLECTED.items())
        baseline = None
        if args.baseline:
            baseline = export(args.baseline, Path(folder) / "baseline")
        reads: dict[str, tuple[dict[str, int] | None, dict[str, int]]] = {}
        for name, path in sets:
            out, seconds = bench(path, args.jobs)
            rows.append((name, out, seconds))
            print(f"{name}: {json.dumps(out)} ({seconds:.1f}s)")
            was = None
            if baseline is not None:
                before[name], _ = bench(path, args.jobs, baseline)
                was = read_counts(path, baseline)
                print(f"{name} at {args.baseline}: {json.dumps(before[name])} {was}")
            reads[name] = (was, read_counts(path, ROOT))
    block = table(rows)
    block += "\n\nHow the answers were read, and what that made testable:\n\n"
    block += recovery_table(rows, before, reads, args.baseline or "before")
    block += (
        f"\n\nMeasured with `python benchmarks/paper_study.py"
        f"{f' --baseline {args.baseline}' if args.baseline else ''}` ({args.jobs} jobs, "
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
