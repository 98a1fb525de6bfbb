"""Host CPU (issue 11, item 6): one scan or review has a budget of functions run, executions
and seconds; what is left when it is spent is judged statically and says why, and the App's
maximums cannot be raised by a repository's policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis import Engine
from bot.review import Reviewer
from config.policy import Budget, build_policy, default_policy

RULES = "\n\n".join(
    f"def rule_{i}(age):\n    return {i + 1} if age > 60 else 0\n" for i in range(6)
)


@pytest.mark.sandbox
def test_functions_past_the_scans_budget_are_judged_statically_and_reported(
    tmp_path: Path,
) -> None:
    (tmp_path / "rules.py").write_text(RULES)
    engine = Engine(build_policy([{"budget": {"functions_per_scan": 2}}]))
    report = engine.scan_paths([str(tmp_path / "rules.py")])
    statuses = [f.status for f in report.functions]
    assert statuses[:2] == ["biased", "biased"]
    assert statuses[2:] == ["unverified"] * 4  # never clean: not run
    for cut in report.functions[2:]:
        assert "not run: the scan's budget of 2 functions run was spent" in (cut.reason or "")
        assert [f.attribute for f in cut.findings] == ["age"]  # the static review
    assert any("4 function(s) not run" in w for w in report.warnings)


@pytest.mark.sandbox
def test_a_spent_execution_budget_stops_the_scan_too(tmp_path: Path) -> None:
    (tmp_path / "rules.py").write_text(RULES)
    engine = Engine(build_policy([{"budget": {"executions_per_scan": 10}}]))
    report = engine.scan_paths([str(tmp_path / "rules.py")])
    cut = [f for f in report.functions if "budget of 10 executions" in (f.reason or "")]
    assert cut and len(cut) < len(report.functions)


def test_a_repository_cannot_raise_the_apps_budget() -> None:
    raised = build_policy([{"budget": {"seconds_per_function": 600, "functions_per_scan": 10**6,
                                        "executions_per_function": 20}}])  # fmt: skip
    reviewer = Reviewer(client=None, policy=raised, cache=None)  # type: ignore[arg-type]
    built_in = default_policy().budget
    assert reviewer.policy.budget.seconds_per_function == built_in.seconds_per_function
    assert reviewer.policy.budget.functions_per_scan == built_in.functions_per_scan
    assert reviewer.policy.budget.executions_per_function == 20  # lowering is the repository's


def test_capping_takes_the_lower_of_each_field() -> None:
    capped = Budget(seconds_per_scan=10, functions_per_scan=5).capped(Budget(seconds_per_scan=5))
    assert capped.seconds_per_scan == 5 and capped.functions_per_scan == 5
