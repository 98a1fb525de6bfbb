"""The engine: from source text to one verdict per function, with proof.

The engine reads the files of a scan (analysis/scan/), loads each module once
(analysis/modules.py: parsed or recovered, its facts read) and judges each function
(analysis/judging.py): its inputs and the protected ones among them (analysis/inputs/,
analysis/shapes.py), values from the code and the policy (analysis/facts/), a search for a
witness in a sandboxed child (analysis/search/, analysis/execution/, analysis/sandbox/),
each finding pointed at the line most responsible (analysis/static/). Code that cannot run
gets a static review instead, and says why.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path as FsPath

from analysis.errors import (
    CallsProveNothing,
    ExecutionError,
    RequirementMissing,
    SandboxUnavailable,
    SourceError,
)
from analysis.evidence.store import Candidate, EvidenceStore
from analysis.execution.interpreter import Interpreter, current_interpreter
from analysis.execution.process import Call, Executor, Limits, Outcome, Target
from analysis.facts.imports import ImportedNames
from analysis.facts.in_place import changed_in_place
from analysis.facts.instance_reads import instance_name
from analysis.facts.module import ModuleFacts
from analysis.facts.preparations import prepared_by_callers
from analysis.inputs.builder import InputBuilder
from analysis.judging import Judgement, settled
from analysis.modules import Module, is_test
from analysis.report import FunctionReport, ScanReport, Status
from analysis.scan.budget import Deadline, ScanBudget
from analysis.scan.diff import changed_lines, lines_for
from analysis.scan.files import select_files
from analysis.scan.project import ModuleLocation, Placement, Project
from analysis.search.acceptance import Acceptance
from analysis.search.contexts import contexts
from analysis.search.stability import varying_paths
from analysis.search.verdict import (
    drop_conversions,
    static_review,
)
from analysis.shapes import InputModel
from analysis.source.functions import FunctionInfo, attribute_path, find_function, list_functions
from analysis.source.reading import parse_module, read_source, recover_module
from config.policy import Policy

log = logging.getLogger(__name__)


class Engine:
    """Tests functions for bias under one policy. Thread-safe; one instance per scan or job."""

    def __init__(
        self,
        policy: Policy,
        executor: Executor | None = None,
        jobs: int = 1,
        limits: Limits | None = None,
        progress: Callable[[int, int], None] | None = None,
        deadline: Deadline | None = None,
        interpreter: Interpreter | None = None,
    ) -> None:
        """`interpreter`: the Python the code under test runs with (the project's, from
        `--python`); by default the executor's, else codebias's own."""
        if executor is not None and interpreter is not None:
            assert executor.interpreter == interpreter, "one interpreter: the executor's"
        self.policy = policy
        self._interpreter = interpreter or (executor.interpreter if executor else None)
        self.deadline = deadline  # after it, the scan starts no further function
        self.jobs = max(1, jobs)
        self.progress = progress  # called as (functions done, functions in all) during a scan
        budget = policy.budget
        self.limits = limits or Limits(session_timeout=budget.seconds_per_function + 10.0)
        self._executor = executor
        self._unavailable: str | None = None
        self._lock = threading.Lock()
        self._resolved = executor is not None
        # Projects shown to sandboxes (read-only copies), kept until close().
        self._shares = ExitStack()
        self._shared: dict[FsPath, str] = {}
        self._imports: dict[FsPath, ImportedNames] = {}
        self._projects: dict[FsPath, Project] = {}
        self.budget_warnings: list[str] = []  # what the scan's budget cut
        self.copy_warnings: list[str] = []  # what the sandboxes' copies of projects left out
        self.acceptance = Acceptance(policy)
        self.evidence = EvidenceStore(policy)  # the projects' own calls (analysis/evidence/)

    def close(self) -> None:
        """Remove the copies of projects made for the sandboxes."""
        self.evidence.close()  # waits for a recording still running
        with self._lock:
            self._shared.clear()
            self._shares.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public API ----------------------------------------------------------------------
    def scan_paths(
        self, paths: Sequence[str], diff_text: str | None = None, force_exclude: bool = False
    ) -> ScanReport:
        """Files named as given (`force_exclude`: unless the policy leaves them out), folders
        walked for what the policy selects (analysis.scan.files)."""
        started = time.monotonic()
        wanted = changed_lines(diff_text) if diff_text is not None else None
        selection = select_files(paths, self.policy, force_exclude)
        problems = selection.problems
        tasks: list[tuple[Module, FunctionInfo]] = []
        for file in selection.files:
            path = file.path
            lines = None
            if wanted is not None:
                where = file.repo_path or str(FsPath(path).resolve())
                lines = lines_for(wanted, where, in_repository=file.repo_path is not None)
                if not lines:
                    continue
            try:
                text = read_source(FsPath(path), self.policy.budget.max_file_bytes)
            except SourceError as exc:
                problems.append((path, exc.reason))
                continue
            place = self.place(path, file.home)
            try:
                module = self.load_module(text, path, place.project, place.location)
            except Exception as exc:  # noqa: BLE001 - one file's internal error loses no other
                log.exception("internal error reading %s", path)
                problems.append((path, f"internal error in codebias: {type(exc).__name__}: {exc}"))
                continue
            if module is None:
                problems.append((path, "no parsable Python in this file"))
                continue
            if lines is None:
                self.acceptance.read_whole(path)
            tasks += [(module, info) for info in self.select(module, lines)]
        try:
            self.record(tasks)
            reports = self.run_tasks(tasks)
        finally:
            self.close()
        for path, reason in problems:
            reports.append(FunctionReport(path, "<module>", 1, 1, "error", "static", reason=reason))
        # Only a scan of whole folders can tell that an `allow:` entry matches nothing at all.
        complete = wanted is None and not selection.named
        return ScanReport(
            reports,
            time.monotonic() - started,
            problems,
            warnings=[
                *self.acceptance.warnings(complete=complete),
                *self.budget_warnings,
                *self.copy_warnings,
                *self.evidence.warnings,
            ],
            evidence=self.evidence.summaries,
        )

    def scan_source(
        self,
        source: str,
        path: str,
        lines: set[int] | None = None,
        project: Project | None = None,
        answer: bool = False,
    ) -> list[FunctionReport]:
        """Functions of one module given as text (`path` as reported). With a project, `path`
        is relative to its root and the module is imported as its dotted name there; the
        caller closes the engine when done with the project. An `answer` is a model's answer,
        read and tested as the model meant it (source.recover_module)."""
        location = project.locate(project.root / path) if project is not None else None
        module = self.load_module(source, path, project, location, answer)
        if module is None:
            return [
                FunctionReport(
                    path,
                    "<module>",
                    1,
                    1,
                    "error",
                    "static",
                    reason="no parsable Python in this file",
                )
            ]
        return self.run_tasks([(module, info) for info in self.select(module, lines)])

    def place(self, path: str, home: FsPath | None) -> Placement:
        """Where a file on disk is imported: as its module in the project at `home` (see
        analysis.scan.files), or on its own without one. `scan` and `fix` both load this way."""
        if home is None:
            return Placement(None, None)
        project = self.project(home)
        return Placement(project, project.locate(FsPath(path)))

    def scan_function(
        self, source: str, path: str, qualname: str, place: Placement | None = None
    ) -> FunctionReport:
        """One function of `source` (at `place` when it is a file of a project on disk)."""
        where = place or Placement(None, None)
        module = self.load_module(source, path, where.project, where.location)
        if module is None:
            raise ExecutionError(f"{path}: no parsable Python")
        info = find_function(module.parsed.tree, qualname)
        if info is None:
            raise ExecutionError(f"{path}: no function {qualname}")
        return self.scan_one(module, info)

    def agreement(
        self,
        source: str,
        patched_source: str,
        path: str,
        qualname: str,
        samples: int = 40,
        place: Placement | None = None,
    ) -> float | None:
        """Share of non-protected test inputs on which both versions give the same output.

        Measured for each protected group in turn (one protected value, every other input
        varied), keeping the best: removing a bias must change the outputs of the group it
        favoured or hurt, but should leave at least one group's outcomes as they were. Parts
        of an output that vary between two runs of the original (a clock, an id) are not
        compared, as the search leaves them out (analysis.search.stability).
        """
        found = self.function_inputs(source, path, qualname, place)
        if found is None:
            return None
        module, info, model = found
        calls, groups = agreement_calls(model, samples)
        outcomes = []
        for text in (source, patched_source):
            executor = self.executor()
            with executor.open(self.target(info, module, text), self.limits) as session:
                if session.load_error:
                    return 0.0 if text is patched_source else None
                try:
                    outcomes.append(session.run(calls))
                    if text is source:
                        again = session.run(calls)
                except CallsProveNothing:  # no output to compare: as if it never returned
                    return 0.0 if text is patched_source else None
        return best_share(outcomes[0], again, outcomes[1], groups)

    def function_inputs(
        self, source: str, path: str, qualname: str, place: Placement | None = None
    ) -> tuple[Module, FunctionInfo, InputModel] | None:
        """A runnable function's module and inputs, as `agreement` tries them (the base
        value of each protected input is its policy's reference group); None when the
        module does not run whole or has no such function."""
        where = place or Placement(None, None)
        module = self.load_module(source, path, where.project, where.location)
        if module is None or not module.runnable:
            return None
        info = find_function(module.parsed.tree, qualname)
        if info is None:
            return None
        return module, info, InputBuilder(module.facts, self.policy).build(info)

    @property
    def sandbox_problem(self) -> str | None:
        """Why no code could run (the sandbox failed its self-test), once a scan has tried."""
        return self._unavailable

    # -- modules and functions -----------------------------------------------------------
    def load_module(
        self,
        text: str,
        path: str,
        project: Project | None = None,
        location: ModuleLocation | None = None,
        answer: bool = False,  # a model's answer, read as the model meant it (source.py)
    ) -> Module | None:
        try:
            parsed = parse_module(text, path)
            imported = (
                self.imported_names(project).of(parsed.tree, location)
                if project is not None and location is not None
                else None
            )
            facts = ModuleFacts(parsed.tree, imported)
            return Module(path, parsed, facts, True, None, project, location)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            error = f"line {getattr(exc, 'lineno', '?')}: {getattr(exc, 'msg', exc)}"
        recovered = recover_module(text, path, answer=answer)
        if recovered is None:
            return None
        only_wrapping = not recovered.touched
        note = (
            "recovered: " + "; ".join(recovered.dropped)
            if only_wrapping
            else f"the file does not parse ({error}); what could be parsed was judged, "
            f"leaving out {'; '.join(recovered.dropped[:5])}"
        )
        # Recovered text is not the file on disk: it runs on its own, not as its module.
        return Module(
            path, recovered, ModuleFacts(recovered.tree), runnable=only_wrapping, note=note
        )

    def select(self, module: Module, lines: set[int] | None) -> list[FunctionInfo]:
        infos = list_functions(module.parsed.tree)
        if lines is None:
            return infos
        return [i for i in infos if any(i.first_line <= n <= i.end_line for n in lines)]

    def project(self, root: FsPath) -> Project:
        """The project rooted at `root` (found once per engine), its requirements checked."""
        with self._lock:
            known = self._projects.get(root)
        if known is not None:
            return known
        project = Project.discover(root, self.policy.python.paths)
        missing = project.missing(self.policy.python.require, self.interpreter)
        if missing:
            raise RequirementMissing(
                f"python.require: {', '.join(missing)} cannot be imported here (install the "
                f"project's dependencies, or pass its environment's interpreter: --python)"
            )
        with self._lock:
            return self._projects.setdefault(root, project)

    def imported_names(self, project: Project) -> ImportedNames:
        with self._lock:
            return self._imports.setdefault(project.root, ImportedNames(project))

    def run_tasks(self, tasks: list[tuple[Module, FunctionInfo]]) -> list[FunctionReport]:
        """The functions' verdicts. Those whose calls are being recorded (analysis/evidence/)
        are judged from made-up inputs with the others, beside the recording, and again once
        it is over (scan_again): none waits for it while another could be judged."""
        done = 0
        done_lock = threading.Lock()
        spent = ScanBudget(self.policy.budget, self.deadline)
        recorded = [self.recording(*task) for task in tasks]
        reports: list[FunctionReport] = []  # in the order of `tasks`, once judged first
        judgements: dict[int, Judgement] = {}  # of the functions being recorded

        def finished() -> None:
            nonlocal done
            if self.progress is not None:
                with done_lock:
                    done += 1
                    self.progress(done, len(tasks))

        def first(index: int) -> FunctionReport:
            why = spent.exhausted()
            if why:
                report = self.cut(*tasks[index], why)
            else:
                judgement = self.scan_first(*tasks[index])
                report = judgement.report
                if not judgement.evidence:  # taken up once the recording is over
                    judgements[index] = judgement
            spent.add(report, cut=why is not None)
            if index not in judgements:
                finished()
            return report

        def again(index: int) -> FunctionReport:
            report = self.scan_again(judgements[index])
            if report is not reports[index]:
                spent.add(report, cut=False, again=True)
            finished()
            return report

        # The functions being recorded go last: their calls come in meanwhile.
        order = sorted(range(len(tasks)), key=lambda i: recorded[i])
        by_index = dict(zip(order, self.each(first, order), strict=True))
        reports = [by_index[i] for i in range(len(tasks))]
        later = [i for i in order if i in judgements]
        for index, report in zip(later, self.each(again, later), strict=True):
            reports[index] = report
        if spent.cut:
            self.budget_warnings.append(
                f"{spent.cut} function(s) not run: {spent.reason}; judged statically ({spent.hint})"
            )
        return reports

    def each(
        self, judge: Callable[[int], FunctionReport], indices: list[int]
    ) -> list[FunctionReport]:
        """`judge` of each index, in order, `jobs` at a time."""
        if self.jobs == 1 or len(indices) < 2:
            return [judge(index) for index in indices]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(judge, indices))

    def record(self, tasks: list[tuple[Module, FunctionInfo]]) -> None:
        """Start recording the calls the projects' own tests and demos make of the functions
        that need them (analysis/evidence/), while the others are tested; a sandbox that
        cannot start records nothing."""
        candidates = [
            Candidate(module.project, module.location, info, module.facts)
            for module, info in tasks
            if module.project is not None
            and module.location is not None
            and module.runnable
            and not is_test(module.path, info)
        ]
        if not candidates:
            return
        try:
            self.executor()
        except SandboxUnavailable:
            return
        # The projects' copies are made now, while nothing else runs: made beside the
        # threads that test, a copy's many small reads and writes each wait for the
        # interpreter's lock (tornado's: 1.85 s against 0.05 s alone).
        for project in {c.project.root: c.project for c in candidates}.values():
            self.shared(project)
        self.evidence.start(candidates, self.executor, self.shared)

    def recording(self, module: Module, info: FunctionInfo) -> bool:
        """Whether the function's calls are being recorded (it is tested after the others)."""
        return self.evidence.pending(module.project, module.location, info)

    def cut(self, module: Module, info: FunctionInfo, why: str) -> FunctionReport:
        """A function left untested because the scan's budget was spent: its static review."""
        report = FunctionReport(module.path, info.qualname, info.line, info.end_line, "clean")
        builder = InputBuilder(module.facts, self.policy)
        model = builder.build(info)
        report.attributes_tested = sorted(
            {leaf.category for leaf in model.protected if leaf.category}
        )
        if not model.protected:
            report.status, report.reason = "skipped", "no protected input"
        else:
            static_review(info, model, report, f"not run: {why}; judged statically")
        self.accept(module, info, report)
        return report

    @property
    def interpreter(self) -> Interpreter:
        """Where the code under test runs: its imports are looked up there too."""
        return self._interpreter or current_interpreter()

    # -- one function --------------------------------------------------------------------
    def executor(self) -> Executor:
        with self._lock:
            if not self._resolved:
                self._resolved = True
                try:
                    from analysis.sandbox import default_executor

                    self._executor = default_executor(interpreter=self._interpreter)
                except SandboxUnavailable as exc:
                    self._unavailable = str(exc)
                except ImportError as exc:
                    self._unavailable = f"the sandbox is not installed ({exc})"
            if self._executor is None:
                raise SandboxUnavailable(self._unavailable or "no sandbox")
            return self._executor

    def target(
        self,
        info: FunctionInfo,
        module: Module,
        source: str | None = None,
        recorded: tuple[str, ...] = (),
    ) -> Target:
        """How to load `info` in a child: `source` (the module's own by default) run as the
        module it is in its project, when it has one; with the `recorded` calls to replay."""
        decorators = info.decorators
        qualname = attribute_path(info.qualname) + (
            ".fget"
            if "property" in decorators
            else ".func"  # functools.cached_property keeps the method as `func`
            if "cached_property" in decorators
            else ""
        )
        source = module.parsed.source if source is None else source
        stub = self.policy.python.stub
        project, location = module.project, module.location
        changes = changed_in_place(
            info.node, instance_name(info.node) if info.owner is not None else ""
        )
        prepare = prepared_by_callers(info.node, module.facts)
        if project is None or location is None or not module.runnable:
            return Target(
                source, module.path, qualname, stub=stub, changes=changes, prepare=prepare
            )
        return Target(
            source,
            location.file,
            qualname,
            module=location.name,
            package=location.is_package,
            repo=self.shared(project),
            paths=location.paths,
            last_paths=location.last_paths,
            stub=stub,
            evidence=self.evidence.folder(project) if recorded else None,
            recorded=recorded,
            environ=self.evidence.environ(project),
            changes=changes,
            prepare=prepare,
        )

    def shared(self, project: Project) -> str:
        """The folder sandboxes see for `project` (a copy, made once per engine)."""
        executor = self.executor()
        with self._lock:
            if project.root not in self._shared:
                shared = self._shares.enter_context(executor.share(str(project.root)))
                self._shared[project.root] = shared.path
                if shared.note:
                    self.copy_warnings.append(f"{project.root.name}: {shared.note}")
            return self._shared[project.root]

    def scan_one(self, module: Module, info: FunctionInfo) -> FunctionReport:
        judgement = self.scan_first(module, info)
        return judgement.report if judgement.evidence else self.scan_again(judgement)

    def scan_first(self, module: Module, info: FunctionInfo) -> Judgement:
        """The function judged; one whose calls are being recorded, from made-up inputs
        alone, to be taken up once the recording is over (scan_again). A verdict final
        already tells the recording to want no more of the function's calls."""
        started = time.monotonic()
        # Judged in two steps only while the recording runs; once it is over, as any.
        pending = self.recording(module, info) and not self.evidence.over()
        report = FunctionReport(module.path, info.qualname, info.line, info.end_line, "clean")
        judgement = Judgement(self, module, info, report, evidence=not pending)
        report = self.judged(judgement, judgement.judge)
        if pending and settled(report) and module.project and module.location:
            self.evidence.settle(module.project, module.location, info)
        report.seconds = time.monotonic() - started
        if not pending:
            self.accept(module, info, report)
        return judgement

    def scan_again(self, judgement: Judgement) -> FunctionReport:
        """The judgement taken up with the calls recorded (Judgement.judge_again)."""
        started = time.monotonic()
        before = judgement.report
        report = self.judged(judgement, judgement.judge_again)
        report.seconds = before.seconds + (time.monotonic() - started)
        self.accept(judgement.module, judgement.info, report)
        return report

    def judged(self, judgement: Judgement, step: Callable[[], object]) -> FunctionReport:
        """The judgement's report after `step` (its judge or judge_again), an internal error
        of codebias's caught as the function's verdict: it loses no other function's."""
        module, info = judgement.module, judgement.info
        try:
            step()
        except RecursionError:
            judgement.report = failed(
                judgement.report, "unverified", "the function is too deeply nested to analyse"
            )
        except Exception as exc:  # noqa: BLE001 - one function's internal error loses nothing else
            log.exception("internal error testing %s::%s", module.path, info.qualname)
            reason = f"internal error in codebias: {type(exc).__name__}: {exc}"[:500]
            judgement.report = failed(judgement.report, "error", reason)
        drop_conversions(info, judgement.report, self.policy, module.facts.const)
        return judgement.report

    # -- accepted findings ----------------------------------------------------------------
    def accept(self, module: Module, info: FunctionInfo, report: FunctionReport) -> None:
        self.acceptance.apply(module.path, module.parsed.source, module.parsed.tree, info, report)


def failed(report: FunctionReport, status: Status, reason: str) -> FunctionReport:
    """The report of a function codebias could not judge, and why."""
    return replace(report, status=status, method="static", reason=reason, findings=[])


def agreement_calls(model: InputModel, samples: int) -> tuple[list[Call], int]:
    """The calls `Engine.agreement` compares: for each protected group (the typical values,
    then each protected input at each of its focus values) the same `samples` contexts.
    Returns them with the number of groups."""
    base = [ctx for _, ctx in zip(range(samples), contexts(model), strict=False)]
    typical = {leaf.path: leaf.pool[leaf.typical] for leaf in model.protected}
    groups = [dict(typical)] + [
        {**typical, leaf.path: value}
        for leaf in model.protected
        for value in leaf.focus[:6]
        if value != typical[leaf.path]
    ]
    calls = []
    for group in groups:
        for i, ctx in enumerate(base):
            args, kwargs = model.assemble({**ctx, **group})
            calls.append(Call(tuple(args), kwargs, seed=i, parts=True))
    return calls, len(groups)


def best_share(
    original: list[Outcome], again: list[Outcome], patched: list[Outcome], groups: int
) -> float | None:
    """The best group's share of calls whose output the patch left as it was (parts that
    vary between two runs of the original not compared); None when no call returned."""
    unstable = [varying_paths(runs) for runs in zip(original, again, strict=True)]
    shares = []
    per_group = len(original) // groups if groups else 0
    for g in range(groups):
        chunk = range(g * per_group, (g + 1) * per_group)
        pairs = [(original[i], patched[i], unstable[i]) for i in chunk]
        kept = [b.ok and a.same_except(b, varying) for a, b, varying in pairs if a.ok]
        if kept:
            shares.append(sum(kept) / len(kept))
    return round(max(shares), 4) if shares else None
