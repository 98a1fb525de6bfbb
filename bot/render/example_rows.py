"""The rows of a counterexample: every input of the call, each side with the values it used.

A finding names the varied input by its path (`candidate.age`, `applicants[0]['gender']`,
`df['sex'][*]` when every item took the value), while its example holds the whole call as
plain data with the value of one side in place. Writing each side's value at that path and
then listing both calls field by field gives one row per input, the varied ones (which
differ between the sides) showing the values each side really used.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from analysis.report import Example

Step = str | int  # a key or attribute name, an item's index, or "*" for every item
EVERY = "*"
NAME = re.compile(r"[A-Za-z_]\w*")
STEP = re.compile(
    r"""\.(?P<attr>[A-Za-z_]\w*)"""  # .age
    r"""|\[(?P<index>-?\d+|\*|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]"""  # [0] [*] ['age']
)


@dataclass(frozen=True)
class Row:
    name: str  # the input's path, as the finding spells it where it is the one varied
    sides: tuple[Any, Any]

    @property
    def varied(self) -> bool:
        return bool(self.sides[0] != self.sides[1])


def example_rows(parameter: str, example: Example) -> list[Row] | None:
    """Each input of the call with its value on either side; None when `parameter` cannot be
    found in the example's inputs (the caller then shows it on a row of its own)."""
    path = parse_path(parameter)
    if path is None or path[0] not in example.inputs:
        return None
    sides = []
    for value in (example.values + [None, None])[:2]:
        placed, found = put(example.inputs, path, value)
        if not found:
            return None
        sides.append(dict(fields("", placed)))
    names = list(dict.fromkeys([*sides[0], *sides[1]]))
    spelt = spelling(path)
    return [
        Row(parameter if spelt == name else name, (sides[0].get(name), sides[1].get(name)))
        for name in names
    ]


def parse_path(parameter: str) -> list[Step] | None:
    """`applicant.profile['age']` as ["applicant", "profile", "age"]; None if not a path."""
    start = NAME.match(parameter)
    if start is None:
        return None
    steps: list[Step] = [start.group()]
    at = start.end()
    while at < len(parameter):
        step = STEP.match(parameter, at)
        if step is None:
            return None
        if step["attr"] is not None:
            steps.append(step["attr"])
        elif step["index"] == EVERY or step["index"][0] not in "'\"":
            steps.append(EVERY if step["index"] == EVERY else int(step["index"]))
        else:
            steps.append(str(ast.literal_eval(step["index"])))
        at = step.end()
    return steps


def put(data: Any, path: list[Step], value: Any) -> tuple[Any, bool]:
    """`data` with `value` written at `path` (at every item for "*"), and whether it was."""
    if not path:
        return value, True
    step, rest = path[0], path[1:]
    if isinstance(data, list):
        indexes = range(len(data)) if step == EVERY else [step] if isinstance(step, int) else []
        copy = list(data)
        found = False
        for i in indexes:
            if -len(data) <= i < len(data):
                copy[i], hit = put(data[i], rest, value)
                found = found or hit
        return copy, found
    if isinstance(data, dict):
        keys = list(data) if step == EVERY else [k for k in (step, str(step)) if k in data][:1]
        copy_dict = dict(data)
        found = False
        for key in keys:
            copy_dict[key], hit = put(data[key], rest, value)
            found = found or hit
        return copy_dict, found
    return data, False


def fields(prefix: str, value: Any) -> list[tuple[str, Any]]:
    """A call's inputs as (path, value): records by field, lists of records by item; any
    other value (a number, a list of numbers, a column) is one field."""
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        return [
            pair
            for key, inner in value.items()
            for pair in fields(f"{prefix}[{key!r}]" if prefix else key, inner)
        ]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [pair for i, inner in enumerate(value) for pair in fields(f"{prefix}[{i}]", inner)]
    return [(prefix, value)]


def spelling(path: list[Step]) -> str:
    """How `fields` names the input at `path`."""
    name = str(path[0])
    for step in path[1:]:
        name += f"[{step}]" if isinstance(step, int) or step == EVERY else f"[{step!r}]"
    return name
