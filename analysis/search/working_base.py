"""A base call that runs, found by following the errors of the calls that fail.

Code that validates what it is given checks one thing after another: the sex is one of two
words, the measurement lies within the range of its method (`LIMITS[method]`), the child is
under twenty. Made-up values fail the first check, and a random mixture of values seldom
passes all of them at once: every call raises and the function ends `unverified`. Each check
passed, though, shows the next one's error. So, from the base, one input is changed at a
time (two of those the error speaks of, when no single change gets further); a change is
kept when the call returns, or fails with an error not seen before that does not speak of
the inputs changed (`sex must be male or female` after trying "Male" is a step back, not
forward), and the walk goes on from there. The base values of the inputs (`Leaf.typical`)
become those of the call that runs: the search then starts around it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from typing import Any

from analysis.execution.process import Call, Outcome, Session
from analysis.inputs.pools import same
from analysis.search.contexts import typical
from analysis.search.missing_fields import missing_key
from analysis.shapes import InputModel, InputPath, Leaf
from analysis.values import ABSENT, is_number
from config.policy import Policy

MAX_STEPS = 8  # checks passed one after another, at most
MAX_CALLS = 600  # calls the walk may spend in all
MAX_STEP_CALLS = 200  # calls of one kind of move in one step
MAX_TOLD = 12  # values one error's message offers one input, at most
# Failures no other value gets past: the harness's limits.
HOPELESS = ("TimeoutError", "MemoryError", "RecursionError", "malformed outcome")
BUILDING = re.compile(r"^InputError: building the inputs raised ")
UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")
NUMBERS = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
# Words offered unquoted, as alternatives: "define sex as m or f", "one of M, F or X",
# "M/F". Short words only: "a str or bytes" offers two harmless tries, a sentence none.
WORD = r"[A-Za-z][\w-]{0,11}"
ALTERNATIVES = re.compile(rf"\b{WORD}(?:\s*,\s*{WORD})*,?\s+or\s+{WORD}\b|\b{WORD}(?:/{WORD})+\b")

Move = tuple[tuple[Leaf, Any], ...]


def find_working_base(model: InputModel, session: Session, policy: Policy | None = None) -> bool:
    """Set the model's base values to those of a call that runs, when the base call fails
    and a walk of changes reaches one (else leave them); whether it did. With `policy`, an
    error speaks of an input also by a word of its category (`define sex as m or f` of a
    `gender`)."""
    current = {leaf.path: typical(leaf) for leaf in model.leaves if leaf.pool}
    first = run(model, session, [current])
    spent = 1
    if not first or not walkable(first[0], current):
        return False
    outcome = first[0]
    seen = {error_kind(outcome.error, current)}
    told: dict[InputPath, list[Any]] = {}  # values error messages offered each input
    for _ in range(MAX_STEPS):
        spoken = [leaf for leaf in model.leaves if spoken_of(leaf, current, outcome.error, policy)]
        single = dropped_moves(model.leaves, current, outcome.error)
        single += zeros_moved(model.leaves, current, outcome.error)
        single += respelled_moves(model.leaves, current, outcome.error)
        single += told_moves(spoken, current, outcome.error, told)
        single += single_moves(model.leaves, spoken, current)
        for moves in (single, paired_moves(spoken, current)):
            moves = moves[: max(0, min(MAX_STEP_CALLS, MAX_CALLS - spent))]
            if not moves:
                continue
            tried = [{**current, **{leaf.path: v for leaf, v in move}} for move in moves]
            outcomes = run(model, session, tried)
            spent += len(moves)
            out_of_time = len(outcomes) < len(tried)
            moves, tried = moves[: len(outcomes)], tried[: len(outcomes)]
            step = forward(moves, tried, outcomes, seen, policy)
            if step is not None:
                break
            if out_of_time:
                return False
        else:
            return False
        current, outcome = tried[step], outcomes[step]
        if outcome.ok:
            for leaf in model.leaves:
                if leaf.path in current and not same(current[leaf.path], typical(leaf)):
                    if current[leaf.path] is ABSENT and ABSENT not in leaf.pool:
                        leaf.pool.append(ABSENT)  # left out from now on, tried present too
                    elif not any(same(v, current[leaf.path]) for v in leaf.pool):
                        # A spelling the code told (`sex must be one of ['boy', 'girl']`),
                        # or a table's keys took ('m' for "male"): it and its siblings
                        # join the values the search tries.
                        siblings = told.get(leaf.path) or respelled_pool(
                            leaf.pool, typical(leaf), current[leaf.path]
                        )
                        kept = [*siblings, current[leaf.path]]
                        leaf.pool += [v for v in dict.fromkeys(kept) if v not in leaf.pool]
                    leaf.typical = index_of(leaf.pool, current[leaf.path])
            return True
        seen.add(error_kind(outcome.error, current))
    return False


def forward(
    moves: list[Move],
    tried: list[dict[InputPath, Any]],
    outcomes: list[Outcome],
    seen: set[str],
    policy: Policy | None = None,
) -> int | None:
    """The first move whose call returns, else the first that gets past the check it failed
    at: an error not seen before, speaking of none of the inputs it changed."""
    ok = next((i for i, o in enumerate(outcomes) if o.ok), None)
    if ok is not None:
        return ok
    for i, (move, ctx, o) in enumerate(zip(moves, tried, outcomes, strict=True)):
        if not walkable(o, ctx) or error_kind(o.error, ctx) in seen:
            continue
        if not any(spoken_of(leaf, ctx, o.error, policy) for leaf, _ in move):
            return i
    return None


def walkable(outcome: Outcome, ctx: dict[InputPath, Any]) -> bool:
    """Whether another value may get a failed call past where it failed."""
    if outcome.ok or outcome.needs:
        return False
    error = BUILDING.sub("", outcome.error)
    # A key missing from a record is learnt (missing_fields), not walked around; a key that
    # is a value tried is a table's lookup of it (`RATES[year][status]`: KeyError: 'married').
    missing = missing_key(error)
    tried = list(ctx.values())
    looked_up = missing is not None and any(same(k, v) for k in missing[0] for v in tried)
    return (missing is None or looked_up) and not error.startswith(HOPELESS)


def error_kind(error: str, ctx: dict[InputPath, Any]) -> str:
    """An error without the values it quotes: "height of 0.5 is implausible" with height and
    0.5 given and "weight of 10 is implausible" with weight and 10 fail the same check."""
    text = BUILDING.sub("", error)
    for value in ctx.values():
        if isinstance(value, str) and len(value.strip()) >= 2:
            text = re.sub(rf"\b{re.escape(value.strip())}\b", "<value>", text)
    return NUMBERS.sub("#", QUOTED.sub("'…'", text))


def message_of(error: str) -> str:
    """An error's message, without its type and the note that building the inputs raised."""
    return BUILDING.sub("", error).partition(":")[2]


def spoken_of(
    leaf: Leaf, ctx: dict[InputPath, Any], error: str, policy: Policy | None = None
) -> bool:
    """Whether an error's message names the input, by its words, a word of its category
    (with `policy`) or its value (`KeyError: ''` speaks of the empty text tried)."""
    message = message_of(error).casefold()
    words = [w for w in re.split(r"[^a-z0-9]+", leaf.name.casefold()) if len(w) > 2]
    if any(re.search(rf"\b{re.escape(w)}", message) for w in words):
        return True
    said = re.split(r"[^a-z0-9]+", message)
    if policy and leaf.category and leaf.category in map(policy.canonical_category, said):
        return True
    return any(
        re.search(rf"(?<![\w.]){re.escape(text.casefold())}(?!\w|\.\d)", message)
        for text in spellings(ctx.get(leaf.path))
    )


def spellings(value: Any) -> set[str]:
    """How a value reads in a message: 0.5 as "0.5", 10.0 as "10.0" and "10", "" as "''"."""
    if isinstance(value, bool) or value is None:
        return set()
    if is_number(value):
        return {str(value), f"{value:g}"} if isinstance(value, float) else {str(value)}
    if isinstance(value, str):
        return {text for text in (value.strip(), repr(value)) if len(text) >= 2}
    return set()


# A division by zero, in floats, ints or Decimals (`decimal.DivisionUndefined` is 0/0).
DIVISION_BY_ZERO = re.compile(
    r"^(ZeroDivisionError|InvalidOperation: \[<class 'decimal\.Division(ByZero|Undefined)'>\])"
)


def dropped_moves(leaves: list[Leaf], current: dict[InputPath, Any], error: str) -> list[Move]:
    """A key the error says the call it is unpacked into takes not (`got an unexpected
    keyword argument 'cashflows'`), left out of its record: a dispatcher reads some keys
    only when they are there (`if name == "xirr" and "cashflows" in args`) and hands the
    rest to one of its tools, each of which takes its own."""
    found = UNEXPECTED.search(BUILDING.sub("", error))
    if found is None:
        return []
    steps = {("key", found[1]), ("attr", found[1])}
    return [
        ((leaf, ABSENT),) for leaf in leaves
        if leaf.path[-1] in steps and current.get(leaf.path) is not ABSENT
    ]  # fmt: skip


def zeros_moved(leaves: list[Leaf], current: dict[InputPath, Any], error: str) -> list[Move]:
    """After a division by zero, every amount at zero moved at once to the first other
    number of its pool: a record of rates and maxima built at zero divides by several of
    them, and moving one at a time only meets the next (the same error, no step forward)."""
    if not DIVISION_BY_ZERO.match(BUILDING.sub("", error)):
        return []
    move = tuple(
        (leaf, other)
        for leaf in leaves
        if not leaf.protected
        and is_number(current.get(leaf.path))
        and not isinstance(current.get(leaf.path), bool)
        and current[leaf.path] == 0
        and (other := next((v for v in leaf.pool if is_number(v) and v > 0), None)) is not None
    )
    return [move] if len(move) > 1 else []


def told_moves(
    spoken: list[Leaf], current: dict[InputPath, Any], error: str, told: dict[InputPath, list[Any]]
) -> list[Move]:
    """The values an error's message offers (`one of ['boy', 'girl']`, `between 0 and 240`),
    each tried for the inputs it speaks of, when their pools lack it; kept in `told`."""
    message = message_of(error)
    quoted = [text[1:-1] for text in QUOTED.findall(message) if 0 < len(text) - 2 <= 40]
    quoted += unquoted_alternatives(QUOTED.sub(" ", message))
    numbers = [float(n) if "." in n or "e" in n else int(n) for n in NUMBERS.findall(message)]
    moves: list[Move] = []
    for leaf in spoken:
        numeric = bool(leaf.pool) and all(is_number(v) for v in leaf.pool if v is not None)
        offered = [v for v in (numbers if numeric else quoted) if v not in leaf.pool]
        offered = [v for v in dict.fromkeys(offered) if not same(v, current.get(leaf.path))]
        told.setdefault(leaf.path, []).extend(v for v in offered if v not in told[leaf.path])
        moves += [((leaf, value),) for value in offered[:MAX_TOLD]]
    return moves


# How a table may spell the text tried: in another case, or by its initial ('m' for "male").
RESPELLINGS: tuple[Callable[[str], str], ...] = (
    str.lower, str.upper, str.title, lambda text: text[:1].lower(), lambda text: text[:1].upper()
)


def respelled_moves(leaves: list[Leaf], current: dict[InputPath, Any], error: str) -> list[Move]:
    """A text tried that a table has no key for (`KeyError: 'male'`, a table keyed by "m"
    and "f"), tried in the other spellings a table keeps (RESPELLINGS)."""
    missing = missing_key(BUILDING.sub("", error))
    if missing is None or missing[1] != "key":
        return []
    moves: list[Move] = []
    for leaf in leaves:
        value = current.get(leaf.path)
        if not isinstance(value, str) or not value.strip() or value not in missing[0]:
            continue
        respelled = dict.fromkeys(respell(value) for respell in RESPELLINGS)
        moves += [((leaf, text),) for text in respelled if text != value and text not in leaf.pool]
    return moves


def respelled_pool(pool: list[Any], before: Any, after: Any) -> list[Any]:
    """The texts of `pool` respelled as `before` was into `after` ("female" as "f")."""
    if not (isinstance(before, str) and isinstance(after, str)):
        return []
    for respell in RESPELLINGS:
        if respell(before) == after:
            return list(dict.fromkeys(respell(v) for v in pool if isinstance(v, str) and v.strip()))
    return []


def unquoted_alternatives(message: str) -> list[str]:
    """The words a message offers as alternatives without quotes (`m or f`, `M/F`)."""
    return [
        word
        for found in ALTERNATIVES.findall(message)
        for word in re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+|/", found)
        if word
    ]


def single_moves(
    leaves: list[Leaf], spoken: list[Leaf], current: dict[InputPath, Any]
) -> list[Move]:
    """Every input changed to each other value of its pool, one at a time: first the inputs
    the error speaks of, then the others."""
    ordered = spoken + [leaf for leaf in leaves if leaf not in spoken]
    return [((leaf, value),) for leaf in ordered for value in others(leaf, current)]


def paired_moves(spoken: list[Leaf], current: dict[InputPath, Any]) -> list[Move]:
    """Two inputs the error speaks of changed together: a measurement within the range of
    another method (`LIMITS[method]`) passes only with both."""
    return [
        ((a, x), (b, y))
        for a, b in itertools.combinations(spoken, 2)
        for x in others(a, current)
        for y in others(b, current)
    ]


def others(leaf: Leaf, current: dict[InputPath, Any]) -> Iterable[Any]:
    return [v for v in leaf.pool if not same(v, current.get(leaf.path))]


def index_of(pool: list[Any], value: Any) -> int:
    return next(i for i, v in enumerate(pool) if same(v, value))


def run(model: InputModel, session: Session, contexts: list[dict[InputPath, Any]]) -> list[Outcome]:
    calls = []
    for ctx in contexts:
        args, kwargs = model.assemble(ctx)
        calls.append(Call(tuple(args), kwargs, 0))
    # By the session's wall clock (Session.run): the walk's outcomes, fewer when it is up.
    return session.run(calls, until=session.deadline - 1.0)
