"""A function proved biased for one attribute whose other attribute could only be tried
through a stubbed module keeps a static finding for that one, and says why."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from analysis_kit import verdict

from analysis.execution.harness.loading import refusing_dependency
from analysis.execution.process import Limits, ProcessExecutor, Target

SOURCE = (
    "import vendor_stats_missing as stats\n"
    "def reference(age, sex):\n"
    "    if age < 2:\n"
    "        return 'infant table'\n"
    "    if sex == 'female':\n"
    "        return stats.girls_table(age)\n"
    "    return 'boys table'\n"
)


def test_the_attribute_whose_calls_needed_a_stub_is_judged_statically() -> None:
    report = verdict(SOURCE, "reference")
    assert report.status == "biased", report.reason
    methods = {f.attribute: f.method for f in report.findings}
    assert methods == {"age": "dynamic", "gender": "static"}
    assert report.reason is not None and "vendor_stats_missing" in report.reason


def test_a_dependency_that_refuses_to_be_imported_is_named_for_its_stub(tmp_path: Path) -> None:
    """A framework that raises when imported before its app is set up (NoneBot's "has not
    been initialized") is the one the harness stubs, as if it were not installed, before
    loading the module again (harness/runner.py); the project's own refusal is no one's."""
    (tmp_path / "site" / "chatframework").mkdir(parents=True)
    (tmp_path / "site" / "chatframework" / "__init__.py").write_text(
        "def init_check():\n    raise ValueError('chatframework has not been initialized')\n"
        "init_check()\n"
    )
    project = tmp_path / "plugin"
    project.mkdir()
    (project / "rules_refused.py").write_text("import chatframework\n")
    (project / "rules_own.py").write_text("raise RuntimeError('configure me first')\n")
    sys.path[:0] = [str(project), str(tmp_path / "site")]
    try:
        raised = [pytest.raises((ValueError, RuntimeError), importlib.import_module, m).value
                  for m in ("rules_refused", "rules_own")]  # fmt: skip
    finally:
        sys.path[:2] = []
        for name in ("chatframework", "rules_refused", "rules_own"):
            sys.modules.pop(name, None)
    roots = [str(project)]
    assert [refusing_dependency(exc, roots) for exc in raised] == ["chatframework", None]


def test_the_projects_own_refusal_at_import_is_reported(tmp_path: Path) -> None:
    project = tmp_path / "plugin"
    project.mkdir()
    source = "raise RuntimeError('configure me first')\n\ndef f(sex):\n    return sex\n"
    (project / "rules.py").write_text(source)
    target = Target(
        source=source, filename=str(project / "rules.py"), qualname="f", paths=(str(project),)
    )
    with ProcessExecutor().open(target, Limits()) as session:
        assert session.load_error is not None and "configure me first" in session.load_error
