"""`codebias fix FILE::QUALNAME`: a bias-free version of one function, verified before shown.

The mechanical rules propose one without a model; with a model configured it is asked too,
and the smaller verified fix is shown, saying which made it (analysis.mitigation.propose_fix).
The App's `/codebias fix` takes the same path (bot.suggest).

Exit codes: 0 fixed (with --apply: and written), or nothing to fix; 1 not fixed: bias remains
after every attempt, or no rule applies and no language model is configured (the findings and
a note saying how to configure one are printed); 2 usage or configuration error; 3 no fix for
a reason outside the function's bias: the provider failed (unreachable, or errors after its
retries) and no rule fixed it, the function cannot be run so no fix can be verified, or
--apply could not write the file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from analysis.engine import Engine
from analysis.errors import CodebiasError, InterpreterError
from analysis.mitigation import FixResult, UnknownStrategy, get_strategy, mitigate, propose_fix
from analysis.report import Finding, safe_repr
from analysis.scan.files import select_files
from bot.commands.scan import choose_config, choose_executor, choose_interpreter, load_policy
from bot.file_output import write_file
from bot.llm import LLMConfigError, enable_hint, provider_from_env
from config.policy import PolicyError

EXIT_OK, EXIT_NOT_FIXED, EXIT_USAGE, EXIT_FAILED = 0, 1, 2, 3


def run(args: argparse.Namespace) -> int:
    file, sep, qualname = str(args.target).rpartition("::")
    if not sep or not file or not qualname:
        return usage(
            f"expected FILE::QUALNAME (like hiring.py::Screener.assess), got {args.target!r}"
        )
    try:
        policy = load_policy(choose_config(args.config, args.no_config, [file]))
        strategy = args.strategy or policy.mitigation.strategy
        get_strategy(strategy)
        provider = provider_from_env(policy, os.environ)
        interpreter = choose_interpreter(args.python)
    except (PolicyError, UnknownStrategy, LLMConfigError, InterpreterError) as exc:
        return usage(str(exc))
    try:
        source = Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        return usage(f"{file}: cannot read: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        return usage(f"{file}: not UTF-8 text: {exc.reason}")

    shown = display_path(file)
    enabled = policy.mitigation.enabled
    if not enabled:
        log(f"{enable_hint(policy)}; testing {shown}::{qualname} for its findings only")
    elif provider is None:
        log(
            "no language model is configured, so fixes come from the mechanical rules only: "
            + enable_hint(policy)
        )
        log(f"testing {shown}::{qualname}")
    else:
        model = f"{provider.name} ({provider.model})"
        log(f"testing {shown}::{qualname}; fixes from the mechanical rules and {model}")
    # Loaded exactly as `scan` loads a file named on its own: as its module in its package
    # (or repository), with the policy's stubs, budgets and sandbox.
    (named,) = select_files([file], policy).files
    executor = choose_executor(args.trust_code, interpreter)
    with Engine(policy, executor=executor, interpreter=interpreter) as engine:
        propose = propose_fix if enabled else mitigate  # switched off: findings only
        try:
            result = propose(
                engine,
                source,
                shown,
                qualname,
                provider,
                strategy=strategy,
                max_rounds=policy.mitigation.max_rounds,
                place=engine.place(shown, named.home),
            )
        except CodebiasError as exc:  # no such function, no parsable Python, no sandbox
            return usage(str(exc))
    if provider is None and result.status == "not_fixed":
        hint = enable_hint(policy, os.environ)
        result.note = join_notes(result.note, hint) if enabled else hint

    applied: bool | None = None
    if args.apply:
        applied = apply(file, source, result)

    if args.format == "json":
        out = result.to_dict(f"{shown}::{qualname}")
        if applied is not None:
            out["applied"] = applied
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        sys.stdout.write(render_text(f"{shown}::{qualname}", result, applied))
    return exit_code(result, applied=applied)


def exit_code(result: FixResult, applied: bool | None) -> int:
    if result.status in ("fixed", "clean"):
        return EXIT_FAILED if applied is False and result.status == "fixed" else EXIT_OK
    if result.status == "not_fixed":
        return EXIT_NOT_FIXED  # with no model configured too: nothing was fixed
    return EXIT_FAILED


def apply(file: str, source: str, result: FixResult) -> bool:
    """Rewrite `file` with the verified fix; never a half-written file, never an unverified one."""
    if result.status != "fixed" or result.new_module_source is None:
        log(f"not applied: {file} is left as it was (no verified fix)")
        return False
    path = Path(file)
    if path.read_text(encoding="utf-8") != source:
        result.note = join_notes(result.note, f"not applied: {file} changed while the fix was made")
        return False
    try:
        write_file(path, result.new_module_source)  # whole or not at all, permissions kept
    except OSError as exc:
        result.note = join_notes(result.note, f"not applied: cannot write {file}: {exc.strerror}")
        return False
    log(f"applied the verified fix to {file}")
    return True


def render_text(function: str, result: FixResult, applied: bool | None) -> str:
    lines: list[str] = []
    if result.report is not None and result.report.findings:
        lines.append(f"{function}: biased for {', '.join(result.before)}")
        lines.extend(f"  {describe(finding)}" for finding in result.report.findings)
    else:
        lines.append(f"{function}: {result.report.status if result.report else 'not tested'}")
    tokens = result.tokens
    cost = f"; tokens {tokens['prompt']} prompt + {tokens['completion']} completion"
    attempts = f"{result.attempts} attempt{'s' if result.attempts != 1 else ''}"
    if result.status == "fixed":
        agreement = (
            f"; unchanged output on {result.agreement:.0%} of tested inputs"
            if result.agreement is not None else ""
        )
        made = f"after {attempts} ({result.strategy})"
        if result.rule is not None:
            made = f"by the mechanical rule {result.rule}"
            cost = cost if result.attempts else ""
        lines.append(f"fixed {made}: re-tested in the sandbox, no bias left{agreement}{cost}")
        if applied:
            lines.append("applied to the file")
        lines.append("")
        lines.append((result.patch or "").rstrip("\n"))
    elif result.status == "not_fixed" and result.attempts:
        lines.append(
            f"not fixed after {attempts} ({result.strategy}): still biased for "
            f"{', '.join(result.after)}{cost}"
        )
    elif result.status == "error" and result.attempts:
        lines.append(f"no fix after {attempts} ({result.strategy}){cost}")
    if result.note:
        lines.append(f"note: {result.note}")
    return "\n".join(lines) + "\n"


def describe(finding: Finding) -> str:
    where = f" (line {finding.line})" if finding.line else ""
    head = f"{finding.attribute} via {finding.parameter}{where}"
    example = finding.example
    if example is None:
        return f"{head}: judged from the code, not executed"
    inputs = ", ".join(f"{k}={json.dumps(v, default=safe_repr)}" for k, v in example.inputs.items())
    outcomes = ", ".join(
        f"{json.dumps(value, default=safe_repr)} -> {output}"
        for value, output in zip(example.values, example.outputs, strict=False)
    )
    return f"{head}: {outcomes} with {inputs}"


def display_path(file: str) -> str:
    """As given, relative to the working directory where possible."""
    path = Path(file)
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd()).as_posix()
        except ValueError:
            return path.as_posix()
    return path.as_posix()


def join_notes(*notes: str | None) -> str:
    return "; ".join(n for n in notes if n)


def usage(message: str) -> int:
    print(f"codebias: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def log(message: str) -> None:
    print(f"codebias: {message}", file=sys.stderr)
