"""Values from the tables a module builds as it loads: `SABITLER.ENGELLILIK.get(str(degree))`
where SABITLER is read from the package's JSON file at import. No constant in the source says
which degrees there are ("1" to "3"), and the policy's words for a disability are none of
them, so every call takes the table's default. The harvest files the table's dotted path under
the names that look it up (Hint.loaded); the sandbox reads its keys once the module has loaded
(Session.table_keys); they join the values from the code of every leaf that looks the table
up, as constants the source compared it with would, and one of no category rests on a key its
tables all have (a year), not on a value that only raises KeyError."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.facts.hint import Hint
from analysis.inputs.doc_examples import seed_value
from analysis.inputs.pools import dedupe, same
from analysis.shapes import Leaf
from analysis.values import EnumMember


def tables_looked_up(leaves: list[Leaf], hints: Mapping[str, Hint]) -> tuple[str, ...]:
    """The dotted paths of the loaded tables that these leaves' names look up."""
    paths: list[str] = []
    for leaf in leaves:
        hint = hints.get(leaf.name.lower())
        paths += [p for p in (hint.loaded if hint else []) if p not in paths]
    return tuple(paths)


def seed_table_keys(
    leaves: list[Leaf], hints: Mapping[str, Hint], keys: Mapping[str, tuple[Any, ...]]
) -> None:
    """Each leaf tries the keys of the tables its name looks up: an Enum's members, or keys of
    a type its values already have (a degree given as "0" takes "1", not 1). It rests on a
    key every one of its tables has (`RATES[year]` and `LIMITS[year]`, of years that differ)
    when it is of no category or when its tables are keyed by members: a value none has only
    raises KeyError, whatever the person."""
    for leaf in leaves:
        hint = hints.get(leaf.name.lower())
        tables = [keys[path] for path in (hint.loaded if hint else []) if path in keys]
        types = {type(v) for v in leaf.pool} | {EnumMember}
        found = dedupe([k for table in tables for k in table if type(k) in types])[:MAX_SEEDED]
        for key in found:
            seed_value(leaf, key, first=False)
        rests = leaf.category is None or any(isinstance(k, EnumMember) for k in found)
        if rests and found and not in_every(leaf.pool[leaf.typical], tables):
            rest = next((k for k in found if in_every(k, tables)), found[0])
            leaf.typical = next(i for i, v in enumerate(leaf.pool) if same(v, rest))


def in_every(value: Any, tables: list[tuple[Any, ...]]) -> bool:
    return all(any(same(value, key) for key in table) for table in tables)


# Keys tried per leaf at most: a table of every postcode is not a pool.
MAX_SEEDED = 16
