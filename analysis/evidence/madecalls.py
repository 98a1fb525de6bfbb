"""Calls codebias makes itself, as the recording's last entry point: a function of the
project with protected inputs, called with made-up inputs, hands the helpers it calls the
values they take.

`get_scores(file, model, new_parameters)` reads the patient's `Age` and `Sex` from a dict its
caller builds; no test or demo calls either of them. The caller,
`calc_barcelona_hf_score(parameters)`, takes a TypedDict the builder makes. Called with it,
it calls `get_scores` with the dict its own code builds, and the recorder keeps that call as
it keeps a test's: the protected leaves inside (`new_parameters['Age']`) are found and
flipped by the same rules (bases.py). A helper the project's own runs did call is not called
again (the recorder keeps a function's calls up to its share, then ignores it).

The callers are the functions the scan tests that have protected inputs of their own and
call a function recorded for by name; each is called with its model's first contexts (the
search's base, then one input varied), encoded as the search encodes them; the callers of
helpers without protected inputs first. A call is kept only when the caller returns, as a
data entry's (datafiles.py), and only to fill what the project's own calls left of a
function's share (the recorder sends it as reserve); the caller's own call is not recorded
(it is made-up, the search tries it anyway).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from analysis.search.contexts import contexts
from analysis.shapes import InputModel
from analysis.source.functions import FunctionInfo
from analysis.static.taint import call_name

MAX_CALLERS = 3  # callers called for one function recorded for, at most
CONTEXTS = 2  # calls of one caller: its base context, then one input varied
MAX_CALLS = 40  # calls made in one recording, at most
LABEL = "calls codebias made"


@dataclass(frozen=True)
class MadeCall:
    """One call of a caller: where it is, its arguments as the harness decodes them."""

    module: str
    qualname: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The source the recorded calls it makes name: what a finding cites."""
        return f"codebias's call of {self.module}.{self.qualname}"

    def wire(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "qualname": self.qualname,
            "args": list(self.args),
            "kwargs": dict(self.kwargs),
            "label": self.label,
        }


@dataclass(frozen=True)
class Caller:
    """A function the scan tests, with its synthesised model."""

    module: str  # its module's dotted name
    info: FunctionInfo
    model: InputModel


def made_calls(
    recorded: Iterable[str], callers: Iterable[Caller], needy: Iterable[str] = ()
) -> tuple[MadeCall, ...]:
    """The calls to make for the functions named `recorded`: up to MAX_CALLERS callers of
    each, CONTEXTS calls of each caller, MAX_CALLS in all; first the callers of those named
    `needy` (no protected input of their own: made-up inputs cannot judge them)."""
    wanted = set(recorded)
    first = set(needy) & wanted
    able = [c for c in callers if callable_alone(c)]
    ordered = sorted(able, key=lambda c: not (called_names(c.info.node) & first))
    callers_of: dict[str, int] = {}
    calls: list[MadeCall] = []
    for caller in ordered:
        named = called_names(caller.info.node) & wanted - {caller.info.name}
        helped = [name for name in sorted(named) if callers_of.get(name, 0) < MAX_CALLERS]
        if not helped:
            continue
        for name in helped:
            callers_of[name] = callers_of.get(name, 0) + 1
        for context in islice(contexts(caller.model), CONTEXTS):
            args, kwargs = caller.model.assemble(context)
            calls.append(MadeCall(caller.module, caller.info.qualname, tuple(args), kwargs))
        if len(calls) >= MAX_CALLS:
            break
    return tuple(calls[:MAX_CALLS])


def callable_alone(caller: Caller) -> bool:
    """Whether calling the function with its model's values runs its body: it has protected
    inputs, is neither a coroutine nor a closure, and takes no class (`cls`)."""
    info = caller.info
    return (
        bool(caller.model.protected)
        and not isinstance(info.node, ast.AsyncFunctionDef)
        and "<locals>" not in info.qualname
        and "classmethod" not in info.decorators
    )


def called_names(node: ast.AST) -> set[str]:
    """The names a function calls things by: `helper(...)`, `self.helper(...)`,
    `module.helper(...)`."""
    return {call_name(call) for call in ast.walk(node) if isinstance(call, ast.Call)} - {""}
