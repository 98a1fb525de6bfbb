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
from collections.abc import Iterator

from analysis.execution.process import Call, Session
from analysis.inputs.builder import InputBuilder
from analysis.search.contexts import typical
from analysis.shapes import (
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


def missing_key(error: str) -> tuple[str, FieldStep] | None:
    """The key a failed call's error names and how it was read: `KeyError: 'Sex category'`
    ("key"), or `AttributeError: age` as the harness's records raise it ("attr"; a plain
    name: no other object words its AttributeError so)."""
    kind, _, message = error.partition(":")
    kind, message = kind.strip(), message.strip()
    if kind == "KeyError":
        try:
            key = ast.literal_eval(message)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return (key, "key") if isinstance(key, str) and key.strip() else None
    if kind == "AttributeError" and message.isidentifier() and not message.startswith("__"):
        return message, "attr"
    return None


def records_of(model: InputModel) -> Iterator[tuple[RecordShape, InputPath]]:
    """Every record of the model's arguments with its path: the parameters themselves and the
    items of their lists and mappings (nested records are reached through their fields)."""

    def walk(shape: Shape, path: InputPath, depth: int) -> Iterator[tuple[RecordShape, InputPath]]:
        if depth > 3:
            return
        if isinstance(shape, RecordShape):
            yield shape, path
            for name, sub in shape.fields.items():
                style = next((leaf.path[len(path)][0] for leaf in sub.leaves()), "key")
                yield from walk(sub, (*path, (style, name)), depth + 1)
        elif isinstance(shape, (ListShape, MappingShape)):
            yield from walk(shape.item, (*path, shape.first_item), depth + 1)

    for param in model.params:
        if not param.spread:
            yield from walk(param.shape, (("param", param.name),), 0)


def has_opaque_record(model: InputModel) -> bool:
    """Whether an argument is a record of which the source names no key (read as
    `params[key]` for a key held elsewhere): only calls can tell what it holds."""
    return any(not record.fields for record, _ in records_of(model))


def learn_missing_fields(
    model: InputModel, builder: InputBuilder, session: Session, budget: int = MAX_LEARNT
) -> tuple[list[Leaf], int]:
    """Add the keys the base call fails for to the model's records (in place). Returns the
    leaves added and the calls spent."""
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
        missing = None if outcome.ok else missing_key(outcome.error)
        if missing is None or any(missing[0] in record.fields for record, _ in records):
            break
        key, style = missing
        for record, path in records:
            step: InputPath = (*path, (style, key))
            leaf_node = builder.leaf(key, step, model.leaves, [], None, MISSING)
            record.fields[key] = leaf_node
            learnt.append(leaf_node.leaf)
    return learnt, spent
