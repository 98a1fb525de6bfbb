"""A function that hands its inputs on to the project's tools: a key it reads only when
present, which the tool it unpacks the rest into takes not, is left out of the record
(search/working_base.py dropped_moves). Before, every call raised "got an unexpected keyword
argument"."""

from __future__ import annotations

from analysis_kit import verdict

TOOLS = """
def retirement_score(age, income):
    return income * (1.5 if age > 60 else 1.0)
"""

DISPATCHER = """
def handle_call(name, args):
    if name == "history" and "events" in args:
        args["events"] = sorted(args["events"])
    if name == "retirement_score":
        return retirement_score(**args)
    raise ValueError(f"unknown tool {name}")
"""


def test_a_key_the_tool_takes_not_is_left_out_and_the_bias_proved() -> None:
    report = verdict(TOOLS + DISPATCHER, "handle_call")
    assert report.status == "biased", report.reason
    finding = next(f for f in report.findings if f.attribute == "age" and not f.is_static)
    assert finding.example is not None
    assert "events" not in finding.example.inputs["args"]


def test_a_dispatcher_without_the_rule_is_clean() -> None:
    fair = TOOLS.replace("1.5 if age > 60 else 1.0", "1.5 if income > 60 else 1.0")
    report = verdict(fair + DISPATCHER, "handle_call")
    assert report.status == "clean", report.reason

