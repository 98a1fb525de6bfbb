"""A function that hands its inputs on to the project's tools: the helper it imports inside
its body is known as a helper (facts/imports.py local_imports), and a key it reads only when
present, which the tool it unpacks the rest into takes not, is left out of the record
(search/working_base.py dropped_moves). Before, such a dispatcher was skipped ("no protected
input"), or every call raised "got an unexpected keyword argument"."""

from __future__ import annotations

import ast
from pathlib import Path

from analysis_kit import model_in_package, verdict, write_package

from analysis.facts.imports import ImportedNames
from analysis.scan.project import Project

TOOLS = """
RETIREMENT_AGE = 60

def retirement_score(age, income):
    return income * (1.5 if age > RETIREMENT_AGE else 1.0)
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
    fair = TOOLS.replace("1.5 if age > RETIREMENT_AGE else 1.0", "1.5 if income > 60 else 1.0")
    report = verdict(fair + DISPATCHER, "handle_call")
    assert report.status == "clean", report.reason



LAZY_DISPATCHER = DISPATCHER.replace(
    "def handle_call(name, args):\n",
    "def handle_call(name, args):\n    from pkg.tools import retirement_score\n",
)


def test_a_helper_imported_inside_the_function_gives_its_inputs(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/tools.py": TOOLS, "pkg/server.py": LAZY_DISPATCHER}
    model = model_in_package(tmp_path, files, "pkg/server.py", "handle_call")
    assert {leaf.display for leaf in model.protected} == {"args['age']"}


def test_an_import_inside_a_function_brings_its_function_and_nothing_else(
    tmp_path: Path,
) -> None:
    """The constants and words of the module a function imports from inside its body say
    nothing about the module's other functions; a name the module imports at the top wins."""
    files = {
        "pkg/__init__.py": "",
        "pkg/tools.py": TOOLS,
        "pkg/other.py": "def retirement_score(salary):\n    return salary\n",
        "pkg/server.py": "from pkg.other import retirement_score\n" + LAZY_DISPATCHER,
    }
    root = write_package(tmp_path, files)
    project = Project.discover(root)
    lazy = project.locate(root / "pkg/server.py")
    assert lazy is not None
    tree = ast.parse(files["pkg/server.py"])
    exports = ImportedNames(project).of(tree, lazy)
    assert [a.arg for a in exports.functions["retirement_score"].args.args] == ["salary"]
    alone = ast.parse(LAZY_DISPATCHER)
    exports = ImportedNames(project).of(alone, lazy)
    assert [a.arg for a in exports.functions["retirement_score"].args.args] == ["age", "income"]
    assert "RETIREMENT_AGE" not in exports.constants
    assert "pkg.tools" not in exports.imported_words
