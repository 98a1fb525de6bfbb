"""The calls a function's docstring shows: realistic inputs its author wrote down.

`>>> bmi(70, 1.75)`, or prose such as "Example: mrdr_gfr_explanation({"age": (49, 'years'),
"creatinine": (10.6, 'mg/dL'), "sex": "Male"})": a call of the function itself whose arguments
are all literals, or constants the module knows (`age_days=24.5 * DAYS_PER_MONTH`,
`Gender.MALE`). Its values are ones the code accepts, in the shape it expects: an age held
as `(49, 'years')` wants a unit word where nothing else says which. They become values of the
inputs they reach, and the base the other inputs rest on.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from typing import Any

from analysis.inputs import InputPath, Leaf
from analysis.pools import same
from analysis.values import MISSING

# What the module knows an expression to be (ModuleFacts.const), MISSING when it does not.
Resolve = Callable[[ast.expr], Any]

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
    bound = []
    for call in documented_calls(node, resolve):
        literals = call_literals(call, resolve)
        if literals is not None:
            args, kwargs = literals
            bound.append({**dict(zip(positional, args, strict=False)), **kwargs})
    return bound


def documented_items(examples: list[dict[str, Any]], path: InputPath) -> int:
    """How many items the documented value at `path` has when it is a small tuple or list of
    plain values (`(17, 'years')`): the shape the code wants. 0 when it is not."""
    for bound in examples:
        value = reached(bound, path)
        if (
            isinstance(value, (tuple, list))
            and 2 <= len(value) <= MAX_DOCUMENTED_ITEMS
            and all(isinstance(v, SCALARS) for v in value)
        ):
            return len(value)
    return 0


MAX_DOCUMENTED_ITEMS = 4


def seed_from_examples(
    examples: list[dict[str, Any]], leaves: list[Leaf], depth: int = 0
) -> None:
    """Give each leaf the values the documented calls pass it; the first call's value
    becomes its base. `depth`: the steps of the leaves' paths that lead to what the
    examples build (a record's fields are reached after the parameter that holds it)."""
    for n, bound in enumerate(examples):
        for leaf in leaves:
            value = reached(bound, leaf.path[depth:])
            if value is MISSED or not isinstance(value, SCALARS):
                continue
            index = next((i for i, v in enumerate(leaf.pool) if same(v, value)), None)
            if index is None or index >= leaf.from_code:
                # Among the code's own values, which come first and are varied early.
                base = leaf.pool[leaf.typical] if leaf.pool else None
                if index is not None:
                    leaf.pool.pop(index)
                index = leaf.from_code
                leaf.pool.insert(index, value)
                leaf.from_code += 1
                leaf.typical = next((i for i, v in enumerate(leaf.pool) if same(v, base)), index)
            if n == 0:
                leaf.typical = index


MISSED = object()


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
