"""What a search found: the trials it ran, its witnesses, and its result."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from analysis.execution.process import Outcome
from analysis.shapes import InputPath, Leaf


@dataclass(frozen=True, slots=True)
class Trial:
    """One value of the varied leaf and what the call with it gave."""

    value: Any
    outcome: Outcome


@dataclass
class Witness:
    leaf: Leaf
    context: dict[InputPath, Any]
    values: tuple[Any, Any]
    outputs: tuple[str, str]
    kind: Literal["output", "refuses"] = "output"


@dataclass
class SearchResult:
    witnesses: dict[str, Witness] = field(default_factory=dict)  # by leaf display
    executions: int = 0
    ok_calls: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    # The first message of each kind of error, to say why calls raised.
    error_messages: dict[str, str] = field(default_factory=dict)
    noisy: set[str] = field(default_factory=set)  # leaves given up for unstable output
    needs: Counter[str] = field(default_factory=Counter)  # stubbed modules calls touched
    # The leaves some of whose calls touched a stub (by display): not tested in full.
    needing: set[str] = field(default_factory=set)
    exhausted: bool = False  # stopped by the budget rather than by running out of contexts
    interrupted: bool = False  # stopped from outside (Search.stop) before its budget
    # The leaves still open when the budget stopped the search (by display): not settled.
    undecided: set[str] = field(default_factory=set)

    @property
    def never_ran(self) -> bool:
        """Every call raised: the function was not tested at all."""
        return self.executions > 0 and self.ok_calls == 0
