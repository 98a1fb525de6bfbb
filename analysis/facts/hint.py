"""What the code says about one name: the constants it is compared with, its kinds, its
bounds; filled by the harvest (analysis/facts/harvest.py), held by `ModuleFacts`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analysis.values import EnumMember


@dataclass
class Hint:
    constants: list[Any] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)  # num, int, float, str, bool, list, dict
    contains: list[Any] = field(default_factory=list)  # `c in name`: name holds c
    lengths: list[int] = field(default_factory=list)  # `len(name) > 2`: sizes that matter
    # Values the code refuses (`assert x is not None`, `if x in ("", None): raise`) and the
    # only ones it accepts (`assert sex.upper() in ["M", "F"]`): no value to rest on.
    refused: list[Any] = field(default_factory=list)
    accepted: list[Any] = field(default_factory=list)
    # Limits a number must keep to (`if height < 45: raise` -> (">=", 45)).
    bounds: list[tuple[str, float]] = field(default_factory=list)
    # Tables the project itself passes (`_clamp(bw, _WILKS_BW_RANGE, sex)`): whole values of
    # the parameter, where `constants` holds what it is compared with.
    given: list[Any] = field(default_factory=list)
    # Tables the module builds as it runs, looked up by the name (`SABITLER.ENGELLILIK.get(
    # degree)`, a dict loaded from a JSON file): no constant says their keys, which the
    # sandbox reads once the module has loaded (Session.table_keys) and the search tries.
    loaded: list[str] = field(default_factory=list)
    # (type, value) of every constant, so that adding one costs the same however many there are.
    seen: set[tuple[type, Any]] = field(default_factory=set, repr=False, compare=False)

    def add(self, value: Any) -> None:
        if isinstance(value, (list, tuple, set, frozenset, dict)):
            return
        key = (type(value), value)
        if key not in self.seen:
            self.seen.add(key)
            self.constants.append(value)
        self.kinds.add(kind_of(value))

    def copy(self) -> Hint:
        fresh = Hint()
        fresh.merge(self)
        return fresh

    def merge(self, other: Hint) -> None:
        for value in other.constants:
            self.add(value)
        self.kinds |= other.kinds
        for value in other.contains:
            if value not in self.contains:
                self.contains.append(value)
        self.lengths += [n for n in other.lengths if n not in self.lengths]
        self.refused += [v for v in other.refused if v not in self.refused]
        self.accepted += [v for v in other.accepted if v not in self.accepted]
        self.bounds += [b for b in other.bounds if b not in self.bounds]
        self.given += [g for g in other.given if not any(g is h for h in self.given)]
        self.loaded += [t for t in other.loaded if t not in self.loaded]


def kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, EnumMember):
        return "enum"
    return "other"
