"""The search for a witness of bias: one protected input varied, every other input fixed.

For each protected leaf, all of its values run in one context (k calls, not k*(k-1)/2
pairs). Contexts come in a fixed order (contexts.py): a base assignment; with collections,
the base with the fixed peers alike (every item takes the value tried: a rule over the
whole group); one-factor-at-a-time variations (each other input through its pool, the
inputs that guard branches and act with a protected one first, the peers' guarded inputs
too), pairs of guarded inputs, then seeded random combinations (for bias that shows only
with other inputs). Calls go in batches that double in size. When every base call failed,
the first context that worked becomes the base and the variations start again around it
(re-centring). Once the contexts run out and some attribute was proved, the others are
tried in pairs with the proved one's values (the pair phase, its own execution budget).
A leaf stops at its first confirmed witness; a witness is confirmed by running both sides
again, so nondeterministic output is never taken for bias. When some parts of an output do not
re-run stably (a clock beside a decision), the parts that do are compared on their own
(stability.py). A call that raises is a witness only as a refusal: a realistic value raised
while another realistic value returned, both again on a re-run (refusal.py).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from analysis.execution.harness.output import named_flag, whole
from analysis.execution.process import Call, Outcome, Session
from analysis.report import REFUSAL_PREFIX
from analysis.search.contexts import (
    MAX_PROTECTED_PAIRS,
    around,
    contexts,
    contrast,
    protected_pairs,
    typical,
)
from analysis.search.refusal import (
    about_another_input,
    another_form,
    is_realistic,
    listed_spelling,
    refusal_error,
    unborn,
    wrong_kind_given,
)
from analysis.search.results import SearchResult, Trial, Witness
from analysis.search.shifted import (
    aged_echo,
    banded_echo,
    moved_numbers,
    shifted_echo,
    swapped_echo,
)
from analysis.search.stability import stable_difference, varying_paths
from analysis.shapes import ALIKE, InputModel, InputPath, Leaf, encode_value
from analysis.values import value_kind
from config.policy import Category, Policy

CONFIRM_RUNS = 2
# More runs of each side when parts of the output vary: a part that looks stable over this
# many runs of an unseeded coin flip would be a 1-in-64 accident on each side.
STABLE_RUNS = 5
# Executions the pairs with another protected input may take in all: they are a last resort
# for interactions (a sex that matters only past an age), not a second search.
MAX_PAIR_EXECUTIONS = 1200
MAX_NOISY = 4  # contexts with unstable output before a leaf is given up as nondeterministic
# Values sent to the child in one batch at most (calls times the inputs of each): a function
# of a thousand protected record keys would otherwise build, send and decode millions of
# values before its first answer.
MAX_BATCH_VALUES = 200_000


@dataclass
class Batch:
    """The calls of one round: for each (leaf, context, context index) tried, its values;
    and a context whose leaves did not all fit, carried to the next round."""

    groups: list[tuple[Leaf, dict[InputPath, Any], int, list[Any]]] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    carried: list[tuple[int, dict[InputPath, Any], list[Leaf]]] = field(default_factory=list)
    drained: bool = False  # the contexts ran out before the batch was full


class Search:
    def __init__(
        self,
        model: InputModel,
        session: Session,
        targets: list[Leaf],
        max_executions: int,
        deadline: float,
        stream: Iterator[dict[InputPath, Any]] | None = None,
        policy: Policy | None = None,  # its `realistic:` values make refusals findings
        refusals_only: set[str] | None = None,  # categories only a refusal can prove
        scopes: dict[str, frozenset[int]] | None = None,  # static.condition_scopes
        acting: frozenset[str] = frozenset(),  # static.acting_with: varied first
        # Executions after which a search whose every call raised gives up, leaving the
        # rest of its budget to a walk to a base that runs (working_base).
        failing_limit: int | None = None,
        # Asked between batches: True ends the search, `interrupted` (the recording it ran
        # beside is over: the judgement is taken up with its calls, judging.py).
        stop: Callable[[], bool] | None = None,
    ) -> None:
        self.failing_limit = failing_limit
        self.stop = stop
        self.out_of_time = False  # the last batch was cut at the session's wall clock
        self.policy = policy
        self.scopes = scopes
        self.refusals_only = refusals_only or set()
        # Paths of output parts seen to vary between runs of the same call, per leaf.
        self.unstable: dict[str, frozenset[str]] = {}
        self.model = model
        self.session = session
        self.targets = targets
        self.max_executions = max_executions
        self.deadline = deadline
        self.result = SearchResult()
        self.noisy_counts: Counter[str] = Counter()
        self.acting = acting
        self.stream = stream if stream is not None else contexts(model, first=acting)
        # With our own contexts, a base on which every call fails is replaced by the first
        # context that works, and the variations start again around that one.
        self.may_recenter = stream is None
        self.may_pair = stream is None
        self.paired = False
        self.pairs_until = 0
        self.peer_masks = model.peer_masks()
        self.grouped = model.grouped
        self.echoes: dict[str, tuple[Any, ...]] = {}
        self.fixed_texts = {text for value in model.fixed for text in spellings(value)}

    def pairs_due(self) -> bool:
        """Whether pairs with another protected input are still to try: once, with our own
        contexts, and only after some attribute was proved (if a sex matters only past an
        age, the age itself matters, and was found first; a clean function skips them)."""
        return not self.paired and self.may_pair and bool(self.result.witnesses)

    def call(
        self, ctx: dict[InputPath, Any], leaf: Leaf, value: Any, seed: int, parts: bool = False
    ) -> Call:
        args, kwargs = self.model.assemble({**ctx, leaf.path: value})
        parts = parts or leaf.display in self.unstable
        masks = (encode_value(value), *self.peer_masks, *self.echo_words(leaf))
        if isinstance(value, bool):
            # A flag is masked only under its own name (`is_resident=True` in a record
            # returned): a bare True is every other flag's value too. Either value: under
            # its name it is this flag carried along, or a fixed peer's of the same name.
            masks += (named_flag(leaf.name, True), named_flag(leaf.name, False))
        return Call(tuple(args), kwargs, seed, masks, parts)

    def other_names(self, leaf: Leaf) -> tuple[str, ...]:
        """The names of the function's other inputs, which an error message may speak of."""
        return tuple(other.name for other in self.model.leaves if other.path != leaf.path)

    def echo_words(self, leaf: Leaf) -> tuple[Any, ...]:
        """The words the input takes, masked in every call: fixed text that names them
        ("Sex: Male = 0 points, Female = +1", "about m and so") reads the same whichever is
        tried, where masking only the value tried would make it differ. Numbers stay
        unmasked unless tried: a score of 30 is no echo of an age 30 not given."""
        key = leaf.display
        if key not in self.echoes:
            self.echoes[key] = tuple(
                encode_value(v) for v in leaf.pool if isinstance(v, str) and v.strip()
            )
        return self.echoes[key]

    def run(self) -> SearchResult:
        """Rounds of calls until every target leaf has a witness or is given up, or the budget
        is spent: each round a batch of (leaf, context) groups, twice as many as the last
        (up to 16 per leaf), run in one go. When the contexts run out and another attribute
        was proved, pairs of protected inputs come next; when every base call failed, the
        first context that worked becomes the base (re-centring)."""
        open_leaves = [leaf for leaf in self.targets if len(leaf.pool) > 1]
        seen: dict[str, set[str]] = {leaf.display: set() for leaf in open_leaves}
        batch_size = 2
        stream: Iterator[tuple[int, dict[InputPath, Any]]] = enumerate(self.stream)
        base_failed: bool | None = None
        # A context whose leaves did not all fit in the last batch, with the leaves left.
        carried: list[tuple[int, dict[InputPath, Any], list[Leaf]]] = []
        while open_leaves and not self.out_of_budget(open_leaves):
            room = self.room()
            batch_room = max(1, MAX_BATCH_VALUES // max(1, len(self.model.leaves)))
            todo = itertools.chain(carried, ((i, c, open_leaves) for i, c in stream))
            batch = self.fill(todo, open_leaves, seen, batch_size, room, batch_room)
            carried = batch.carried
            if batch.drained:
                stream = enumerate(iter(()))
                if not batch.calls and self.pairs_due():
                    stream = self.start_pairs(open_leaves)
                    continue
            if not batch.calls:
                break
            calls = batch.calls[:room]
            # A batch started before the deadline may run past it, but not past the
            # session's own wall clock, with time to confirm a witness it finds (both sides
            # run again): calls that would are not run (Session.run), and the search ends
            # with those that did.
            spare = 2 * CONFIRM_RUNS
            outcomes = self.session.run(calls, until=self.session.deadline - 1.0, spare=spare)
            self.result.executions += len(outcomes)
            self.out_of_time = len(outcomes) < len(calls)
            working, failed = self.read_batch(batch.groups, outcomes, open_leaves)
            if base_failed is None:
                base_failed = failed
            if base_failed and working is not None and self.may_recenter:
                self.may_recenter = False
                # The context that works is the base now: its whole pool for each input (a
                # refusal of one value shows only there), then the variations around it.
                variations = around(self.model, working, self.acting)
                around_it = enumerate(itertools.chain(variations, self.stream), 1)
                stream = itertools.chain([(0, working)], around_it)
            batch_size = min(batch_size * 2, 16)
        return self.result

    def out_of_budget(self, open_leaves: list[Leaf]) -> bool:
        """Whether the search must stop: its executions or time spent (the leaves still open
        then undecided), or the executions the pairs may take."""
        interrupted = self.stop is not None and self.stop()
        if interrupted or self.result.executions >= self.max_executions or (
            self.out_of_time or self.session.now() > self.deadline
        ):
            self.result.exhausted = True
            self.result.interrupted = interrupted
            self.result.undecided = {leaf.display for leaf in open_leaves}
            return True
        if self.failing_limit is not None and self.result.ok_calls == 0:
            if self.result.executions >= self.failing_limit:
                return True
        return self.paired and self.result.executions >= self.pairs_until

    def room(self) -> int:
        """Executions left to this search (to its pairs, once they started)."""
        limit = self.max_executions
        if self.paired:
            limit = min(limit, self.pairs_until)
        return limit - self.result.executions

    def fill(
        self,
        todo: Iterator[tuple[int, dict[InputPath, Any], list[Leaf]]],
        open_leaves: list[Leaf],
        seen: dict[str, set[str]],
        batch_size: int,
        room: int,
        batch_room: int,
    ) -> Batch:
        """The next batch: for each context in turn, each open leaf's values in it, until the
        batch holds enough groups or calls, or the time is up; `drained` when the contexts
        ran out first."""
        batch = Batch()
        for index, ctx, leaves in todo:
            for at, leaf in enumerate(leaves):
                if len(batch.calls) >= batch_room:  # the rest of this context goes next
                    rest = [other for other in leaves[at:] if other in open_leaves]
                    batch.carried = [(index, ctx, rest)] if rest else []
                    break
                values = self.values_to_try(leaf, ctx, index, seen[leaf.display])
                if values is None:
                    continue
                batch.groups.append((leaf, ctx, index, values))
                batch.calls += [self.call(ctx, leaf, v, index) for v in values]
            if (
                batch.carried
                or len(batch.groups) >= batch_size * len(open_leaves)
                or len(batch.calls) >= min(room, batch_room)
                or self.session.now() > self.deadline
            ):
                return batch
        batch.drained = True
        return batch

    def values_to_try(
        self, leaf: Leaf, ctx: dict[InputPath, Any], index: int, seen: set[str]
    ) -> list[Any] | None:
        """The values of `leaf` to call in `ctx`: its whole pool in a base, else its contrast
        or focus values; None when a context that differs only in the leaf's own value (and,
        for a leaf without peers, in whether peers are alike) was tried: the same test."""
        skip = {leaf.path} if leaf.path in self.grouped else {leaf.path, ALIKE}
        key = repr(sorted((repr(p), repr(v)) for p, v in ctx.items() if p not in skip))
        key = f"{index == 0}{key}"  # a base runs the whole pool, again if need be
        if key in seen:
            return None
        seen.add(key)
        return list(leaf.pool if index == 0 else contrast(leaf) if self.paired else leaf.focus)

    def start_pairs(self, open_leaves: list[Leaf]) -> Iterator[tuple[int, dict[InputPath, Any]]]:
        """Another attribute was proved: one that matters only together with it (a sex only
        past an age) shows in pairs with its values. The contexts of those pairs."""
        self.paired = True
        self.pairs_until = self.result.executions + MAX_PAIR_EXECUTIONS
        base = {leaf.path: typical(leaf) for leaf in self.model.leaves}
        proved = set(self.result.witnesses)
        pairs = protected_pairs(self.model, base, proved, open_leaves, self.scopes)
        return enumerate(itertools.islice(pairs, MAX_PROTECTED_PAIRS), 1)

    def read_batch(
        self,
        groups: list[tuple[Leaf, dict[InputPath, Any], int, list[Any]]],
        outcomes: list[Outcome],
        open_leaves: list[Leaf],
    ) -> tuple[dict[InputPath, Any] | None, bool | None]:
        """Each group's outcomes examined; a leaf with a witness, or too noisy, is closed.
        Returns the first context with a value that returned (in the base, the input varied
        may be the one that made every other call fail: a region the tables lack), and
        whether the first base in the batch failed in every call (None: no base in it)."""
        position = 0
        working: dict[InputPath, Any] | None = None
        base_failed: bool | None = None
        for leaf, ctx, index, values in groups:
            chunk = outcomes[position : position + len(values)]
            position += len(values)
            if working is None:
                fine = [v for v, o in zip(values, chunk, strict=False) if o.ok]
                if fine:
                    working = {**ctx, leaf.path: fine[0]}
            if index == 0 and base_failed is None:
                base_failed = not any(o.ok for o in chunk)
            if leaf not in open_leaves or len(chunk) < 2:
                continue  # a group cut short by the time (Session.run) is read as far as it ran
            if self.examine(leaf, ctx, index, values[: len(chunk)], chunk):
                open_leaves.remove(leaf)
            elif self.noisy_counts[leaf.display] >= MAX_NOISY:
                self.result.noisy.add(leaf.display)
                open_leaves.remove(leaf)
        return working, base_failed

    def examine(
        self,
        leaf: Leaf,
        ctx: dict[InputPath, Any],
        index: int,
        values: list[Any],
        outs: list[Outcome],
        again: bool = True,
    ) -> bool:
        ok = [Trial(v, o) for v, o in zip(values, outs, strict=True) if o.ok]
        self.result.ok_calls += len(ok)
        # A missing value (None, "unknown") is no value of the attribute: "age unknown" next
        # to "age 30" tells nothing of how people are treated.
        ok = [t for t in ok if not absent(t.value)]
        self.note_errors(leaf, outs)
        if leaf.category in self.refusals_only:
            # Its output is the attribute in another form: only a refusal is a finding, and
            # one shows in the first context where any value returns, or nowhere.
            return self.refusal(leaf, ctx, index, values, outs) or any(o.ok for o in outs)
        clash = self.clashing(leaf, ctx, values)
        unstable = self.unstable.get(leaf.display, frozenset())
        for a, b in candidate_pairs(ok, unstable):
            if clash:
                texts = [*a.outcome.texts, *b.outcome.texts]
                if ambiguous(a.value, clash, texts) or ambiguous(b.value, clash, texts):
                    continue
            verdict = self.confirm(leaf, ctx, index, a, b)
            if verdict is True:
                return True
            if verdict is None:
                self.noisy_counts[leaf.display] += 1
                if again and self.unstable.get(leaf.display, frozenset()) != unstable:
                    # Which parts vary is known now: this context again, part by part (with a
                    # single protected input there may be no other context to try).
                    calls = [self.call(ctx, leaf, v, index, parts=True) for v in values]
                    outs = self.session.run(calls)
                    self.result.executions += len(calls)
                    return self.examine(leaf, ctx, index, values, outs, again=False)
                return False
        return self.refusal(leaf, ctx, index, values, outs)

    def note_errors(self, leaf: Leaf, outs: list[Outcome]) -> None:
        """The errors of the calls that raised, by kind, and the modules they needed."""
        for o in outs:
            if not o.ok:
                kind = o.error.split(":")[0]
                self.result.errors[kind] += 1
                self.result.error_messages.setdefault(kind, o.error)
                self.result.needs.update(o.needs)
                if o.needs:
                    self.result.needing.add(leaf.display)

    def clashing(self, leaf: Leaf, ctx: dict[InputPath, Any], values: list[Any]) -> set[str]:
        """Spellings of the values that read like another input's in this context (or a
        value the recorded call holds that no leaf sets: `model.fixed`), but for
        the words the input takes, which are masked in every call (echo_words): another
        input's "white" beside a race tried as "white" reads the same in both outputs."""
        masked = {str(w).strip().casefold() for w in self.echo_words(leaf)}
        fixed = {s for v in values for s in spellings(v) if s in self.fixed_texts}
        clash = colliding(leaf, ctx, values) | fixed
        return {s for s in clash if s.strip().casefold() not in masked}

    def runs(
        self, ctx: dict[InputPath, Any], leaf: Leaf, index: int, a: Any, b: Any, times: int
    ) -> tuple[list[Outcome], list[Outcome]]:
        """Both sides again, `times` each, with their outputs part by part."""
        calls = []
        for _ in range(times):
            calls += [
                self.call(ctx, leaf, a, index, parts=True),
                self.call(ctx, leaf, b, index, parts=True),
            ]
        outs = self.session.run(calls)
        self.result.executions += len(calls)
        return outs[0::2], outs[1::2]

    def confirm(
        self, leaf: Leaf, ctx: dict[InputPath, Any], index: int, a: Trial, b: Trial
    ) -> bool | None:
        """Run both sides again: True if the difference is stable, None if output is unstable."""
        again_a, again_b = self.runs(ctx, leaf, index, a.value, b.value, CONFIRM_RUNS)
        if not all(o.ok for o in again_a + again_b):
            return None
        if all(o.same(a.outcome) for o in again_a) and all(o.same(b.outcome) for o in again_b):
            self.result.witnesses[leaf.display] = Witness(
                leaf, ctx, (a.value, b.value), (a.outcome.shown(), b.outcome.shown())
            )
            return True
        # Some part varies between runs with the same seed: learn which, with more runs,
        # and compare the parts that stay put.
        more_a, more_b = self.runs(ctx, leaf, index, a.value, b.value, STABLE_RUNS)
        if not all(o.ok for o in more_a + more_b):
            return None
        side_a, side_b = [*again_a, *more_a], [*again_b, *more_b]
        unstable = varying_paths(side_a) | varying_paths(side_b)
        self.unstable[leaf.display] = self.unstable.get(leaf.display, frozenset()) | unstable
        found = stable_difference(side_a, side_b, self.unstable[leaf.display])
        if found is None:
            return None
        self.result.witnesses[leaf.display] = Witness(leaf, ctx, (a.value, b.value), found)
        return True

    def refusal(
        self,
        leaf: Leaf,
        ctx: dict[InputPath, Any],
        index: int,
        values: list[Any],
        outs: list[Outcome],
    ) -> bool:
        """A realistic value that raised beside one that returned, both so again on a re-run."""
        spec = self.policy.protected.get(leaf.category or "") if self.policy else None
        if spec is None or leaf.category is None or not spec.realistic:
            return False
        category = leaf.category
        fine = [
            (v, o)
            for v, o in zip(values, outs, strict=True)
            if o.ok and realistic_value(leaf, category, spec, v)
        ]
        refused = self.refused(leaf, category, spec, ctx, fine, values, outs)
        if not fine or not refused:
            return False
        return self.confirm_refusal(leaf, ctx, index, fine, refused)

    def refused(
        self,
        leaf: Leaf,
        category: str,
        spec: Category,
        ctx: dict[InputPath, Any],
        fine: list[tuple[Any, Outcome]],
        values: list[Any],
        outs: list[Outcome],
    ) -> list[tuple[Any, Outcome]]:
        """The realistic values refused beside `fine`, those that returned: of a kind that
        returned, in a spelling that returned none (or the policy's), the error not about
        another input."""
        kinds = {value_kind(v) for v, _ in fine}
        # Raising for "Male" while "male" returns asks for a spelling: that is validation,
        # unless the value raised is spelt as the policy lists it.
        spelt = {str(v).casefold() for v, _ in fine}
        others = [v for path, v in ctx.items() if path not in (leaf.path, ALIKE)]
        return [
            (v, o)
            for v, o in zip(values, outs, strict=True)
            if refusal_error(o)
            and realistic_value(leaf, category, spec, v)
            and value_kind(v) in kinds  # text refused where numbers are taken: validation
            and (str(v).casefold() not in spelt or listed_spelling(v, spec))
            and not about_another_input(o.error, v, others, self.other_names(leaf), leaf.name)
            and not wrong_kind_given(o.error, others)
            and not (category == "age" and unborn(v, [f for f, _ in fine], others))
            and not (category == "age" and another_form(v, [f for f, _ in fine]))
        ]

    def confirm_refusal(
        self,
        leaf: Leaf,
        ctx: dict[InputPath, Any],
        index: int,
        fine: list[tuple[Any, Outcome]],
        refused: list[tuple[Any, Outcome]],
    ) -> bool:
        """The clearest pair (the base value if it returned; a different value rather than
        another spelling), run again: a witness if both sides do as before."""
        base = typical(leaf)
        # One kind on both sides: a number for a number, a word for a word.
        kind = value_kind(refused[0][0])
        fine = [(v, o) for v, o in fine if value_kind(v) == kind]
        refused = [(v, o) for v, o in refused if value_kind(v) == kind]
        good, good_out = next(((v, o) for v, o in fine if v == base), fine[0])
        # A different value reads better than a different spelling of the same one.
        bad, bad_out = sorted(refused, key=lambda p: str(p[0]).lower() == str(good).lower())[0]
        error = refusal_error(bad_out)
        again_good, again_bad = self.runs(ctx, leaf, index, good, bad, CONFIRM_RUNS)
        if not all(o.ok for o in again_good) or any(refusal_error(o) != error for o in again_bad):
            return False
        self.result.witnesses[leaf.display] = Witness(
            leaf,
            ctx,
            (good, bad),
            (good_out.shown(), f"{REFUSAL_PREFIX}{bad_out.error}"),
            "refuses",
        )
        return True


def realistic_value(leaf: Leaf, category: str, spec: Category, value: Any) -> bool:
    """Whether a value is one a person of the category could give, in the terms of the
    leaf's signature when it declares them (`sex: Literal["male", "female"]`)."""
    if leaf.declared and value not in leaf.declared:
        return False
    return is_realistic(value, category, spec, leaf.pool)


def colliding(leaf: Leaf, ctx: dict[InputPath, Any], values: list[Any]) -> set[str]:
    """Spellings of the values that read like another input's value in this context.

    An output that shows such a spelling cannot tell an echo of the protected value from an
    echo of the other input (zip "10" beside a rent of 10.0, printed "10"), so a difference
    there is no proof. Equal values still run: `user.race == candidate.race` needs them.
    """
    others = [v for p, v in ctx.items() if p != leaf.path and not isinstance(v, bool)]
    texts = {text for o in others for text in spellings(o)}
    return {text for v in values for text in spellings(v) if text in texts}


def ambiguous(value: Any, clash: set[str], outputs: list[str]) -> bool:
    """Whether an output shows a spelling of `value` that another input shares, as a whole
    word or number, as masking reads it (the 1 of "11" or of "-1" is no echo of 1)."""
    return any(
        s in clash and any(re.search(whole(s, True), out) for out in outputs)
        for s in spellings(value)
    )


def spellings(value: Any) -> set[str]:
    """How a value may read in output: 10.0 as "10.0", "10" and "10.00"."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, (int, float)):
        try:
            out = {str(value), f"{value:g}", f"{value:.2f}"}
            if float(value).is_integer():
                out.add(str(int(value)))
        except OverflowError:  # an int no float holds (a recorded 10**30): its digits
            return {str(value)}
        return out
    if isinstance(value, str):
        return {value}
    if isinstance(value, (list, tuple)):  # a list of skinfolds holds numbers an age may be
        return {text for item in value for text in spellings(item)}
    return set()


# How data says "not given" (compared casefolded, stripped).
ABSENT_WORDS = frozenset(
    {"", "unknown", "n/a", "na", "none", "null", "nan", "unspecified", "not specified",
     "not stated", "missing", "not known", "undisclosed"}
)  # fmt: skip


def absent(value: Any) -> bool:
    """Whether a value stands for a missing one rather than a value of the attribute."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, str) and value.strip().casefold() in ABSENT_WORDS


def candidate_pairs(
    ok: list[Trial], unstable: frozenset[str] = frozenset()
) -> Iterator[tuple[Trial, Trial]]:
    """Pairs of values of one kind with different outputs (values.value_kind: a number is
    never swapped for text), clearest first: numeric neighbours, then any.

    Parts of outputs known to vary between runs (`unstable`) are left out of the comparison.
    """
    kinds: dict[str, list[Trial]] = {}
    for trial in ok:
        kinds.setdefault(value_kind(trial.value), []).append(trial)
    for alike in kinds.values():
        yield from pairs_of_a_kind(alike, unstable)


def pairs_of_a_kind(ok: list[Trial], unstable: frozenset[str]) -> Iterator[tuple[Trial, Trial]]:
    if len(ok) < 2:
        return

    def differ(x: Trial, y: Trial) -> bool:
        if x.outcome.same_except(y.outcome, unstable):
            return False
        va, vb = x.outcome.value, y.outcome.value
        return not (
            shifted_echo(x.value, y.value, va, vb)
            or aged_echo(x.value, y.value, va, vb)
            or banded_echo(x.value, y.value, va, vb)
            or swapped_echo(x.value, y.value, va, vb)
            or swapped_echo(y.value, x.value, vb, va)
        )

    numeric = [t for t in ok if isinstance(t.value, (int, float)) and not isinstance(t.value, bool)]
    if moved_numbers([t.value for t in ok], [t.outcome.value for t in ok]):
        return  # the number carried forward, whichever it is
    if len(numeric) == len(ok):
        ordered = sorted(ok, key=lambda t: t.value)
        adjacent = [(x, y) for x, y in zip(ordered, ordered[1:], strict=False) if differ(x, y)]
        adjacent.sort(key=lambda pair: abs(pair[1].value - pair[0].value))
        yield from adjacent[:3]
        return
    first = ok[0]
    yielded = 0
    # A different value reads better than a different spelling of the same one.
    others = sorted(ok[1:], key=lambda t: str(t.value).lower() == str(first.value).lower())
    for other in others:
        if differ(first, other):
            yield first, other
            yielded += 1
            if yielded >= 3:
                return
    if yielded == 0:
        for x, y in zip(ok, ok[1:], strict=False):
            if differ(x, y):
                yield x, y
                return
