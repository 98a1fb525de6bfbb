"""The contexts a protected leaf is tried in: the base, one factor at a time, seeded random
combinations; and the pairs of protected inputs tried together once one is proved."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from analysis.inputs.pools import dedupe
from analysis.shapes import ALIKE, InputModel, InputPath, Leaf

RANDOM_CONTEXTS = 32


# Pairs with another protected input, at most (tried only once some attribute is proved).
MAX_PROTECTED_PAIRS = 400


def typical(leaf: Leaf) -> Any:
    """The base value of a leaf: an ordinary value, so that counterexamples read naturally."""
    return leaf.pool[leaf.typical] if 0 <= leaf.typical < len(leaf.pool) else leaf.pool[0]


def contexts(
    model: InputModel, seed: int = 0, first: frozenset[str] = frozenset()
) -> Iterator[dict[InputPath, Any]]:
    """Assignments of every leaf: base, one factor at a time, then seeded random ones.
    `first`: the inputs to vary before the others (static.acting_with)."""
    leaves = model.leaves
    base = {leaf.path: typical(leaf) for leaf in leaves}
    yield dict(base)
    if model.grouped:
        # The peers as the item tried: a batch that must be of one sex runs only so.
        yield {**base, ALIKE: True}
    yield from around(model, base, first)
    rng = random.Random(seed)
    for _ in range(RANDOM_CONTEXTS):
        yield {leaf.path: rng.choice(leaf.pool) for leaf in leaves}


def around(
    model: InputModel, base: dict[InputPath, Any], first: frozenset[str] = frozenset()
) -> Iterator[dict[InputPath, Any]]:
    """Variations of a base: one input at a time (the fixed peers' guarded inputs too), then
    pairs of guarded inputs, and each guarded input of an item beside its peer's."""
    # Inputs the code compares with constants guard branches: vary those first, and first
    # among them those that act with a protected one.
    ordered = sorted(
        model.others, key=lambda leaf: (not leaf.guarded, leaf.display not in first)
    ) + model.protected
    peers = model.peers
    # The peers rest on their own values, which the base leaves implicit (unless it sets them).
    with_peers = {**{peer.path: typical(peer) for peer in peers}, **base}
    for leaf in [*ordered, *peers]:
        for value in leaf.pool if not leaf.protected else leaf.focus:
            if value == with_peers[leaf.path]:
                continue
            ctx = dict(base)
            ctx[leaf.path] = value
            yield ctx
    # Pairs of guarded inputs, every combination of their values: bias that shows only
    # when two other conditions hold at once (income high *and* expenses above a line).
    guarded = [leaf for leaf in model.others if leaf.guarded]
    yield from pairs(guarded, base, lambda leaf: leaf.pool)
    # An item and its peer in the states a condition reads (the penalty of a best-of pick
    # shows where the candidate is under three years and the peer is close behind).
    items = {leaf.path: leaf for leaf in guarded}
    for peer in peers:
        item = items.get(peer.path[1:])
        if item is not None:
            yield from pairs([item, peer], with_peers, contrast)


def contrast(leaf: Leaf) -> list[Any]:
    """The values of a leaf tried in each pair context: the code's own and the base value
    (two people who differ as the code tells them apart), not the whole focus."""
    chosen = dedupe([*leaf.pool[: leaf.from_code], typical(leaf)])
    return chosen if len(chosen) >= 2 else dedupe([*chosen, *leaf.pool[:2]])


def protected_pairs(
    model: InputModel,
    base: dict[InputPath, Any],
    proved: set[str],
    open_leaves: list[Leaf] | None = None,
    scopes: dict[str, frozenset[int]] | None = None,
) -> Iterator[dict[InputPath, Any]]:
    """Pairs that move an attribute already `proved` beside another guarded input (their
    contrasting values): a sex that matters only for one measurement *and* past an age
    (`method == "ofc" and age > 17`). Tried last, and only once another attribute is proved
    (Search.pairs_due): the pairs are many. With the function's `scopes` (static.
    condition_scopes), only pairs that some condition reads together with an input still
    open, or inputs of which the code says nothing here."""
    guarded = [leaf for leaf in model.others if leaf.guarded]
    protected = [leaf for leaf in model.protected if leaf.guarded]
    firsts = [leaf for leaf in protected if leaf.display in proved]
    for a in firsts:
        for b in [*guarded, *protected]:
            if b is a or (b in firsts and firsts.index(b) < firsts.index(a)):
                continue
            if scopes is None or together(scopes, [a, b], open_leaves or []):
                yield from pairs([a, b], base, contrast)


def together(scopes: dict[str, frozenset[int]], pair: list[Leaf], open_leaves: list[Leaf]) -> bool:
    """Whether one condition may read the pair with an open leaf; unknown is yes."""
    if any(leaf.display not in scopes for leaf in pair):
        return True
    shared = scopes[pair[0].display] & scopes[pair[1].display]
    return any(
        leaf.display not in scopes or shared & scopes[leaf.display]
        for leaf in open_leaves
        if leaf not in pair
    )


def pairs(
    leaves: list[Leaf], base: dict[InputPath, Any], values: Callable[[Leaf], list[Any]]
) -> Iterator[dict[InputPath, Any]]:
    """Every combination of two leaves' values off the base, for each pair of the leaves."""
    for i, a in enumerate(leaves):
        for b in leaves[i + 1 :]:
            for va in values(a):
                for vb in values(b):
                    if va != base[a.path] and vb != base[b.path]:
                        yield {**base, a.path: va, b.path: vb}
