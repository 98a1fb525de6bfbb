"""Answers typed at the function's own prompts: `age = int(input("Your age: "))` takes the
person from standard input, not from a parameter. Each `input()` the function calls is an
input of its own, in the order the calls stand in the source, named by the variable it is
kept in (else by its prompt: "Gender (M/F)? "), a number when `int()` or `float()` reads
it. A helper of the module that asks at the prompt it is handed (`yas = ask_number("Your
age: ", 18)`, its own `int(input(message))` in a loop until the answer is valid) is such a
call too, a number when the helper reads one. The harness types them at the prompts, one
line each (harness/runner.py ANSWERS). An answer read as `input(prompt) or default` may
also be left empty: Enter keeps the program's default, which may be a person's (a
retirement age suggested by the sex typed before)."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TypeGuard

from analysis.execution.harness.runner import ANSWERS
from analysis.source.functions import FunctionNode
from analysis.source.functions import own_nodes as body_nodes

__all__ = ["ANSWERS", "prompts"]
NUMBER_READERS = frozenset({"int", "float", "Decimal"})


def prompts(
    fn: FunctionNode, helpers: Mapping[str, str] | None = None
) -> list[tuple[str, str, ast.expr | None, bool]]:
    """(name, prompt, annotation, defaulted) of each `input()` call of `fn`'s own body, and
    of each call of one of the module's prompt `helpers` (prompt_helpers), in source order:
    the annotation `int` or `float` when that reads the answer; `defaulted` when an empty
    answer keeps a default (`input(prompt) or default`)."""
    # the helper itself asks at its `input()`
    helpers = {name: reader for name, reader in (helpers or {}).items() if name != fn.name}
    found: list[tuple[int, int, str, str, ast.expr | None, bool]] = []
    nodes, kept_in = own_nodes(fn, helpers)
    defaulted = {
        id(call)
        for node in nodes
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)
        for call in [unwrapped(node.values[0], helpers)[0]]
        if call is not None
    }
    for node in nodes:
        if not asks(node, helpers):
            continue
        reader = kept_in.get(id(node))
        prompt = prompt_text(node, nodes)
        number = reader[1] if reader and reader[1] else helpers.get(called_name(node), "")
        name = reader[0] if reader else prompt
        annotation = ast.Name(number, ast.Load()) if number else None
        asked = (name or "answer", prompt, annotation, id(node) in defaulted)
        found.append((node.lineno, node.col_offset, *asked))
    return [asked[2:] for asked in sorted(found, key=lambda f: f[:2])]


def prompt_helpers(functions: Mapping[str, FunctionNode]) -> dict[str, str]:
    """The module's functions that ask at the prompt they are handed (`input(message)`, the
    message their first parameter), each with the number reader around its answer ("")."""
    found: dict[str, str] = {}
    for name, fn in functions.items():
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if not params:
            continue
        nodes, kept_in = own_nodes(fn)
        calls = [n for n in nodes if is_input_call(n) and handed_prompt(n, params[0])]
        if calls:
            found[name] = next((kept_in[id(c)][1] for c in calls if id(c) in kept_in), "")
    return found


def handed_prompt(call: ast.Call, param: str) -> bool:
    first = call.args[0] if call.args else None
    return isinstance(first, ast.Name) and first.id == param


def own_nodes(
    fn: FunctionNode, helpers: Mapping[str, str] | None = None
) -> tuple[list[ast.AST], dict[int, tuple[str, str]]]:
    """The nodes of `fn`'s body outside nested functions and classes, and the names the
    `input()` calls (and calls of the prompt `helpers`) among them are assigned to:
    id(call) -> (variable, number reader or "")."""
    kept_in: dict[int, tuple[str, str]] = {}
    nodes = list(body_nodes(fn))
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                call, reader = unwrapped(node.value, helpers or {})
                if call is not None:
                    kept_in[id(call)] = (targets[0].id, reader)
    return nodes, kept_in


def unwrapped(value: ast.expr, helpers: Mapping[str, str]) -> tuple[ast.Call | None, str]:
    """The `input()` call (or prompt helper's) an assigned value reads, through `int(...)`,
    `.strip()`, `.lower()`...; and the number reader around it, if any."""
    reader = ""
    while True:
        if asks(value, helpers):
            return value, reader
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.args:
            if value.func.id in NUMBER_READERS:
                reader = "float" if value.func.id == "Decimal" else value.func.id
            value = value.args[0]
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            value = value.func.value  # input(...).strip().lower()
        elif isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            value = value.values[0]  # `input(prompt) or default`: Enter keeps the default
        else:
            return None, ""


def is_input_call(node: ast.AST) -> TypeGuard[ast.Call]:
    return called_name(node) == "input"


def asks(node: ast.AST, helpers: Mapping[str, str]) -> TypeGuard[ast.Call]:
    """Whether `node` reads one answer: `input(...)`, or a prompt helper's call."""
    name = called_name(node)
    return name == "input" or name in helpers


def called_name(node: ast.AST) -> str:
    called = node.func if isinstance(node, ast.Call) else None
    return called.id if isinstance(called, ast.Name) else ""


def prompt_text(call: ast.AST, nodes: list[ast.AST]) -> str:
    """The prompt of an `input()` call: its text, the text parts of an f-string
    (`f"Sex (M/F) [{default}]: "`), or either kept in a name just before (`prompt = ...;
    input(prompt)`: the last such assignment above the call among `nodes`)."""
    if not (isinstance(call, ast.Call) and call.args):
        return ""
    first = call.args[0]
    if isinstance(first, ast.Name):
        above = [
            node.value
            for node in nodes
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == first.id
            and node.lineno <= call.lineno
        ]
        first = max(above, key=lambda value: value.lineno) if above else first
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value.strip()
    if isinstance(first, ast.JoinedStr):
        parts = [p.value for p in first.values if isinstance(p, ast.Constant)]
        return " ".join(str(p).strip() for p in parts if str(p).strip())
    return ""
