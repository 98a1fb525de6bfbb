"""The search keeps going where a first try gives nothing away.

- A base on which every call fails because of one input's value (a region the tables lack)
  moves to the value that returned, not to the same failing base.
- Another input holding the word tried ("white" as an ethnicity beside a race tried as
  "white") is masked in both outputs, so the difference is still proof.
- An input the search could not settle before the budget ran out, yet the code visibly
  uses, gets a static finding beside the proof for the others, never a silent "clean".
"""

from __future__ import annotations

from analysis_kit import engine

from analysis import Engine, FunctionReport
from analysis.execution.process import ProcessExecutor
from config.policy import Budget, default_policy

# Eight other inputs, each compared with constants: varying them one at a time around a
# base takes more calls than the budgets below allow, as with a sixty-field patient record.
OTHERS = "a, b, c, d, e, f, g, h"
USE_OTHERS = "".join(
    f"    if {name} in (1, 2, 3, 4, 5, 6, 7):\n        extra += 0\n" for name in OTHERS.split(", ")
)


def scan(source: str, qualname: str, executions: int) -> FunctionReport:
    policy = default_policy().model_copy(
        update={"budget": Budget(executions_per_function=executions)}
    )
    return Engine(policy, executor=ProcessExecutor()).scan_function(source, "case.py", qualname)

# The default region ("central") is one the table lacks: every call at the base raises.
REGION_TABLE = (
    "RATES = {'north': {'male': 1.0, 'female': 0.5}, 'south': {'male': 0.7, 'female': 0.3}}\n"
    f"def risk(age, sex, {OTHERS}, region='central'):\n"
    "    extra = 0\n"
    f"{USE_OTHERS}"
    "    rate = RATES[region][sex]\n"
    "    return round(rate * age / 10, 3) + extra\n"
)


def test_a_base_failing_on_one_input_moves_to_the_value_that_returned() -> None:
    report = scan(REGION_TABLE, "risk", 400)
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings if f.method == "dynamic"} >= {"age", "gender"}


# The ethnicity rests on "black", the one race value the rule singles out, and the output
# shows both: every pair with "black" reads "black" from either input.
ECHOED_PEERS = (
    f"def assess(race, {OTHERS}, ethnicity='black'):\n"
    "    extra = 0\n"
    f"{USE_OTHERS}"
    "    factor = 1.4 if race == 'black' else 1.0\n"
    "    return {'race': race, 'ethnicity': ethnicity, 'risk': factor + extra}\n"
)


def test_another_input_holding_the_word_tried_does_not_hide_a_difference() -> None:
    report = scan(ECHOED_PEERS, "assess", 400)
    assert report.status == "biased", report.reason
    assert "race" in {f.parameter for f in report.findings if f.method == "dynamic"}


# The sex matters only for one of twelve kinds and a narrow band of a lab value: a small
# budget proves the age first and stops before the sex is settled.
NARROW = (
    "KINDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']\n"
    "def score(age, sex, kind, level):\n"
    "    points = 2 if age >= 65 else 0\n"
    "    if kind == 'l' and 16 <= level < 34 and sex == 'female':\n"
    "        points += 1\n"
    "    return points\n"
)


def test_an_input_left_open_by_the_budget_is_judged_statically_beside_the_proof() -> None:
    report = scan(NARROW, "score", 40)
    assert report.status == "biased", report.reason
    methods = {f.attribute: f.method for f in report.findings}
    assert methods.get("age") == "dynamic"
    assert methods.get("gender") == "static", report.findings
    assert report.reason and "budget ran out before settling sex" in report.reason
    # With the whole budget, the sex is proved by calls.
    full = engine().scan_function(NARROW, "case.py", "score")
    assert {f.attribute for f in full.findings if f.method == "dynamic"} == {"age", "gender"}
