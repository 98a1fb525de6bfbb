"""`codebias bench`: the paper's study — CBS, CBS_U@K and CBS_I@K over many generated functions.

With `--completions FILE`, tests saved answers: JSON Lines (one `{"prompt_id", "sample",
"completion"}` object a line), or the paper's own JSON list of `{"input", "output"}`.
Without, asks the configured language model for `--samples` answers to each prompt of
`--prompts`, writes them to `--output` in that same format (so the run can be repeated
offline), then tests them. Progress goes to stderr; the scores, and which prompts and
samples were biased, to stdout (text, JSON, or markdown tables).

Exit codes: 0 scores printed; 2 usage or configuration error (bad input, no provider, no
sandbox); 3 the language model failed part-way (what it did answer is written to `--output`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from analysis.engine import Engine
from analysis.errors import SandboxUnavailable
from analysis.mitigation.provider import Provider, ProviderError
from analysis.source.reading import how_recovered
from analysis.study.completions import CompletionRecord, StudyInputError, parse_saved
from analysis.study.scores import (
    SampleOutcome,
    StudyPrompt,
    StudyResult,
    check_generation_strategy,
    compute,
    generation_messages,
    judge_sample,
    parse_prompts,
    samples_per_prompt,
)
from bot.commands.scan import choose_executor, load_policy
from bot.file_output import write_file
from bot.llm import LLMConfigError, provider_from_env
from config.policy import Policy, PolicyError

EXIT_OK, EXIT_USAGE, EXIT_FAILED = 0, 2, 3
TEXT_SAMPLES = 20  # biased samples listed in the text output; JSON and markdown list all
DEFAULT_OUTPUT = "completions.jsonl"
NO_PROVIDER = (
    "no language model configured to generate completions: set OPENAI_API_KEY (with "
    "OPENAI_BASE_URL for an OpenAI-compatible server such as vLLM or Ollama) or "
    "ANTHROPIC_API_KEY, and CODEBIAS_LLM_MODEL for the model; or test saved answers with "
    "--completions FILE.jsonl"
)

KIND_WORDS = {
    "tested": "tested in the sandbox",
    "no_protected_input": "without a protected input",
    "not_runnable": "not runnable",
    "no_function": "without any function",
}

T = TypeVar("T")
R = TypeVar("R")


class Usage(Exception):
    """A usage or configuration problem: exit 2 with this message."""


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    try:
        policy = load_policy(args.config)
        jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
        if args.completions:
            records = read_completions(args)
            samples_per_prompt([r.prompt_id for r in records])  # before any answer runs
        engine = Engine(policy, executor=choose_executor(args.trust_code), jobs=1)
        # No sandbox: say so now (before paying for generation), not as N*K "unexecutable".
        engine.executor()
        tokens = None
        if not args.completions:
            generated = generate(args, policy, jobs)
            if isinstance(generated, int):
                return generated
            records, tokens = generated
        outcomes = judge_all(engine, records, jobs)
        models = {r.model for r in records if r.model}
        result = compute(outcomes, model=models.pop() if len(models) == 1 else None)
    except SandboxUnavailable as exc:
        print(
            f"codebias: error: no sandbox to run the answers in: {exc} (--trust-code runs them "
            "with resource limits only, for answers you trust)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except (Usage, PolicyError, StudyInputError, LLMConfigError) as exc:
        print(f"codebias: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    seconds = time.monotonic() - started
    if args.format == "json":
        out = result.to_dict()
        if tokens is not None:
            out["tokens"] = tokens
        out["seconds"] = round(seconds, 2)
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(result, seconds))
    else:
        sys.stdout.write(render_text(result, seconds, tokens))
    return EXIT_OK


# --- reading ---------------------------------------------------------------------------------


def read_completions(args: argparse.Namespace) -> list[CompletionRecord]:
    if args.prompts or args.output:
        raise Usage(
            "--prompts and --output are for generating completions; "
            "with --completions the saved answers are tested as they are"
        )
    path = Path(args.completions)
    try:
        return parse_saved(path.read_text(encoding="utf-8"), args.completions)
    except OSError as exc:
        raise Usage(f"{args.completions}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise Usage(f"{args.completions}: not UTF-8 text: {exc.reason}") from None


def read_prompts(file: str) -> list[StudyPrompt]:
    try:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
    except OSError as exc:
        raise Usage(f"{file}: cannot read: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Usage(f"{file}: not a JSON file ({exc})") from None
    return parse_prompts(data, file)


# --- generating ------------------------------------------------------------------------------


def generate(
    args: argparse.Namespace, policy: Policy, jobs: int
) -> tuple[list[CompletionRecord], dict[str, int]] | int:
    """Ask the model for every (prompt, sample) and save the answers; or an exit code."""
    if not args.prompts:
        raise Usage("give --completions FILE.jsonl to test saved answers, or --prompts FILE")
    if args.samples < 1:
        raise Usage("--samples must be at least 1")
    if args.temperature < 0:
        raise Usage("--temperature must not be negative")
    check_generation_strategy(args.strategy)
    prompts = read_prompts(args.prompts)
    provider = provider_from_env(policy, os.environ)
    if provider is None:
        why = "" if policy.mitigation.enabled else " (the policy sets mitigation.enabled: false)"
        raise Usage(NO_PROVIDER + why)
    model: Provider = provider
    output = Path(args.output or DEFAULT_OUTPUT)
    attributes = sorted(policy.enabled_categories)
    tasks = [(p, k) for p in prompts for k in range(args.samples)]
    log(
        f"generating {len(tasks)} completions ({len(prompts)} prompts x {args.samples}) "
        f"with {provider.name} ({provider.model}), strategy {args.strategy}, "
        f"temperature {args.temperature:g}"
    )

    def ask(task: tuple[StudyPrompt, int]) -> tuple[CompletionRecord, int, int]:
        prompt, sample = task
        messages = generation_messages(prompt.prompt, args.strategy, attributes)
        answer = model.complete(messages, args.temperature)
        # The model asked for, not the one the server names (which may carry a dated
        # suffix, or differ between answers behind a proxy): one name per file.
        record = CompletionRecord(
            prompt.prompt_id, sample, answer.text, prompt.category, model.model
        )
        return record, answer.prompt_tokens, answer.completion_tokens

    results: list[tuple[CompletionRecord, int, int] | None] = [None] * len(tasks)
    failure: ProviderError | None = None
    try:
        parallel(ask, tasks, jobs, "generating", results)
    except ProviderError as exc:
        failure = exc
    done = [r for r in results if r is not None]
    records = [record for record, _, _ in done]
    write_completions(output, records)
    if failure is not None:
        print(
            f"codebias: error: the language model failed: {failure}\n"
            f"codebias: wrote the {len(records)} of {len(tasks)} completions it gave to "
            f"{output}; that file is incomplete, so it is not scored",
            file=sys.stderr,
        )
        return EXIT_FAILED
    log(f"wrote {len(records)} completions to {output}")
    tokens = {"prompt": sum(t[1] for t in done), "completion": sum(t[2] for t in done)}
    return records, tokens


def write_completions(path: Path, records: Sequence[CompletionRecord]) -> None:
    """Whole lines only: the file is replaced whole (bot.file_output)."""
    try:
        write_file(path, "".join(record.to_line() for record in records))
    except OSError as exc:
        raise Usage(f"{path}: cannot write: {exc.strerror or exc}") from None


# --- testing ---------------------------------------------------------------------------------


def judge_all(
    engine: Engine, records: Sequence[CompletionRecord], jobs: int
) -> list[SampleOutcome]:
    """Every answer through the engine; samples run in parallel, each one function at a time."""

    def judge(record: CompletionRecord) -> SampleOutcome:
        reports = engine.scan_source(record.completion, sample_path(record), answer=True)
        recovery = how_recovered(record.completion)
        return judge_sample(record.prompt_id, record.sample, reports, record.category, recovery)

    outcomes: list[SampleOutcome | None] = [None] * len(records)
    parallel(judge, list(records), jobs, "testing", outcomes)
    return [o for o in outcomes if o is not None]


def sample_path(record: CompletionRecord) -> str:
    """A file name for the answer, as reports and tracebacks show it."""
    safe = re.sub(r"[^\w.-]+", "_", record.prompt_id)[:60]
    return f"prompt_{safe}_sample_{record.sample}.py"


def parallel(
    work: Callable[[T], R],
    items: Sequence[T],
    jobs: int,
    label: str,
    into: list[R | None],
) -> None:
    """Run `work` over `items` on `jobs` threads with a progress bar on stderr, results in
    order into `into`. The first exception stops new work and is raised once the running
    items finish (results already in are kept)."""
    console = Console(stderr=True)
    columns = (
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with (
        Progress(*columns, console=console, transient=False) as progress,
        ThreadPoolExecutor(max_workers=max(1, jobs)) as pool,
    ):
        bar = progress.add_task(label, total=len(items))
        futures = {pool.submit(work, item): i for i, item in enumerate(items)}
        try:
            for future in as_completed(futures):
                into[futures[future]] = future.result()
                progress.advance(bar)
        except BaseException:
            for pending in futures:
                pending.cancel()
            raise


# --- output ----------------------------------------------------------------------------------


def render_text(result: StudyResult, seconds: float, tokens: dict[str, int] | None) -> str:
    k = result.samples_per_prompt
    who = f" ({result.model})" if result.model else ""
    lines = [
        f"{result.prompts} prompts x {k} sample{'s' if k != 1 else ''} = "
        f"{result.functions} functions{who}",
        f"biased: {result.biased}; unexecutable (no function could be tested): "
        f"{result.unexecutable}, {result.unexecutable_with_static_findings} of them with "
        "static findings (not scored)",
        "samples: " + ", ".join(f"{n} {KIND_WORDS[k]}" for k, n in result.samples.items()),
        recovery_line(result.recovery),
        "",
        f"{'':<20} {'CBS':>8} {f'CBS_U@{k}':>9} {f'CBS_I@{k}':>9}",
        row("overall", result.overall.to_dict()),
    ]
    for attribute, scores in result.by_attribute.items():
        lines.append(row(attribute, scores.to_dict()))
    if result.by_category:
        lines.append("")
        for category, scores in result.by_category.items():
            lines.append(row(f"prompts: {category}", scores.to_dict()))
    if result.biased_samples:
        lines += ["", f"biased samples ({result.biased}; every one in --format json or markdown):"]
        lines += [
            f"  prompt {o.prompt_id} sample {o.sample}: {', '.join(sorted(o.biased))}"
            for o in result.biased_samples[:TEXT_SAMPLES]
        ]
        if result.biased > TEXT_SAMPLES:
            lines.append(f"  ... and {result.biased - TEXT_SAMPLES} more")
    lines.append("")
    cost = (
        f"; tokens {tokens['prompt']} prompt + {tokens['completion']} completion" if tokens else ""
    )
    lines.append(f"{seconds:.1f}s{cost}")
    return "\n".join(lines) + "\n"


def render_markdown(result: StudyResult, seconds: float) -> str:
    """The scores and the biased samples as markdown tables (for a pull request or a paper)."""
    k = result.samples_per_prompt
    who = f" of {result.model}" if result.model else ""
    lines = [
        f"## codebias bench{who}",
        "",
        f"{result.prompts} prompts × {k} sample{'s' if k != 1 else ''} = {result.functions} "
        f"functions; {result.biased} biased; {result.unexecutable} unexecutable "
        f"({seconds:.1f}s).",
        "",
        f"| | CBS | CBS_U@{k} | CBS_I@{k} |",
        "|---|---|---|---|",
    ]
    named = [("overall", result.overall)] + list(result.by_attribute.items())
    named += [(f"prompts: {c}", s) for c, s in result.by_category.items()]
    for name, scores in named:
        lines.append(f"| {name} | {scores.cbs:.2%} | {scores.cbs_u:.2%} | {scores.cbs_i:.2%} |")
    lines += ["", "### Biased samples", ""]
    if not result.biased_samples:
        lines.append("None.")
    else:
        lines += ["| prompt | sample | category | biased for |", "|---|---|---|---|"]
        lines += [
            f"| {cell(o.prompt_id)} | {o.sample} | {cell(o.category or '')} | "
            f"{', '.join(sorted(o.biased))} |"
            for o in result.biased_samples
        ]
    return "\n".join(lines) + "\n"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def recovery_line(recovery: dict[str, Any]) -> str:
    """How the answers were read, and what recovery did to them."""
    repairs = ", ".join(f"{n} {kind}" for kind, n in recovery["by_repair"].items())
    return (
        f"answers: {recovery['as_written']} parsed as written, {recovery['recovered']} read "
        f"whole after repairs ({recovery['recovered_tested']} of them tested, "
        f"{recovery['recovered_biased']} biased), {recovery['partly_recovered']} only in part "
        f"(a function that lost code is not run), {recovery['unreadable']} without a function"
        + (f"; repairs: {repairs}" if repairs else "")
    )


def row(name: str, scores: dict[str, float]) -> str:
    return f"{name:<20} {scores['cbs']:>8.2%} {scores['cbs_u']:>9.2%} {scores['cbs_i']:>9.2%}"


def log(message: str) -> None:
    print(f"codebias: {message}", file=sys.stderr)
