"""`codebias scan`: test every Python function under the given paths and report."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from analysis.engine import Engine
from analysis.errors import CodebiasError, InterpreterError
from analysis.execution.interpreter import Interpreter
from analysis.execution.process import Executor
from analysis.report import ScanReport, safe_repr
from analysis.scan.diff import changed_lines
from bot.file_output import output_problem, write_file
from config.discovery import discover, shown
from config.layering import CONFIG_PATH
from config.policy import Policy, PolicyError, build_policy, read_layer

EXIT_CLEAN, EXIT_BIASED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
PYTHON_VARIABLE = "CODEBIAS_PYTHON"  # the environment's say for --python


def load_policy(config: str | None, budget: int | None = None) -> Policy:
    layers = []
    if config:
        layers.append(read_layer(config))
    if budget is not None:
        layers.append({"budget": {"executions_per_function": budget}})
    return build_policy(layers, source=config or "--budget")


def choose_config(config: str | None, no_config: bool, paths: Sequence[str]) -> str | None:
    """The policy file of a local run, named on stderr: `--config`, none with `--no-config`,
    else the `.codebias.yml` the scanned paths find on the way up to their repository root."""
    if config:
        log(f"config: {config} (--config)")
        return config
    if no_config:
        log("config: the built-in defaults (--no-config)")
        return None
    found = discover(paths)
    for warning in found.warnings:
        log(f"warning: {warning}")
    if found.config is None:
        log(f"config: the built-in defaults (no {CONFIG_PATH} up to the repository root)")
        return None
    log(f"config: {shown(found.config)}")
    return str(found.config)


def read_diff(source: str) -> str:
    """The text of `--diff FILE` (or - for stdin), checked to be a unified diff."""
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    try:
        changed_lines(text)
    except CodebiasError as exc:
        name = "standard input" if source == "-" else source
        raise PolicyError(f"--diff {name}: {str(exc).removeprefix('diff: ')}") from None
    return text


def choose_interpreter(option: str | None) -> Interpreter | None:
    """The Python the code under test runs with, named on stderr: `--python`, else
    $CODEBIAS_PYTHON, else None (codebias's own). InterpreterError says what is wrong."""
    env = os.environ.get(PYTHON_VARIABLE, "")
    path, source = (option, "--python ") if option else (env, f"{PYTHON_VARIABLE}=")
    if not path:
        return None
    try:
        interpreter = Interpreter.probe(path)
    except InterpreterError as exc:
        raise InterpreterError(source + exc.executable, exc.reason) from None
    log(f"python: {path} (Python {interpreter.shown_version}, {source.rstrip(' =')})")
    return interpreter


def choose_executor(trust_code: bool, interpreter: Interpreter | None = None) -> Executor | None:
    """None lets the engine set up the sandbox (and report why, if it cannot)."""
    if trust_code:
        from analysis.sandbox import default_executor

        # warns loudly on stderr
        return default_executor(trust_code=True, interpreter=interpreter)
    return None


def render(report: ScanReport, fmt: str, terminal: bool = False) -> str:
    """`terminal`: the text goes to a terminal (wrapped to its width, in colour)."""
    if fmt == "json":
        from bot.render.json_report import render_json

        return render_json(report)
    if fmt == "sarif":
        from bot.render.sarif import render_sarif

        return render_sarif(report)
    if fmt == "markdown":
        from bot.render.markdown import render_report

        return render_report(report)
    from bot.render.text import render_text

    if not terminal:
        return render_text(report)
    width = shutil.get_terminal_size().columns
    return render_text(report, width=width, color=not os.environ.get("NO_COLOR"))


@contextmanager
def progress_bar() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for interactive scans; nothing in pipes, files or CI logs."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("testing functions", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


def fails(report: ScanReport, policy: Policy) -> bool:
    """Locally every finding is new: `fail_on: none` is the only way to pass with findings.
    Static findings fail only when the policy says so (`fail_on_static`)."""
    if policy.fail_on == "none":
        return False
    return any(
        f.is_biased or (policy.fail_on_static and f.static_findings) for f in report.functions
    )


def run(args: argparse.Namespace) -> int:
    try:
        config = choose_config(args.config, args.no_config, args.paths)
        policy = load_policy(config, args.budget)
        diff_text = read_diff(args.diff) if args.diff else None
        interpreter = choose_interpreter(args.python)
    except (PolicyError, InterpreterError, OSError, UnicodeDecodeError) as exc:
        print(f"codebias: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.budget is not None and args.budget < 10:
        print("codebias: error: --budget must be at least 10 executions", file=sys.stderr)
        return EXIT_USAGE
    unwritable = output_problem(Path(args.output)) if args.output else None
    if unwritable is not None:
        print(f"codebias: error: --output {args.output}: {unwritable}", file=sys.stderr)
        return EXIT_USAGE
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    with progress_bar() as advance:
        engine = Engine(
            policy,
            executor=choose_executor(args.trust_code, interpreter),
            jobs=jobs,
            progress=advance,
            interpreter=interpreter,
        )
        try:
            report = engine.scan_paths(
                args.paths, diff_text=diff_text, force_exclude=args.force_exclude
            )
        except CodebiasError as exc:  # SandboxUnavailable included: nothing ran, say why
            print(f"codebias: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except Exception:  # noqa: BLE001 - a crash is exit 3, never 1 ("bias found")
            traceback.print_exc()
            print("codebias: internal error: the scan stopped (see above)", file=sys.stderr)
            return EXIT_INTERNAL
    missing = [p for p, why in report.problems if why == "no such file or directory"]
    if missing and len(missing) == len(args.paths):
        print(f"codebias: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    status: int | None = None
    try:
        text = render(report, args.format, terminal=not args.output and sys.stdout.isatty())
    except Exception:  # noqa: BLE001 - keep what finished: the JSON report is still written
        traceback.print_exc()
        print(f"codebias: internal error rendering {args.format}; writing JSON", file=sys.stderr)
        text, status = json.dumps(report.to_dict(), indent=2, default=safe_repr), EXIT_INTERNAL
    if args.output:
        try:
            write_file(Path(args.output), text)  # whole or not at all
        except OSError as exc:
            print(
                f"codebias: error: --output {args.output}: cannot write: {exc.strerror or exc}",
                file=sys.stderr,
            )
            status = EXIT_INTERNAL
    else:
        sys.stdout.write(text)
    for path, why in report.problems:
        log(f"{path}: {why}")
    for warning in report.warnings:
        log(f"warning: {warning}")
    if engine.sandbox_problem is not None:
        # Every function needing execution was only reviewed statically: not a pass.
        print(
            f"codebias: error: nothing was executed: {engine.sandbox_problem}. "
            "Install bubblewrap (see deploy/sandbox.md), or use --trust-code for code you wrote.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if status is not None:
        return status
    return EXIT_BIASED if fails(report, policy) else EXIT_CLEAN


def log(message: str) -> None:
    print(f"codebias: {message}", file=sys.stderr)
