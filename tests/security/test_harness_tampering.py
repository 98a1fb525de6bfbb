"""Verdict tampering (issue 11, item 1).

Reproducer: module-level code of the file under test replaced the harness's canonicaliser
(`import __main__; __main__.canonical = lambda *a: "same"`), so every output compared equal and
a biased function of the same file reported `clean`, exit 0. The same through a default
argument patching a builtin the harness calls, and from inside the function itself. Now the
harness notices what changed and the engine judges such a module's functions statically
("tampers with the test harness"), never clean; an honest neighbour is still proved biased."""

from __future__ import annotations

import pytest

from analysis import Engine, FunctionReport
from config.policy import default_policy

pytestmark = pytest.mark.sandbox

RULE = "def premium(age):\n    return 2 if age > 60 else 1\n"

TAMPERING = {
    "module level": (
        "import __main__\n\n__main__.canonical = lambda obj, masks, depth=0: 'same'\n\n\n" + RULE
    ),
    "default argument": (
        "import builtins\n\n\n"
        "def premium(age, _=setattr(builtins, 'sorted', lambda *a, **k: [])):\n"
        "    return 2 if age > 60 else 1\n"
    ),
    "class body": (
        "import json\n\n\nclass Config:\n    json.dumps = staticmethod(lambda *a, **k: '{}')\n\n\n"
        + RULE
    ),
    "inside the call": (
        "def premium(age):\n    import __main__\n"
        "    __main__.canonical = lambda obj, masks, depth=0: 'same'\n"
        "    return 2 if age > 60 else 1\n"
    ),
}


def scan(source: str) -> FunctionReport:
    return Engine(default_policy()).scan_function(source, "tamper.py", "premium")


@pytest.mark.parametrize("how", list(TAMPERING))
def test_a_module_that_tampers_with_the_harness_is_never_clean(how: str) -> None:
    report = scan(TAMPERING[how])
    assert report.status == "unverified", (report.status, report.reason)
    assert "tampers with the test harness" in (report.reason or "")
    assert [f.attribute for f in report.findings] == ["age"]  # the static review still names it


def test_an_honest_module_is_still_proved_biased() -> None:
    assert scan("import json\n\n\n" + RULE).status == "biased"
