"""Recorded calls as the first bases of the search: one protected leaf flipped inside a call
the project's own tests or demos made, everything else as they made it.

Each recorded call becomes an InputModel (bases.py) whose base context is the call as
recorded (`{}`), then the same call with one value of another input moved (a flag flipped,
an enum's other member, an income doubled, a premium at the code's threshold); the existing
Search runs every value of each leaf in the base and its focus values in the others, so its
rules hold unchanged: a difference is re-run before it counts, echoes of the value are
masked, a call that raises is a witness only as a refusal of a realistic value. An attribute
proved by one recorded call is not tried in the next. What the synthesised search then tries
is what no recorded call proved.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from analysis.errors import ReplyForged, SessionDied
from analysis.evidence.bases import known_categories, recorded_model
from analysis.evidence.calls import RecordedCall
from analysis.execution.process import Session
from analysis.inputs.builder import InputBuilder
from analysis.report import Example, Finding
from analysis.search.results import SearchResult, Witness
from analysis.search.search import Search
from analysis.shapes import InputModel, InputPath, Leaf, plain_value
from analysis.source.functions import FunctionInfo
from analysis.static.review import first_reach
from config.policy import Policy

# Calls spent on the recorded calls of one function, at most: they are the bases most worth
# trying, not a second search (each runs every value of each leaf once, in one context).
RECORDED_EXECUTIONS = 600
# And their time, as a share of the function's `seconds_per_function`, which the search over
# made-up inputs then gets whole, as it would without them.
RECORDED_TIME = 0.5


@dataclass
class Replayed:
    findings: list[Finding] = field(default_factory=list)
    result: SearchResult = field(default_factory=SearchResult)  # calls made, errors seen
    attributes: set[str] = field(default_factory=set)  # categories found in the calls
    proved: set[str] = field(default_factory=set)  # categories with a witness
    died: str | None = None  # the session died: why


def recorded_bases(
    info: FunctionInfo,
    calls: list[RecordedCall],
    builder: InputBuilder,
    model: InputModel,
    policy: Policy,
) -> list[tuple[RecordedCall, InputModel]]:
    """The recorded calls of `info` with a protected value inside, each as its InputModel
    (`model`: the synthesised one, whose values from the code the leaves of the same name
    also try). Read from the descriptions alone: no session is needed to know."""
    code_values = {
        leaf.name: leaf.pool[: leaf.from_code] for leaf in model.leaves if leaf.from_code
    }
    known = known_categories(model)
    bases = [
        (call, recorded_model(call, info, builder, policy, code_values, known)) for call in calls
    ]
    return [(call, base) for call, base in bases if base.protected]


def replay(
    info: FunctionInfo,
    bases: list[tuple[RecordedCall, InputModel]],
    session: Session,
    policy: Policy,
    max_executions: int,
    deadline: float,
    refusals_only: set[str],
) -> Replayed:
    """Search each recorded call of `info` in turn as recorded, then each again with another
    input's value moved: every call as the project made it comes before any variation."""
    out = Replayed()
    for contexts in (as_recorded, moved):
        for call, recorded in bases:
            found = {leaf.category for leaf in recorded.protected if leaf.category}
            out.attributes |= found
            targets = [leaf for leaf in recorded.protected if leaf.category not in out.proved]
            room = max_executions - out.result.executions
            if not targets or room <= 0 or session.now() > deadline:
                continue
            if contexts is moved and not recorded.others:
                continue  # nothing to move: the call as recorded was searched, pairs and all
            search = Search(
                recorded,
                session,
                targets,
                room,
                deadline,
                stream=contexts(recorded),
                policy=policy,
                refusals_only=refusals_only,
            )
            try:
                result = search.run()
            except ReplyForged:
                raise  # the harness's replies cannot be trusted: judged as main judges it
            except SessionDied as exc:
                result, out.died = search.result, str(exc)
            merge(out.result, result)
            # One person changed against peers as recorded reads better than all at once.
            witnesses = sorted(result.witnesses.values(), key=lambda w: every(w.leaf))
            for witness in witnesses:
                if witness.leaf.category in out.proved:
                    continue
                out.findings.append(finding(info, recorded, call, witness))
                out.proved.add(witness.leaf.category or "")
            if out.died:
                return out
    return out


def as_recorded(model: InputModel) -> Iterator[dict[InputPath, Any]]:
    """The call as recorded: the base."""
    yield {}


def moved(model: InputModel) -> Iterator[dict[InputPath, Any]]:
    """The call with one value of another input moved (bases.other_settings): a bias past
    a threshold the test's values did not reach, or behind a flag they left off."""
    for leaf in model.others:
        for value in leaf.pool[1:]:
            yield {leaf.path: value}


def finding(info: FunctionInfo, model: InputModel, call: RecordedCall, witness: Witness) -> Finding:
    """The witness as a finding: the recorded inputs, shortened, with the first value."""
    leaf = witness.leaf
    assert leaf.category is not None
    inputs = model.plain({**witness.context, leaf.path: witness.values[0]})
    reach = first_reach(info.node, as_read(leaf))
    return Finding(
        attribute=leaf.category,
        parameter=leaf.display,
        example=Example(
            inputs,
            [plain_value(v) for v in witness.values],
            list(witness.outputs),
            source=call.source or None,
        ),
        line=reach.line if reach else info.line,
        kind=witness.kind,
    )


def every(leaf: Leaf) -> bool:
    """Whether the leaf sets every row or item (`df['sex'][*]`) rather than one."""
    return any(value == "*" for _, value in leaf.path)


def as_read(leaf: Leaf) -> Leaf:
    """The leaf as the code reads it: `df['sex']`, for the rows of the column set."""
    path = tuple(step for step in leaf.path if step[0] != "rows")
    return replace(leaf, path=path)


def merge(into: SearchResult, result: SearchResult) -> None:
    into.executions += result.executions
    into.ok_calls += result.ok_calls
    into.errors.update(result.errors)
    for kind, message in result.error_messages.items():
        into.error_messages.setdefault(kind, message)
    into.needs.update(result.needs)
    into.noisy |= result.noisy
