"""`codebias` command line: parses arguments and hands each subcommand to its module."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codebias",
        description="Find, prove and fix social bias in Python functions.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    scan = sub.add_parser("scan", help="test every Python function under PATH for bias")
    scan.add_argument("paths", nargs="+", metavar="PATH")
    scan.add_argument(
        "--diff", metavar="FILE", help="unified diff (or - for stdin): test only touched functions"
    )
    add_config_options(scan)
    scan.add_argument("--format", choices=["text", "json", "sarif", "markdown"], default="text")
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
    scan.add_argument("--budget", type=int, default=None, help="executions per function")
    scan.add_argument(
        "--trust-code",
        action="store_true",
        help="DANGEROUS: run the code with resource limits only, without the sandbox "
        "(only for code you wrote yourself)",
    )

    serve = sub.add_parser("serve", help="run the GitHub App webhook service")
    serve.add_argument("--host", default="0.0.0.0")
    serve.add_argument("--port", type=int, default=8000)

    worker = sub.add_parser("worker", help="run an RQ worker for review jobs (needs REDIS_URL)")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")

    fix = sub.add_parser("fix", help="propose a verified, bias-free version of one function")
    fix.add_argument("target", metavar="FILE::QUALNAME")
    fix.add_argument("--strategy", default=None)
    fix.add_argument("--apply", action="store_true", help="rewrite the file with a verified fix")
    add_config_options(fix)
    fix.add_argument("--format", choices=["text", "json"], default="text")
    fix.add_argument("--trust-code", action="store_true", help="DANGEROUS: see scan --trust-code")

    review = sub.add_parser(
        "review",
        help="in CI: post the App's check run and review on a pull request with GITHUB_TOKEN",
    )
    review.add_argument("--pr", type=int, required=True, metavar="N", help="the pull request")
    review.add_argument("--check-name", default="codebias", help="name of the check run")
    review.add_argument("--jobs", type=int, default=1, help="functions tested at once")

    bench = sub.add_parser("bench", help="reproduce the paper's study: CBS, CBS_U@K, CBS_I@K")
    bench.add_argument(
        "--completions",
        metavar="FILE",
        help="saved answers: JSON Lines of {prompt_id, sample, completion}, or the paper's "
        "JSON list of {input, output}",
    )
    bench.add_argument("--prompts", metavar="FILE")
    bench.add_argument("--samples", type=int, default=5)
    bench.add_argument("--temperature", type=float, default=0.8)
    bench.add_argument("--strategy", default="zero-shot")
    bench.add_argument("--output", metavar="FILE", help="where generated completions are written")
    bench.add_argument("--config", metavar="FILE")
    bench.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    bench.add_argument("--jobs", type=int, default=0)
    bench.add_argument("--trust-code", action="store_true", help="DANGEROUS: see scan --trust-code")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
