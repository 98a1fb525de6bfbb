"""Calls that touch a stubbed module prove nothing, so a function whose every call does is not
run on and on (issue 24, item 8).

Reproducer: a streamlit page (streamlit is not installed where the App runs: a recording stub
stands in) made 2,019 calls, each of which touched the stub and could prove nothing either
way. Now the function stops once its calls show they all need the stub, says so (naming the
module), and keeps its static findings; a function beside it that does not touch the stub is
tested as before.
"""

from __future__ import annotations

from sandbox_helpers import SANDBOX

from analysis import Engine
from analysis.sandbox import BwrapExecutor
from config.policy import default_policy

pytestmark = SANDBOX

PAGE = """
import codebias_absent_ui as st


def loan_page(age, income, region):
    st.title("Your loan")
    if age > 60 or region == "north":
        st.error("declined")
        return False
    st.success(f"approved: {income * 3}")
    return income > 1000


def loan_rule(age, income):
    return age <= 60 and income > 1000
"""


def test_a_function_whose_calls_all_need_a_stub_stops_early_and_says_why(
    executor: BwrapExecutor,
) -> None:
    engine = Engine(default_policy(), executor=executor)
    reports = {r.qualname: r for r in engine.scan_source(PAGE, "page.py")}
    page = reports["loan_page"]
    assert page.status == "unverified", (page.status, page.reason)
    assert "codebias_absent_ui" in (page.reason or ""), page.reason
    assert page.executions <= 64, page.executions
    assert sorted((f.attribute, f.method) for f in page.findings) == [
        ("age", "static"),
        ("region", "static"),
    ]
    assert reports["loan_rule"].status == "biased"


def test_a_fix_whose_calls_all_need_a_stub_has_no_agreement_to_measure(
    executor: BwrapExecutor,
) -> None:
    # `codebias fix` measures how many outputs a fix keeps; calls that stop for a stub have
    # none to compare, which is no error of codebias.
    engine = Engine(default_policy(), executor=executor)
    assert engine.agreement(PAGE, PAGE + "\n", "page.py", "loan_page") is None
