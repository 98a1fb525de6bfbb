"""Modules that write next to themselves, or need an environment variable (issue 24, item 8b).

Reproducers: a module that opens a log file beside itself at import (`open(dirname(__file__)
+ "/rules.log", "a")`) could not be imported: the project was read-only in the sandbox, so
every function of it was `unverified`. A module that reads a variable it requires
(`os.environ["API_KEY"]`) was `unverified` with "KeyError: 'API_KEY'". Now each session sees
a writable scratch view of the project: writes succeed there and are thrown away when the
session ends (the checkout, the copy and the next session never see them); and a required
variable that is absent is named ("needs the environment variable API_KEY").
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sandbox_helpers import SANDBOX

from analysis import Engine, FunctionReport
from analysis.sandbox import BwrapExecutor
from config.policy import default_policy

pytestmark = SANDBOX

FILES = {
    "app/__init__.py": "",
    "app/state.json": '{"runs": 0}\n',
    "app/rules.py": """\
import json
import os

HERE = os.path.dirname(__file__)
LOG = os.path.join(HERE, "rules.log")
FIRST = not os.path.exists(LOG)  # no session sees what another one wrote
with open(LOG, "a") as log:
    log.write("imported\\n")
with open(os.path.join(HERE, "state.json"), "w") as state:
    json.dump({"runs": 1}, state)


def premium(age):
    with open(LOG, "a") as log:
        log.write(f"premium {age}\\n")
    return 2 if age > 60 else 1


def first_import(age):
    return FIRST and age > 60
""",
    "app/settings.py": """\
import os

API_KEY = os.environ["CODEBIAS_TEST_REQUIRED_KEY"]


def premium(age):
    return 2 if age > 60 else 1
""",
    "app/token.py": """\
import os

TOKEN = os.getenv("CODEBIAS_TEST_TOKEN")
if not TOKEN:
    raise RuntimeError("set CODEBIAS_TEST_TOKEN first")


def premium(age):
    return 2 if age > 60 else 1
""",
}


@pytest.fixture
def reports(
    executor: BwrapExecutor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, FunctionReport]:
    monkeypatch.setenv("CODEBIAS_TEST_REQUIRED_KEY", "the worker's own value")  # never shown
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    report = Engine(default_policy(), executor=executor).scan_paths([str(root)])
    assert not (root / "app" / "rules.log").exists()  # nothing reached the checkout
    assert (root / "app" / "state.json").read_text() == '{"runs": 0}\n'
    return {f"{Path(f.path).stem}.{f.qualname}": f for f in report.functions}


def test_a_module_that_writes_beside_itself_is_tested_in_a_scratch_view(
    reports: dict[str, FunctionReport],
) -> None:
    assert reports["rules.premium"].status == "biased", reports["rules.premium"]
    # Each session starts from the project as it is: the log of the first is gone.
    assert reports["rules.first_import"].status == "biased", reports["rules.first_import"]


@pytest.mark.parametrize("module", ["settings", "token"])
def test_a_required_environment_variable_that_is_absent_is_named(
    reports: dict[str, FunctionReport], module: str
) -> None:
    report = reports[f"{module}.premium"]
    name = "CODEBIAS_TEST_REQUIRED_KEY" if module == "settings" else "CODEBIAS_TEST_TOKEN"
    assert report.status == "unverified", report
    assert f"needs the environment variable {name}" in (report.reason or ""), report.reason


FILL = """\
import os


def fill(age):
    written = 0
    try:
        with open(os.path.join(os.path.dirname(__file__), "fill.bin"), "wb") as out:
            for _ in range(64):
                out.write(b"x" * (1 << 20))
                written += 1
    except OSError as exc:
        return [age > 60, written, type(exc).__name__]
    return [age > 60, written, "no error"]
"""


def test_a_scratch_view_is_bounded_and_gone_with_its_session(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "fill.py").write_text(FILL)
    report = Engine(default_policy(), executor=executor).scan_paths([str(root)])
    [fill] = report.functions
    assert fill.status == "biased", fill
    example = fill.findings[0].example
    assert example is not None
    for output in example.outputs:
        _, written, error = ast.literal_eval(output)
        assert written <= executor.tmp_mb and error == "OSError", output
    # Every scratch view was unmounted when its session ended.
    assert executor.namespace is not None
    with open(f"/proc/{executor.namespace.proc.pid}/mountinfo") as mounts:
        assert " overlay " not in mounts.read()
