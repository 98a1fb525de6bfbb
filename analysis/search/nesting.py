"""A value the code takes inside a list, found from the errors of the calls that give it bare.

Vectorised code takes many people's values at once, often through helpers no rule follows:
`compute_medicaid(household_size, income, num_dependents, dependent_ages)` hands
`dependent_ages` to a helper that reads `dependent_ages[i]` per household, then loops
`for a in ages` over that household's children. Built as one age, each value fails where the
code first treats it as a collection ("object of type 'int' has no len()"), and the search
sees no call with an age run: the bias goes unseen. The errors say what the value should
have been. So a protected input none of whose values ran is given each value inside a list
(and that list inside another, while the errors still speak of a bare value), until a call
runs; the search then tries its values there (`Leaf.nesting`).
"""

from __future__ import annotations

import re
from typing import Any

from analysis.execution.process import Call, Outcome, Session
from analysis.search.contexts import typical
from analysis.shapes import InputModel, Leaf

MAX_NESTING = 2  # a list per household of a list per person, at most
PROBES = 3  # values of the input tried at each depth
# What a value given where a collection is wanted raises; the type named, when one is.
BARE = re.compile(
    r"'(?P<named>[\w.]+)' object is not (?:iterable|subscriptable)"
    r"|object of type '(?P<sized>[\w.]+)' has no len\(\)"
    r"|iteration over a 0-d array|len\(\) of unsized object"
    r"|too many indices for array: array is 0-dimensional"
)


def nest_leaves(model: InputModel, session: Session, leaves: list[Leaf]) -> list[Leaf]:
    """Of `leaves`, those whose values now run inside lists (their `nesting` set); the others
    are left as they were."""
    return [leaf for leaf in leaves if nests(model, session, leaf)]


def nests(model: InputModel, session: Session, leaf: Leaf) -> bool:
    """Whether the leaf's values run once held in one list or two, where bare each raised as
    a value given for a collection (`BARE`). None stays None: an input left out."""
    values = [v for v in leaf.focus if isinstance(v, (int, float, str))][:PROBES]
    if not values or not all_bare(probe(model, session, leaf, values), values, leaf):
        return False
    for depth in range(1, MAX_NESTING + 1):
        leaf.nesting = depth
        outcomes = probe(model, session, leaf, values)
        if any(o.ok for o in outcomes):
            return True
        if not all_bare(outcomes, values, leaf):
            break
    leaf.nesting = 0
    return False


def probe(model: InputModel, session: Session, leaf: Leaf, values: list[Any]) -> list[Outcome]:
    """Calls of the base with the leaf set to each value in turn (fewer outcomes when the
    session's time is up)."""
    base = {other.path: typical(other) for other in model.leaves if other.pool}
    calls = []
    for value in values:
        args, kwargs = model.assemble({**base, leaf.path: value})
        calls.append(Call(tuple(args), kwargs, 0))
    return session.run(calls, until=session.deadline - 1.0)


def all_bare(outcomes: list[Outcome], values: list[Any], leaf: Leaf) -> bool:
    """Whether every value's call failed as code does that takes the value for a collection
    of such values: the error names the value's own type, or a 0-d array made of it."""
    if len(outcomes) < len(values):
        return False  # the session's time is up
    for outcome, value in zip(outcomes, values, strict=True):
        found = BARE.search(outcome.error) if not (outcome.ok or outcome.needs) else None
        if found is None:
            return False
        named = found.group("named") or found.group("sized")
        held = "Decimal" if leaf.decimal and not isinstance(value, str) else type(value).__name__
        if named is not None and named.rsplit(".", 1)[-1] != held:
            return False
    return True
