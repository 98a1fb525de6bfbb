"""Fields a function reads that its source does not name, learnt from the call that fails.

The builder finds the keys a function reads in its own syntax (`patient["age"]`). Keys named
elsewhere escape it: a loop over a list of required keys, a TypedDict in another package, a
key built at run time (`params[f"Age {unit}"]`). A record given without them fails its first
call with `KeyError: 'Sex category'`, which names the key. The base call is run once before
the search; while it fails for a key no record has, the key joins every record of the model
(an extra key is harmless) and the call runs again.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from analysis.execution.process import Call, Session
from analysis.inputs.builder import InputBuilder
from analysis.search.contexts import typical
from analysis.shapes import (
    FrameShape,
    InputModel,
    InputPath,
    Leaf,
    ListShape,
    MappingShape,
    RecordShape,
    Shape,
)
from analysis.source.reads_input import FieldStep
from analysis.values import MISSING

# Keys learnt per function at most (each costs one call): a table of weights that a score
# sums over (`params[p] * w for p, w in WEIGHTS.items()`) names fifteen or more.
MAX_LEARNT = 32


# The names a table's reader says it lacks: pandas selecting columns, a scikit-learn model
# fitted on named features (it names five at a time), an XGBoost booster (all of them, in
# the order it wants them).
MISSING_COLUMNS = (
    re.compile(r"None of \[Index\((\[.*?\]), dtype=.*?\)\] are in the \[columns\]"),
    re.compile(r"^(\[.*?\]) not in index"),
    re.compile(r"seen at fit time, yet now missing:\s*((?:\n?- [^\n]+)+)"),
    re.compile(r"feature_names mismatch: (\[.*?\])"),  # the booster's, in its order
)


# A reader of numbers naming the columns it was given text in (XGBoost's DMatrix).
NOT_NUMBERS = re.compile(r"Invalid columns:\s*(.+)$")


def missing_key(error: str) -> tuple[list[str], FieldStep] | None:
    """The keys a failed call's error names and how they were read: `KeyError: 'Sex
    category'` ("key"), the columns a table lacks (`MISSING_COLUMNS`, "key"), or
    `AttributeError: age` as the harness's records raise it ("attr"; a plain name: no
    other object words its AttributeError so)."""
    kind, _, message = error.partition(":")
    kind, message = kind.strip(), message.strip()
    columns = missing_columns(message)
    if columns:
        return columns, "key"
    if kind == "KeyError":
        try:
            key = ast.literal_eval(message)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return ([key], "key") if isinstance(key, str) and key.strip() else None
    if kind == "AttributeError" and message.isidentifier() and not message.startswith("__"):
        return [message], "attr"
    return None


def missing_columns(message: str) -> list[str]:
    text = message.strip("\"'")
    for pattern in MISSING_COLUMNS:
        found = pattern.search(text)
        if found is None:
            continue
        listed = found.group(1)
        if listed.startswith("["):
            try:
                names = ast.literal_eval(listed)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
        elif listed.lstrip().startswith("-"):
            names = [line.strip()[2:] for line in listed.splitlines() if line.strip()[:2] == "- "]
        else:
            names = [name.strip() for name in listed.split(",")]
        columns = [n for n in names if isinstance(n, str) and n.strip() and n != "..."]
        if columns:
            return columns
    return []


# Where a table's cell sits below its column: the row tried (FrameShape).
NO_TAIL: InputPath = ()
FIRST_ROW: InputPath = (("index", 0),)


def records_of(model: InputModel) -> Iterator[tuple[RecordShape, InputPath, InputPath]]:
    """Every record of the model's arguments with its path and the steps below a field to
    its value (a table's row): the parameters themselves, the items of their lists and
    mappings, a table's row (nested records are reached through their fields)."""

    def walk(
        shape: Shape, path: InputPath, depth: int
    ) -> Iterator[tuple[RecordShape, InputPath, InputPath]]:
        if depth > 3:
            return
        if isinstance(shape, RecordShape):
            yield shape, path, NO_TAIL
            for name, sub in shape.fields.items():
                style = next((leaf.path[len(path)][0] for leaf in sub.leaves()), "key")
                yield from walk(sub, (*path, (style, name)), depth + 1)
        elif isinstance(shape, FrameShape):
            yield shape.item, path, FIRST_ROW
        elif isinstance(shape, (ListShape, MappingShape)):
            yield from walk(shape.item, (*path, shape.first_item), depth + 1)

    for param in model.params:
        if not param.spread:
            yield from walk(param.shape, (("param", param.name),), 0)


def has_opaque_record(model: InputModel) -> bool:
    """Whether an argument is a record of which the source names no key (read as
    `params[key]` for a key held elsewhere), or not all of them (RecordShape.open): only
    calls can tell what it holds."""
    return any(not record.fields or record.open for record, _, _ in records_of(model))


def learn_missing_fields(
    model: InputModel, builder: InputBuilder, session: Session, budget: int = MAX_LEARNT
) -> tuple[list[Leaf], int]:
    """Add the keys the base call fails for to the model's records (in place), and make
    numbers of the learnt ones its reader says must be numbers. Returns the leaves added and
    the calls spent."""
    records = list(records_of(model))
    if not records:
        return [], 0
    learnt: list[Leaf] = []
    spent = 0
    while spent < budget:
        base = {leaf.path: typical(leaf) for leaf in model.leaves if leaf.pool}
        args, kwargs = model.assemble(base)
        outcome = session.run([Call(tuple(args), kwargs, 0)])[0]
        spent += 1
        if outcome.ok:
            break
        missing = missing_key(outcome.error)
        if missing is not None:
            keys, style = missing
            new = [k for k in keys if not any(k in record.fields for record, _, _ in records)]
            for key in new:
                for record, path, tail in records:
                    step: InputPath = (*path, (style, key), *tail)
                    leaf_node = builder.leaf(key, step, model.leaves, [], None, MISSING)
                    record.fields[key] = leaf_node
                    learnt.append(leaf_node.leaf)
            if new:
                continue
        if not numbers_of(numeric_columns(outcome.error), records, learnt):
            break
    return learnt, spent


def numeric_columns(error: str) -> list[str]:
    """The columns a reader of numbers refuses as text: XGBoost's `Invalid columns:Job_admin.:
    str, Education_primary: str`."""
    found = NOT_NUMBERS.search(error)
    if found is None:
        return []
    return [part.rsplit(":", 1)[0].strip() for part in found.group(1).split(",") if ":" in part]


def numbers_of(columns: list[str], records: list[tuple[RecordShape, InputPath, InputPath]],
               learnt: list[Leaf]) -> bool:  # fmt: skip
    """Make numbers of the learnt fields `columns` names, one-hot flags (0 or 1) as a fitted
    model's `Education_primary` is; False when none of them is one to change."""
    changed = False
    for record, _, _ in records:
        for key in columns:
            shape = record.fields.get(key)
            for leaf in shape.leaves() if shape is not None else []:
                if leaf in learnt and leaf.pool != [0, 1]:
                    leaf.pool, leaf.typical, leaf.from_code = [0, 1], 0, 0
                    changed = True
    return changed
