"""Per-module caches: each of one purpose, declared where its values are made, and typed.

The functions of a module (the methods of a class above all) ask the same questions many
times: the fields a helper reads, a name's pool, the calls of the module's functions. Each
answer is kept once per module in the table of its `Cache`, a `dict[K, V]` that mypy checks
at every site: `POSITIONS: Cache[PositionsKey, dict[int, str]] = Cache("positions")` beside
the code that reads positions, `facts.caches[POSITIONS]` (or `facts.caches.value(POSITIONS,
key, make)`) where they are kept. A fact of the whole module has the key None
(`facts.caches.once(...)`). The tables live as long as the module's `ModuleFacts` and are
shared by the threads testing it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Cache(Generic[K, V]):
    """One purpose of caching (its table's keys `K` and values `V`); a key into `Caches`."""

    def __init__(self, purpose: str) -> None:
        self.purpose = purpose

    def __repr__(self) -> str:
        return f"Cache({self.purpose!r})"


class Caches:
    """The tables of one module's caches, one per `Cache`, made on first use."""

    def __init__(self) -> None:
        self.tables: dict[Cache[Any, Any], dict[Any, Any]] = {}

    def __getitem__(self, cache: Cache[K, V]) -> dict[K, V]:
        table: dict[K, V] = self.tables.setdefault(cache, {})
        return table

    def value(self, cache: Cache[K, V], key: K, make: Callable[[], V]) -> V:
        """The value kept for `key`, made (and kept) on the first ask."""
        table = self[cache]
        if key not in table:
            table[key] = make()
        return table[key]

    def once(self, cache: Cache[None, V], make: Callable[[], V]) -> V:
        """The module's one value of `cache` (a fact of the whole module), made on first ask."""
        return self.value(cache, None, make)
