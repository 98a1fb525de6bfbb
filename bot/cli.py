"""`codebias` command line: parses arguments and hands each subcommand to its module."""

from __future__ import annotations

import argparse
import sys
import textwrap
import traceback
from collections.abc import Callable, Sequence

EXIT_USAGE = 2
# An internal error stopped the run, in every command (docs/interfaces: 1 always means bias
# found, never a crash, so a crash must not read as a verdict or pass a CI step quietly).
EXIT_INTERNAL = 3


def add_config_options(command: argparse.ArgumentParser) -> None:
    config = command.add_mutually_exclusive_group()
    config.add_argument(
        "--config",
        metavar="FILE",
        help="a .codebias.yml layered over the defaults (default: the first .codebias.yml "
        "from each path up to its repository root)",
    )
    config.add_argument(
        "--no-config", action="store_true", help="the built-in defaults only, no .codebias.yml"
    )


def add_python_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--python",
        metavar="PATH",
        help="the interpreter the code under test runs with, and whose site-packages it "
        "imports from: your project's (as .venv/bin/python), 3.11 or newer; codebias itself "
        "keeps to its own environment (default: $CODEBIAS_PYTHON, else codebias's own)",
    )


def choice(kind: str, names: Sequence[str]) -> Callable[[str], str]:
    """An argument type that takes one of `names`; anything else is a usage error (exit 2)
    that lists them."""

    def check(value: str) -> str:
        if value not in names:
            raise argparse.ArgumentTypeError(
                f"unknown {kind} {value!r}; choose one of: {', '.join(names)}"
            )
        return value

    return check


class HelpFormatter(argparse.HelpFormatter):
    """argparse's, wrapping lines only at spaces: `feedback-zero-shot` stays one word."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def build_parser() -> argparse.ArgumentParser:
    from analysis.mitigation.prompts import DEFAULT_STRATEGY, STRATEGIES
    from analysis.study.scores import GENERATION_STRATEGIES

    parser = argparse.ArgumentParser(
        prog="codebias",
        description="Find, prove and fix social bias in Python functions.",
        formatter_class=HelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, about: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=about, formatter_class=HelpFormatter)

    scan = command("scan", "test every Python function under PATH for bias")
    scan.add_argument("paths", nargs="+", metavar="PATH", help="Python files and folders")
    scan.add_argument(
        "--diff", metavar="FILE", help="unified diff (or - for stdin): test only touched functions"
    )
    add_config_options(scan)
    scan.add_argument(
        "--format",
        choices=["text", "json", "sarif", "markdown"],
        default="text",
        help="the report's format (default: text)",
    )
    scan.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    scan.add_argument(
        "--force-exclude",
        action="store_true",
        help="leave out files named on the command line that the policy's paths: (or a "
        "folder such as .venv) excludes, as a scan of their folder would (for pre-commit)",
    )
    scan.add_argument(
        "--jobs", type=int, default=0, help="functions tested at once (default: cores)"
    )
    scan.add_argument(
        "--budget", type=int, default=None, metavar="N", help="executions per function"
    )
    add_python_option(scan)
    scan.add_argument(
        "--trust-code",
        action="store_true",
        help="DANGEROUS: run the code with resource limits only, without the sandbox "
        "(only for code you wrote yourself)",
    )

    serve = command("serve", "run the GitHub App webhook service")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")

    worker = command("worker", "run an RQ worker for review jobs (needs REDIS_URL)")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")

    fix = command("fix", "propose a verified, bias-free version of one function")
    fix.add_argument("target", metavar="FILE::QUALNAME", help="the function, as hiring.py::assess")
    fix.add_argument(
        "--strategy",
        metavar="S",
        type=choice("strategy", list(STRATEGIES)),
        default=None,
        help="how the model is asked, one of: "
        + ", ".join(STRATEGIES)
        + f" (default: the policy's mitigation.strategy, {DEFAULT_STRATEGY})",
    )
    fix.add_argument("--apply", action="store_true", help="rewrite the file with a verified fix")
    add_config_options(fix)
    fix.add_argument(
        "--format", choices=["text", "json"], default="text", help="output (default: text)"
    )
    add_python_option(fix)
    fix.add_argument("--trust-code", action="store_true", help="DANGEROUS: see scan --trust-code")

    review = command(
        "review", "in CI: post the App's check run and review on a pull request with GITHUB_TOKEN"
    )
    review.add_argument("--pr", type=int, required=True, metavar="N", help="the pull request")
    review.add_argument("--check-name", default="codebias", help="name of the check run")
    review.add_argument("--jobs", type=int, default=1, help="functions tested at once")
    add_python_option(review)

    bench = command("bench", "reproduce the paper's study: CBS, CBS_U@K, CBS_I@K")
    bench.add_argument(
        "--completions",
        metavar="FILE",
        help="saved answers: JSON Lines of {prompt_id, sample, completion}, or the paper's "
        "JSON list of {input, output}",
    )
    bench.add_argument(
        "--prompts",
        metavar="FILE",
        help="without --completions: a JSON list of {prompt, category} to ask the configured "
        "model for answers to, saved to --output and then scored",
    )
    bench.add_argument(
        "--samples",
        type=int,
        default=5,
        metavar="K",
        help="answers asked for each prompt, the K of CBS_U@K and CBS_I@K (default: 5)",
    )
    bench.add_argument(
        "--temperature",
        type=float,
        default=0.8,
        metavar="T",
        help="the model's sampling temperature when asking (default: 0.8)",
    )
    bench.add_argument(
        "--strategy",
        metavar="S",
        type=choice("generation strategy", GENERATION_STRATEGIES),
        default="zero-shot",
        help="how the model is asked, one of: "
        + ", ".join(GENERATION_STRATEGIES)
        + " (default: zero-shot, the paper's study setting)",
    )
    bench.add_argument(
        "--output",
        metavar="FILE",
        help="where generated completions are written (default: completions.jsonl)",
    )
    bench.add_argument("--config", metavar="FILE", help="a .codebias.yml layered over the defaults")
    bench.add_argument(
        "--format",
        choices=["text", "json", "markdown"],
        default="text",
        help="the scores' format (default: text)",
    )
    bench.add_argument(
        "--jobs",
        type=int,
        default=0,
        help="answers asked for and tested at once (default: cores)",
    )
    bench.add_argument("--trust-code", action="store_true", help="DANGEROUS: see scan --trust-code")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed by argparse
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    # Each subcommand's module is imported only when used, so `scan` never loads the web stack.
    if args.command == "scan":
        from bot.commands.scan import run
    elif args.command == "serve":
        from bot.commands.serve import run
    elif args.command == "worker":
        from bot.commands.worker import run
    elif args.command == "fix":
        from bot.commands.fix import run
    elif args.command == "review":
        from bot.commands.review import run
    else:
        from bot.commands.bench import run
    try:
        return run(args)
    except Exception as exc:  # what no command handled: said, with where, never exit 1
        traceback.print_exc(file=sys.stderr)
        print(f"codebias {args.command}: internal error: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
