"""A function the recording is for is first judged from made-up inputs beside it; that
search stops when the recording ends (Search.stop), and a judgement cut short so is no
verdict: once the recording is over it is judged whole afresh (Judgement.judge_again).

Here no recording runs, so the engine's recordings are over from the start: a first
judgement beside them is cut at its first look, as one is when the recording ends."""

from __future__ import annotations

import time

from analysis_kit import engine, model_of

from analysis.execution.process import Limits, ProcessExecutor, Target
from analysis.judging import Judgement
from analysis.report import FunctionReport
from analysis.search.search import Search
from analysis.source.functions import find_function

SOURCE = (
    "def premium(age, plan):\n"
    "    rate = 2.0 if plan == 'gold' else 1.0\n"
    "    return rate * (1.5 if age > 70 else 1.0)\n"
)


def test_a_search_told_to_stop_ends_interrupted_with_its_leaves_undecided() -> None:
    model = model_of(SOURCE, "premium")
    target = Target(source=SOURCE, filename="case.py", qualname="premium")
    with ProcessExecutor().open(target, Limits()) as session:
        deadline = time.monotonic() + 20
        # The recording ended before the search's first batch.
        result = Search(model, session, model.protected, 2000, deadline, stop=lambda: True).run()
        whole = Search(model, session, model.protected, 2000, deadline).run()
    assert result.interrupted and result.exhausted
    assert result.undecided == {"age"}
    assert result.executions < whole.executions
    assert not whole.interrupted and "age" in whole.witnesses


def test_a_judgement_cut_short_by_the_recording_s_end_is_judged_whole_again() -> None:
    bench = engine()
    module = bench.load_module(SOURCE, "case.py", None, None)
    assert module is not None
    info = find_function(module.parsed.tree, "premium")
    assert info is not None
    report = FunctionReport("case.py", "premium", info.line, info.end_line, "clean")
    judgement = Judgement(bench, module, info, report, evidence=False)

    judgement.judge()
    assert judgement.result is not None and judgement.result.interrupted
    assert judgement.report.status != "biased"  # no verdict: nothing was searched to the end

    assert judgement.judge_again() is True
    assert judgement.report.status == "biased"
    assert {f.attribute for f in judgement.report.findings if not f.is_static} == {"age"}
