"""One function judged: its inputs read, the calls its project's own runs made replayed,
the fields its source does not name learnt, a witness searched for and the verdict recorded;
or, where it cannot run, a static review that says why.

`Judgement.judge` goes through those phases in order; each phase either hands on to the
next or writes the verdict and stops (returns False or None).

A function whose calls are being recorded is judged in two steps (analysis/engine.py):
first from made-up inputs alone, beside the recording (`evidence=False`); then, once the
recording is over, `judge_again` takes that judgement up with the calls it brought, only when
they can tell more than the first verdict did (`tells_more`): the recorded calls are replayed
(a counterexample from the project's own call reads better than a made-up one, which it
replaces), the values borrowed from the project's runs are searched if nothing was proved, and
the made-up inputs are not searched twice.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Protocol

from analysis.errors import (
    CallsProveNothing,
    ExecutionError,
    LoadDied,
    ReplyForged,
    SandboxUnavailable,
    SessionDied,
)
from analysis.evidence.bases import borrowed_model, lend_values, shown_values
from analysis.evidence.calls import RecordedCall
from analysis.evidence.replay import (
    RECORDED_EXECUTIONS,
    RECORDED_TIME,
    Replayed,
    merge,
    recorded_bases,
    replay,
)
from analysis.evidence.store import EvidenceStore
from analysis.execution.process import Executor, Limits, Session, Target
from analysis.facts.conversions import converts
from analysis.facts.people import only_people
from analysis.inputs.builder import InputBuilder
from analysis.inputs.loaded_tables import seed_table_keys, tables_looked_up
from analysis.modules import Module, is_test
from analysis.report import FunctionReport
from analysis.search.missing_fields import has_opaque_record, learn_missing_fields
from analysis.search.nesting import nest_leaves
from analysis.search.results import SearchResult
from analysis.search.search import Search
from analysis.search.verdict import (
    died,
    record_result,
    static_review,
    stopped,
    tampered,
    told_by_values,
)
from analysis.search.working_base import find_working_base
from analysis.shapes import InputModel, Leaf
from analysis.source.functions import FunctionInfo
from analysis.static.review import acting_with, condition_scopes, never_read
from analysis.static.taint import tainters
from config.policy import Policy


class Bench(Protocol):
    """What judging a function needs of the engine (`Engine` is one)."""

    policy: Policy
    limits: Limits
    evidence: EvidenceStore

    def executor(self) -> Executor: ...

    def target(
        self,
        info: FunctionInfo,
        module: Module,
        source: str | None = None,
        recorded: tuple[str, ...] = (),
    ) -> Target: ...

    def recording(self, module: Module, info: FunctionInfo) -> bool: ...


class Judgement:
    """The judging of one function, its verdict written into `report`."""

    def __init__(
        self,
        bench: Bench,
        module: Module,
        info: FunctionInfo,
        report: FunctionReport,
        evidence: bool = True,
    ) -> None:
        """`evidence`: whether to read the calls the project's own runs made (waiting for
        their recording); without, the function is judged from made-up inputs alone."""
        self.bench = bench
        self.policy = bench.policy
        self.budget = bench.policy.budget
        self.module = module
        self.info = info
        self.report = report
        # Set as the phases go: the inputs read, the protected leaves left to search.
        self.builder = InputBuilder(module.facts, self.policy)
        self.model = InputModel([], [])
        self.protected: list[Leaf] = []
        self.targets: list[Leaf] = []
        self.opaque = False
        self.recorded: list[tuple[RecordedCall, InputModel]] = []
        # Values the project's runs passed other functions, taken for this one's parameters
        # (evidence/bases.py borrowed_model): searched when every made-up call raises.
        self.borrowed: InputModel | None = None
        self.borrowed_calls: tuple[str, ...] = ()
        self.evidence = evidence
        self.lent = False  # values the project's runs passed other functions are in the pools
        # The search's result, once recorded: judge_again takes it up rather than search twice.
        self.result: SearchResult | None = None
        self.tested: set[str] = set()
        self.reading = 0.0  # seconds spent reading the function, counted against its budget
        self.deadline = 0.0

    def judge(self, before: FunctionReport | None = None) -> bool:
        """The verdict of the function, written into its report. `before`: its verdict from
        made-up inputs alone; False, and nothing written, when its calls tell no more."""
        if is_test(self.module.path, self.info):
            # A test passes the values it checks (a parametrised `age` and an assert): it
            # decides nothing about a person, and its failures are no refusals.
            self.report.status, self.report.reason = "skipped", "a test function"
            return True
        self.read_inputs()
        if before is not None and not self.tells_more(before):
            return False
        if not self.worth_running():
            return True
        session = self.open_session()
        if session is None:
            return True
        with session:
            self.finish(self.run(session, self.refusals_only()))
        return True

    def judge_again(self) -> bool:
        """Once the recording is over, this judgement (from made-up inputs alone) taken up
        with the calls it brought, its verdict written into a new report; False when they
        tell no more (`report` stays the first verdict). Judged afresh when it cannot be
        taken up: it searched nothing, its search was cut short when the recording ended,
        the project's values changed its pools or became its model, or every made-up call
        raised where recorded calls are to be replayed."""
        before, model = self.report, self.model
        if self.result is None:
            return self.afresh(before)
        if self.result.interrupted:  # cut short when the recording ended: no verdict yet
            return self.afresh(before, whole=True)
        self.evidence = True  # the calls read, and searches no longer cut at the recording's end
        self.read_calls()
        if self.lent or self.model is not model:  # borrowed, the model itself: not searched
            return self.afresh(before)
        if self.result.never_ran and self.recorded:
            # Replayed, the project's calls set what its runs set (an environment variable
            # the module checks): made-up calls that all raised may run after them.
            return self.afresh(before)
        if self.result.never_ran and self.bench.evidence.environ(self.module.project):
            # Made-up calls that all raised may run in the environment the project's run
            # set, though it never called this function.
            return self.afresh(before, whole=True)
        if not self.tells_more(before):
            return False
        self.report = fresh(before)
        self.report.attributes_tested = list(before.attributes_tested)
        self.tested = set(before.attributes_tested)
        self.deadline = time.monotonic() + self.budget.seconds_per_function
        session = self.open_session()
        if session is None:
            self.report = before  # the sandbox failed this time: the first verdict stands
            return False
        with session:
            self.finish(self.resume(session, self.refusals_only()))
        return True

    def afresh(self, before: FunctionReport, whole: bool = False) -> bool:
        """judge_again by a new judgement with the calls (see there); `whole`: whatever
        they tell, the first verdict being none."""
        again = Judgement(self.bench, self.module, self.info, fresh(before))
        if not again.judge(None if whole else before):
            return False
        self.report = again.report
        return True

    def refusals_only(self) -> set[str]:
        """`canonical_sex(sex)`: a different sex out is its job; refusing one is not."""
        return {
            category
            for category in self.policy.enabled_categories
            if converts(self.info, category, self.policy, self.module.facts.const)
        }

    def finish(self, result: SearchResult | None) -> None:
        """The verdict from the search's `result` (None: written already)."""
        if result is not None:
            self.result = result
            self.record(result)
        told_by_values(self.report, self.policy)

    def tells_more(self, before: FunctionReport) -> bool:
        """Whether the project's calls (read by read_calls) can change `before`, the
        verdict from made-up inputs alone: calls of the function holding a person (their
        counterexamples, their categories); or values lent to the pools or borrowed, while
        some category is not proved yet. Without them, the judgement would be `before`'s."""
        if self.recorded:
            return True
        if not (self.lent or self.borrowed_calls):
            return False
        tested = set(before.attributes_tested) | set(self.report.attributes_tested)
        if not tested:  # a record no rule sees into, searched again with the values lent
            return self.opaque
        return not tested <= proved(before)

    def record(self, result: SearchResult) -> None:
        """The verdict from what the calls found."""
        module = self.module
        record_result(self.info, self.model, self.report, result, module.runnable, module.note)

    def read_inputs(self) -> None:
        """The function's inputs, the protected ones, and the calls the project's own runs
        made of it (analysis/evidence/)."""
        # The budget counts from here: reading the function's inputs is part of testing it.
        # A function whose reading alone takes the budget (thousands of record keys) is
        # judged from its code; starting it in its sandbox counts only against the search.
        started = time.monotonic()
        self.deadline = started + self.budget.seconds_per_function
        self.model = self.builder.build(self.info)
        self.reading = time.monotonic() - started
        self.protected = self.model.protected
        categories = {leaf.category for leaf in self.protected if leaf.category}
        self.report.attributes_tested = sorted(categories)
        # A record read only by keys the source does not spell out may still hold a person,
        # and so may the calls the project's own tests and demos made (analysis/evidence/).
        self.opaque = not self.protected and has_opaque_record(self.model)
        if self.evidence:
            self.read_calls()

    def read_calls(self) -> None:
        """The calls the project's own runs made of the function (waiting for their
        recording), or, without any, the values they passed others."""
        module = self.module
        if self.bench.recording(module, self.info):
            self.bench.evidence.wait()
        calls = self.bench.evidence.calls(module.project, module.location, self.info)
        self.told_by_runs(calls)
        self.recorded = recorded_bases(self.info, calls, self.builder, self.model, self.policy)
        if not calls:
            self.borrow()

    def told_by_runs(self, calls: list[RecordedCall]) -> None:
        """The model built again with the texts the recorded calls passed, when they tell the
        category of a parameter its name and code leave open (`s` given "M" and "F")."""
        open_names = {leaf.name for leaf in self.model.leaves if leaf.category is None}
        shown = {name: texts for name, texts in shown_values(calls).items() if name in open_names}
        if not shown:  # nothing left open that a text could tell: no second build
            return
        model = self.builder.build(self.info, shown)
        if len(model.protected) <= len(self.protected):
            return
        self.model, self.protected, self.opaque = model, model.protected, False
        categories = {leaf.category for leaf in self.protected if leaf.category}
        self.report.attributes_tested = sorted(categories)

    def borrow(self) -> None:
        """The values the project's runs passed other functions by this one's parameter
        names: the model itself when only they hold a person (a method of an instance a
        fixture set up), else the model searched once every made-up call has raised."""
        project_calls = self.bench.evidence.project_calls(self.module.project)
        self.lent = lend_values(self.model, project_calls)
        found = borrowed_model(self.info, self.model, project_calls, self.builder, self.policy)
        if found is None or not found[0].protected:
            return
        model, self.borrowed_calls = found
        if self.protected:
            self.borrowed = model
            return
        self.model, self.protected, self.opaque = model, model.protected, False
        categories = {leaf.category for leaf in self.protected if leaf.category}
        self.report.attributes_tested = sorted(categories)

    def worth_running(self) -> bool:
        """Whether running the function can tell anything; if not, the verdict says why."""
        info, model, report = self.info, self.model, self.report
        if not self.protected and not self.opaque and not self.recorded:
            report.status, report.reason = "skipped", "no protected input"
            return False
        if not self.module.intact(info):
            if not self.protected:
                report.status, report.reason = "skipped", "no protected input"
                return False
            static_review(info, model, report, self.module.note or "the module cannot run")
            return False
        self.targets = [leaf for leaf in self.protected if not never_read(info.node, leaf)]
        if not self.targets and not self.opaque and not self.recorded:
            report.reason = "no protected input is ever read"
            return False
        if self.reading > self.budget.seconds_per_function:
            static_review(info, model, report, spent_reading(self.budget.seconds_per_function))
            return False
        return True

    def open_session(self) -> Session | None:
        """The function's sandbox, its module loaded; None (the verdict written) if it
        cannot start."""
        info, model, report = self.info, self.model, self.report
        try:
            executor = self.bench.executor()
        except SandboxUnavailable as exc:
            static_review(info, model, report, f"not executed: {exc}")
            return None
        replaying = tuple(call.id for call, _ in self.recorded) + self.borrowed_calls
        # evidence: the recorded calls get a time of their own, on top of the search's
        extra = self.budget.seconds_per_function * RECORDED_TIME if self.recorded else 0.0
        limits = self.bench.limits
        limits = replace(limits, session_timeout=limits.session_timeout + extra)
        try:
            target = self.bench.target(info, self.module, recorded=replaying)
            tables = tables_looked_up(self.model.leaves, self.module.facts.hints)
            return executor.open(replace(target, tables=tables), limits)
        except ReplyForged as exc:
            static_review(info, model, report, tampered(exc))
        except LoadDied as exc:  # the module killed its sandbox: an error, as a call can
            died(info, model, report, str(exc), executions=0)
        except (OSError, ExecutionError) as exc:
            static_review(info, model, report, f"could not start the function: {exc}")
        return None

    def run(self, session: Session, refusals_only: set[str]) -> SearchResult | None:
        """Inside the sandbox: the recorded calls first, then the fields learnt, then the
        search. The result to record, or None when the verdict is written already."""
        if session.load_error:
            static_review(self.info, self.model, self.report, f"cannot run: {session.load_error}")
            return None
        seed_table_keys(self.model.leaves, self.module.facts.hints, session.table_keys)
        # evidence: the calls the project's own runs made come first; what they prove is
        # not searched again, and what they do not is left to the synthesised inputs.
        replayed = self.replay(session, refusals_only)
        if replayed is None or self.settled_by_recorded(session, replayed):
            return None
        self.deadline = max(self.deadline, session.now() + self.budget.seconds_per_function)
        if not self.learn_fields(session):
            return None
        if not self.targets:
            if replayed.result.executions:  # the recorded calls ran: that is the verdict
                replayed.result.executions = session.calls
                self.record(replayed.result)
                return None
            self.report.status, self.report.reason = "skipped", "no protected input"
            return None
        return self.search(session, refusals_only, replayed)

    def resume(self, session: Session, refusals_only: set[str]) -> SearchResult | None:
        """Inside the sandbox, for judge_again: the recorded calls, then the borrowed values
        if the made-up inputs proved nothing; their result taken up with what these saw.
        None as `run`."""
        first = self.result
        assert first is not None
        if session.load_error:
            static_review(self.info, self.model, self.report, f"cannot run: {session.load_error}")
            return None
        replayed = self.replay(session, refusals_only)
        if replayed is None:
            return None
        # A counterexample from the project's own call reads better: it stands for its category.
        first.witnesses = {
            shown: witness
            for shown, witness in first.witnesses.items()
            if witness.leaf.category not in replayed.proved
        }
        searched = first.executions
        result = self.search_borrowed(session, refusals_only, replayed, first)
        if result is first:
            merge(first, replayed.result)
            first.executions = session.calls
        if result is not None:
            result.executions += searched
        return result

    def replay(self, session: Session, refusals_only: set[str]) -> Replayed | None:
        """The recorded calls searched; their findings and categories taken into the report.
        None (the verdict written) when the session can prove nothing more."""
        report = self.report
        try:
            replayed = replay(
                self.info,
                self.recorded,
                session,
                self.policy,
                min(RECORDED_EXECUTIONS, self.budget.executions_per_function // 2),
                session.now() + self.budget.seconds_per_function * RECORDED_TIME,
                refusals_only,
            )
        except (ReplyForged, CallsProveNothing) as exc:
            stopped(self.info, self.model, report, exc, session.calls)
            return None
        report.findings += replayed.findings
        self.tested = set(report.attributes_tested) | replayed.attributes
        report.attributes_tested = sorted(self.tested)
        self.targets = [leaf for leaf in self.targets if leaf.category not in replayed.proved]
        if replayed.died:
            report.reason = replayed.died
            report.status = "error" if not report.findings else report.status
        return replayed

    def settled_by_recorded(self, session: Session, replayed: Replayed) -> bool:
        """Whether the recorded calls leave nothing to search (the verdict then written)."""
        report = self.report
        if replayed.died or (replayed.result.executions and not self.targets and not self.opaque):
            replayed.result.executions = session.calls
            self.record(replayed.result)
            return True
        if not self.targets and not self.opaque:  # recorded calls with no protected value inside
            if self.protected:
                report.reason = "no protected input is ever read"
            else:
                report.status, report.reason = "skipped", "no protected input"
            return True
        return False

    def learn_fields(self, session: Session) -> bool:
        """Keys the code reads that its source does not name, learnt from the calls that
        fail for them. False (the verdict written) when the session can prove nothing more."""
        try:
            learnt, _ = learn_missing_fields(self.model, self.builder, session)
        except (SessionDied, CallsProveNothing) as exc:  # judge what the code says
            stopped(self.info, self.model, self.report, exc, session.calls)
            return False
        if learnt and self.borrowed is not None:
            # The borrowed model shares the parameters it did not borrow, whose records now
            # hold the keys learnt: it sets their leaves too, or its calls cannot be made.
            held = {leaf.path for param in self.borrowed.params for leaf in param.shape.leaves()}
            self.borrowed.leaves += [leaf for leaf in learnt if leaf.path in held]
        if learnt:
            self.model = only_people(self.model, self.info, self.policy, self.module.facts)
            self.targets += [leaf for leaf in learnt if leaf.protected]
            self.tested |= {leaf.category for leaf in self.model.protected if leaf.category}
            self.report.attributes_tested = sorted(self.tested)
        return True

    def search(
        self, session: Session, refusals_only: set[str], replayed: Replayed
    ) -> SearchResult | None:
        """The search for a witness over the synthesised inputs, with what the recorded calls
        saw merged in; None (the verdict written) when it cannot prove anything. When every
        call raised, once more around a base that runs, walked to from their errors. When it
        proved nothing, once more with the values borrowed from the project's runs (a
        made-up table may run and tell nothing: every age looks up the same made-up rate)."""
        failing_limit = self.budget.executions_per_function // 4
        result = self.search_model(session, refusals_only, replayed, failing_limit)
        if (
            result is not None
            and result.never_ran
            and self.report.status != "error"  # the session died: no walk in it
            and session.now() < self.deadline
        ):
            result = self.search_walked(session, refusals_only, replayed, result)
        if result is None:
            return None
        nested = self.nested(session, result)
        if nested is None:
            return None
        if nested:
            targets, self.targets = self.targets, nested
            result = self.search_again(session, refusals_only, replayed, result)
            self.targets = targets
            if result is None:
                return None
        return self.search_borrowed(session, refusals_only, replayed, result)

    def nested(self, session: Session, result: SearchResult) -> list[Leaf] | None:
        """The protected inputs `result` proved nothing for whose values all raised as values
        the code takes in a list, now given inside the lists the calls showed (nesting.py),
        to search again; None (the verdict written) when the session can prove nothing."""
        unproved = [leaf for leaf in self.targets if leaf.display not in result.witnesses]
        if not unproved or result.interrupted or session.now() >= self.deadline:
            return []
        try:
            return nest_leaves(self.model, session, unproved)
        except (SessionDied, CallsProveNothing) as exc:
            stopped(self.info, self.model, self.report, exc, session.calls)
            return None

    def search_again(
        self, session: Session, refusals_only: set[str], replayed: Replayed, result: SearchResult
    ) -> SearchResult | None:
        """The search once more, over the model and targets now set, with what `result` saw
        merged in; None as `search`."""
        again = self.search_model(session, refusals_only, replayed)
        if again is None:
            return None
        again.witnesses = {**result.witnesses, **again.witnesses}
        again.errors.update(result.errors)
        again.ok_calls += result.ok_calls
        return again

    def search_borrowed(
        self,
        session: Session,
        refusals_only: set[str],
        replayed: Replayed,
        result: SearchResult,
    ) -> SearchResult | None:
        """When the made-up inputs proved nothing (`result`), the search again with the
        values borrowed from the project's runs, if any; else `result`. None as `search`."""
        borrowed = self.borrowed
        if result.witnesses or borrowed is None or session.now() >= self.deadline:
            return result
        self.model, self.borrowed = borrowed, None
        self.targets = [leaf for leaf in borrowed.protected if leaf.category not in replayed.proved]
        tested = {leaf.category for leaf in borrowed.protected if leaf.category}
        self.report.attributes_tested = sorted(set(self.report.attributes_tested) | tested)
        return self.search_again(session, refusals_only, replayed, result)

    def search_walked(
        self,
        session: Session,
        refusals_only: set[str],
        replayed: Replayed,
        failed: SearchResult,
    ) -> SearchResult | None:
        """When every call raised: a base that runs, walked to from the errors of the calls
        (working_base), and the search again around it; None as `search`."""
        try:
            found = find_working_base(self.model, session, self.policy)
        except (SessionDied, CallsProveNothing) as exc:
            stopped(self.info, self.model, self.report, exc, session.calls)
            return None
        if not found:
            return failed
        again = self.search_model(session, refusals_only, replayed)
        if again is not None:
            again.errors.update(failed.errors)
        return again

    def search_model(
        self,
        session: Session,
        refusals_only: set[str],
        replayed: Replayed,
        failing_limit: int | None = None,
    ) -> SearchResult | None:
        info, model, report = self.info, self.model, self.report
        prepared = time.monotonic()
        walks = tainters(info.node, model.leaves)
        scopes = condition_scopes(info.node, model.leaves, walks)
        acting = acting_with(info.node, model.leaves, walks)
        self.reading += time.monotonic() - prepared
        if self.reading > self.budget.seconds_per_function:
            static_review(info, model, report, spent_reading(self.budget.seconds_per_function))
            report.executions = session.calls
            return None
        search = Search(
            model,
            session,
            self.targets,
            max(self.budget.executions_per_function - session.calls, 1),
            self.deadline,
            policy=self.policy,
            refusals_only=refusals_only,
            scopes=scopes,
            acting=acting,
            failing_limit=failing_limit,
            # beside the recording: until it is over, when the recorded calls come first
            stop=None if self.evidence else self.bench.evidence.over,
        )
        try:
            result = search.run()
        except (ReplyForged, CallsProveNothing) as exc:
            stopped(info, model, report, exc, session.calls)
            return None
        except SessionDied as exc:
            result = search.result
            report.reason = str(exc)
            if not result.witnesses and not report.findings:
                report.status = "error"
        merge(result, replayed.result)  # evidence: what the recorded calls saw
        # The session counts every call: the probes, and the one a dying child was in.
        result.executions = session.calls
        return result


def fresh(report: FunctionReport) -> FunctionReport:
    """A new report of the same function."""
    return FunctionReport(report.path, report.qualname, report.line, report.end_line, "clean")


def proved(report: FunctionReport) -> set[str]:
    """The categories a call has proved the function biased for."""
    return {finding.attribute for finding in report.findings if not finding.is_static}


def settled(report: FunctionReport) -> bool:
    """Whether a verdict from made-up inputs is final: biased, by a call, for every category
    it tests (the project's calls could only prove it again)."""
    return report.is_biased and set(report.attributes_tested) <= proved(report)


def spent_reading(seconds: float) -> str:
    """The reason of a function whose own analysis used up its time before any call."""
    return (
        f"not run: reading its inputs took the per-function budget ({seconds:g} s of "
        "budget.seconds_per_function); judged statically"
    )
