"""The calls a function's docstring or its module's demo shows: realistic inputs its author
wrote down.

`>>> bmi(70, 1.75)`, or prose such as "Example: mrdr_gfr_explanation({"age": (49, 'years'),
"creatinine": (10.6, 'mg/dL'), "sex": "Male"})": a call of the function itself whose arguments
are all literals, or constants the module knows (`age_days=24.5 * DAYS_PER_MONTH`,
`Gender.MALE`). Its values are ones the code accepts, in the shape it expects: an age held
as `(49, 'years')` wants a unit word where nothing else says which. They become values of the
inputs they reach, and the base the other inputs rest on.

A module's own top-level code is read the same way: the `if __name__ == "__main__":` block
that runs `for case in test_cases: print(f(case))` over a list of literal cases.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from typing import Any

from analysis.inputs.pools import same
from analysis.shapes import InputPath, Leaf
from analysis.values import MISSING

# What the module knows an expression to be (ModuleFacts.const), MISSING when it does not.
Resolve = Callable[[ast.expr], Any]
# The same, with names bound by the code around the expression (a loop's case).
ResolveLocal = Callable[[ast.expr, dict[str, Any]], Any]

MAX_EXAMPLES = 4
MAX_EXAMPLE_CHARS = 4000
PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)\s?", flags=re.MULTILINE)
SCALARS = (str, int, float, bool, type(None))


def documented_calls(
    fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, resolve: Resolve | None = None
) -> list[ast.Call]:
    """Calls of `fn` (of a class: its constructor) written in its docstring whose arguments
    are all literals (or constants `resolve` knows)."""
    doc = ast.get_docstring(fn, clean=True)
    if not doc or fn.name not in doc:
        return []
    text = PROMPT.sub("", doc)
    calls: list[ast.Call] = []
    for match in re.finditer(rf"(?<![\w]){re.escape(fn.name)}\s*\(", text):
        inner = balanced(text, match.end() - 1)
        if inner is None:
            continue
        try:
            call = ast.parse(f"f({textwrap.dedent(inner)})", mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # prose between parentheses, `f(x)` in a sentence
        if isinstance(call, ast.Call) and call_literals(call, resolve) is not None:
            calls.append(call)
            if len(calls) == MAX_EXAMPLES:
                break
    return calls


def balanced(text: str, start: int) -> str | None:
    """What the parenthesis at `start` encloses, skipping quoted text; None if unclosed."""
    depth, quote, i = 0, "", start
    end = min(len(text), start + MAX_EXAMPLE_CHARS)
    while i < end:
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i]
        i += 1
    return None


def call_literals(
    call: ast.Call, resolve: Resolve | None = None
) -> tuple[list[Any], dict[str, Any]] | None:
    """The positional and keyword values of a call of literals; None when one is not."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None

    def value(node: ast.expr) -> Any:
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            known = resolve(node) if resolve is not None else MISSING
            if known is MISSING:
                raise ValueError("not a constant") from None
            return known

    try:
        args = [value(a) for a in call.args]
        kwargs = {k.arg: value(k.value) for k in call.keywords if k.arg}
    except ValueError:
        return None
    return args, kwargs


def documented_arguments(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
    positional: list[str],
    resolve: Resolve | None = None,
) -> list[dict[str, Any]]:
    """The arguments of each documented call, by name: a function's parameters, or the fields
    of a record class (`>>> PatientData(age=55, sex="male", region="moderate")`).
    `positional`: the names a positional argument binds, in order."""
    calls = [call_literals(call, resolve) for call in documented_calls(node, resolve)]
    return bind_calls([c for c in calls if c is not None], positional)


def documented_items(examples: list[dict[str, Any]], path: InputPath) -> int:
    """How many items the documented value at `path` has when it is a small tuple or list of
    plain values (`(17, 'years')`): the shape the code wants. 0 when it is not."""
    for bound in examples:
        value = reached(bound, path)
        if measurement(value):
            return len(value)
    return 0


MAX_DOCUMENTED_ITEMS = 4


def seed_from_examples(examples: list[dict[str, Any]], leaves: list[Leaf], depth: int = 0) -> None:
    """Give each leaf the values the documented calls pass it; the first call's value
    becomes its base. `depth`: the steps of the leaves' paths that lead to what the
    examples build (a record's fields are reached after the parameter that holds it)."""
    for n, bound in enumerate(examples):
        for leaf in leaves:
            value = reached(bound, leaf.path[depth:])
            if measurement(value) and leaf.category is None:
                seed_measurement(leaf, value, first=n == 0)
            elif value is not MISSED and isinstance(value, SCALARS):
                seed_value(leaf, value, first=n == 0)


def seed_measurement(leaf: Leaf, value: Any, first: bool) -> None:
    """`(72, 'in')` handed whole to a converter: numbers alone do not fit it. Only for the
    other inputs: a protected one keeps its values to vary. The first call's is the base."""
    if not any(measurement(v) for v in leaf.pool):
        leaf.pool.clear()
        leaf.from_code = 0
    if not any(same(v, value) for v in leaf.pool):
        leaf.pool.insert(leaf.from_code, value)
        leaf.from_code += 1
    if first:
        leaf.typical = next(i for i, v in enumerate(leaf.pool) if same(v, value))


def seed_value(leaf: Leaf, value: Any, first: bool) -> None:
    """A documented value among the code's own values, which come first and are varied
    early; the first call's is the base."""
    index = next((i for i, v in enumerate(leaf.pool) if same(v, value)), None)
    if index is None or index >= leaf.from_code:
        base = leaf.pool[leaf.typical] if leaf.pool else None
        if index is not None:
            leaf.pool.pop(index)
        index = leaf.from_code
        leaf.pool.insert(index, value)
        leaf.from_code += 1
        leaf.typical = next((i for i, v in enumerate(leaf.pool) if same(v, base)), index)
    if first:
        leaf.typical = index


MISSED = object()


def measurement(value: Any) -> bool:
    """A small tuple or list of plain values: a quantity with its unit, `(72, 'in')`."""
    return (
        isinstance(value, (tuple, list))
        and 2 <= len(value) <= MAX_DOCUMENTED_ITEMS
        and all(isinstance(v, SCALARS) for v in value)
    )


def reached(bound: dict[str, Any], path: InputPath) -> Any:
    """The part of the example's arguments at `path`: its first step names an argument (a
    parameter or a field), the others go into it (("key", k), ("index", i))."""
    if not path or not isinstance(path[0][1], str) or path[0][1] not in bound:
        return MISSED
    value = bound[path[0][1]]
    for step, key in path[1:]:
        if step == "key" and isinstance(value, dict) and key in value:
            value = value[key]
        elif (
            step == "index"
            and isinstance(value, (list, tuple))
            and isinstance(key, int)
            and -len(value) <= key < len(value)
        ):
            value = value[key]
        else:
            return MISSED
    return value


def demonstrated_calls(
    tree: ast.Module, resolve: ResolveLocal
) -> dict[str, list[tuple[list[Any], dict[str, Any]]]]:
    """The calls the module's top-level code makes with constant values, by the name called:
    its demo (`if __name__ == "__main__":`) or a script's own run. Cases a loop walks
    (`for i, case in enumerate(test_cases, 1): f(case)`) are each a call."""
    calls: dict[str, list[tuple[list[Any], dict[str, Any]]]] = {}

    def walk(body: list[ast.stmt], local: dict[str, Any]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue  # run only when called: read as callers (analysis.facts.callers)
            if isinstance(stmt, ast.For):
                for case in loop_cases(stmt, local, resolve):
                    walk(stmt.body, {**local, **case})
                continue
            if isinstance(stmt, (ast.If, ast.With, ast.Try)):
                for field in ("body", "orelse", "finalbody"):
                    walk(getattr(stmt, field, []), local)
                continue
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    made = calls.setdefault(node.func.id, [])
                    literals = call_literals(node, lambda n: resolve(n, local))
                    if literals is not None and len(made) < MAX_EXAMPLES:
                        made.append(literals)
            if isinstance(stmt, ast.Assign):
                value = resolve(stmt.value, local)
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        local[target.id] = value  # MISSING hides a constant it rebinds

    walk(tree.body, {})
    return calls


def bind_calls(
    calls: list[tuple[list[Any], dict[str, Any]]], positional: list[str]
) -> list[dict[str, Any]]:
    """Each call's arguments by name; `positional`: the names positional arguments bind."""
    return [{**dict(zip(positional, args, strict=False)), **kwargs} for args, kwargs in calls]


def loop_cases(loop: ast.For, local: dict[str, Any], resolve: ResolveLocal) -> list[dict[str, Any]]:
    """What the loop's target is bound to on each turn, when it walks a constant list
    (`test_cases`, `enumerate(test_cases, 1)`); at most MAX_EXAMPLES turns."""
    over, start = loop.iter, 0
    if (
        isinstance(over, ast.Call)
        and isinstance(over.func, ast.Name)
        and over.func.id == "enumerate"
        and over.args
    ):
        if len(over.args) > 1:
            start = resolve(over.args[1], local)
        items = resolve(over.args[0], local)
        if not isinstance(items, (list, tuple)) or not isinstance(start, int):
            return []
        items = [(start + i, item) for i, item in enumerate(items)]
    else:
        items = resolve(over, local)
        if not isinstance(items, (list, tuple)):
            return []
    cases = []
    for item in items[:MAX_EXAMPLES]:
        case = unpacked(loop.target, item)
        if case is None:
            return []
        cases.append(case)
    return cases


def unpacked(target: ast.expr, value: Any) -> dict[str, Any] | None:
    """The names an assignment target binds to `value`; None when it does not fit."""
    if isinstance(target, ast.Name):
        return {target.id: value}
    if isinstance(target, (ast.Tuple, ast.List)):
        if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
            return None
        names: dict[str, Any] = {}
        for part, item in zip(target.elts, value, strict=True):
            inner = unpacked(part, item)
            if inner is None:
                return None
            names.update(inner)
        return names
    return None
