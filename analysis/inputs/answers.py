"""Answers typed at the function's own prompts: `age = int(input("Your age: "))` takes the
person from standard input, not from a parameter. Each `input()` the function calls is an
input of its own, in the order the calls stand in the source, named by the variable it is
kept in (else by its prompt: "Gender (M/F)? "), a number when `int()` or `float()` reads
it. The harness types them at the prompts, one line each (harness/runner.py ANSWERS)."""

from __future__ import annotations

import ast
from typing import TypeGuard

from analysis.execution.harness.runner import ANSWERS
from analysis.source.functions import FunctionNode
from analysis.source.functions import own_nodes as body_nodes

__all__ = ["ANSWERS", "prompts"]
NUMBER_READERS = frozenset({"int", "float", "Decimal"})


def prompts(fn: FunctionNode) -> list[tuple[str, str, ast.expr | None]]:
    """(name, prompt, annotation) of each `input()` call of `fn`'s own body, in source
    order: the annotation `int` or `float` when that reads the answer."""
    found: list[tuple[int, int, str, str, ast.expr | None]] = []
    nodes, kept_in = own_nodes(fn)
    for node in nodes:
        if not is_input_call(node):
            continue
        reader = kept_in.get(id(node))
        prompt = prompt_text(node)
        name = reader[0] if reader else prompt
        annotation = ast.Name(reader[1], ast.Load()) if reader and reader[1] else None
        found.append((node.lineno, node.col_offset, name or "answer", prompt, annotation))
    return [asked[2:] for asked in sorted(found, key=lambda f: f[:2])]


def own_nodes(fn: FunctionNode) -> tuple[list[ast.AST], dict[int, tuple[str, str]]]:
    """The nodes of `fn`'s body outside nested functions and classes, and the names the
    `input()` calls among them are assigned to: id(call) -> (variable, number reader or "")."""
    kept_in: dict[int, tuple[str, str]] = {}
    nodes = list(body_nodes(fn))
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                call, reader = unwrapped(node.value)
                if call is not None:
                    kept_in[id(call)] = (targets[0].id, reader)
    return nodes, kept_in


def unwrapped(value: ast.expr) -> tuple[ast.Call | None, str]:
    """The `input()` call an assigned value reads, through `int(...)`, `.strip()`,
    `.lower()`...; and the number reader around it, if any."""
    reader = ""
    while True:
        if is_input_call(value):
            return value, reader
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.args:
            if value.func.id in NUMBER_READERS:
                reader = "float" if value.func.id == "Decimal" else value.func.id
            value = value.args[0]
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            value = value.func.value  # input(...).strip().lower()
        else:
            return None, ""


def is_input_call(node: ast.AST) -> TypeGuard[ast.Call]:
    called = node.func if isinstance(node, ast.Call) else None
    return isinstance(called, ast.Name) and called.id == "input"


def prompt_text(call: ast.AST) -> str:
    """The prompt of an `input()` call, when it is plain text."""
    if isinstance(call, ast.Call) and call.args:
        first = call.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value.strip()
    return ""
