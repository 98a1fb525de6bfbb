"""Stable parts of nondeterministic outputs (issue "Real repositories 2/2", item 5).

`(age < 60, time.time())` never re-runs to the same output, yet its first item is a decision
on age. The harness gives each output part by part (`Outcome.parts`: tuple and list items,
dict values, object attributes); a part that varies between runs of the same call with the
same seed is unstable, and only parts stable on both sides of a pair can tell them apart.
Unseeded parts (clocks, uuids, `random.Random()`) are never the difference.
"""

from __future__ import annotations

from collections.abc import Sequence

from analysis.execution.process import Outcome


def varying_paths(runs: Sequence[Outcome]) -> frozenset[str]:
    """Paths of parts that differ between runs of one call ("" for the whole output), and
    paths that some runs lack."""
    if not runs:
        return frozenset()
    maps = [o.part_map for o in runs]
    every = set().union(*maps)
    varying = {p for p in every if len({m.get(p, (None, None))[0] for m in maps}) > 1}
    if len({o.value for o in runs}) > 1:
        varying.add("")
    return frozenset(varying)


def stable_difference(
    side_a: Sequence[Outcome], side_b: Sequence[Outcome], unstable: frozenset[str]
) -> tuple[str, str] | None:
    """The two outputs as a report shows them, naming the first stable part that differs
    (the shallowest, then the first in order); None when no stable part differs."""
    if not side_a or not side_b:
        return None
    a, b = side_a[0].part_map, side_b[0].part_map
    differing = [
        path
        for path in a
        if path in b
        and path not in unstable
        and a[path][0] != b[path][0]
        and a[path][1] != b[path][1]  # a masked echo of the protected value is no difference
    ]
    if not differing:
        return None
    path = min(differing, key=lambda p: (p.count("[") + p.count("."), list(a).index(p)))
    note = " (other parts of the output vary between runs)"
    return f"{path} = {a[path][0]}{note}", f"{path} = {b[path][0]}{note}"
