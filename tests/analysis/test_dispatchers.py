"""A function that hands its inputs on to the project's tools: the helper it imports inside
its body is known as one imported at the top (facts/imports.py local_imports), and a key it
reads only when present, which the tool it unpacks the rest into takes not, is left out of
the record (search/working_base.py dropped_moves). Before, such a dispatcher was skipped
("no protected input"), or every call raised "got an unexpected keyword argument"."""

from __future__ import annotations

from pathlib import Path

from analysis_kit import model_in_package, verdict

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


def test_a_helper_imported_inside_the_function_gives_its_inputs(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/tools.py": TOOLS,
        "pkg/server.py": DISPATCHER.replace(
            "def handle_call(name, args):\n",
            "def handle_call(name, args):\n    from pkg.tools import retirement_score\n",
        ),
    }
    model = model_in_package(tmp_path, files, "pkg/server.py", "handle_call")
    assert {leaf.display for leaf in model.protected} == {"args['age']"}
