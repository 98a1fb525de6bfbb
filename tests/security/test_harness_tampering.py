"""Verdict tampering (issue 11, item 1) and what is not tampering (issue 24, item 4).

Reproducer: module-level code of the file under test replaced the harness's canonicaliser
(`import __main__; __main__.canonical = lambda *a: "same"`), so every output compared equal and
a biased function of the same file reported `clean`, exit 0. The same from inside the function
itself. The harness notices what changed of its own and the engine judges such a module's
functions statically ("tampers with the test harness"), never clean; an honest neighbour is
still proved biased.

What the harness uses of the standard library and of builtins it took before any code under
test ran, so replacing those (`builtins.sorted`, `json.dumps`) changes nothing for it: the
function is proved biased all the same. And a package that changes module state for its own
reasons (`re._MAXCACHE = 1000`, a wrapper around `builtins.open`) is not an attack: its
functions were all `unverified` ("tampers with the test harness (re._MAXCACHE)"); they are
tested like any other now.
"""

from __future__ import annotations

import pytest

from analysis import Engine, FunctionReport
from config.policy import default_policy

pytestmark = pytest.mark.sandbox

RULE = "def premium(age):\n    return 2 if age > 60 else 1\n"

# Replacing the harness's own objects: detected, judged statically.
TAMPERING = {
    "module level": (
        "import __main__\n\n__main__.canonical = lambda obj, masks, depth=0: 'same'\n\n\n" + RULE
    ),
    "inside the call": (
        "def premium(age):\n    import __main__\n"
        "    __main__.canonical = lambda obj, masks, depth=0: 'same'\n"
        "    return 2 if age > 60 else 1\n"
    ),
}

# Replacing what the harness took before the module ran: no effect on it.
NO_EFFECT = {
    "a builtin, from a default argument": (
        "import builtins\n\n\n"
        "def premium(age, _=setattr(builtins, 'sorted', lambda *a, **k: [])):\n"
        "    return 2 if age > 60 else 1\n"
    ),
    "json.dumps, from a class body": (
        "import json\n\n\nclass Config:\n    json.dumps = staticmethod(lambda *a, **k: '{}')\n\n\n"
        + RULE
    ),
    "json.loads, to rewrite the requests": (
        "import json\n\n_loads = json.loads\n\n\n"
        "def _same_age(text, *a, **k):\n"
        "    return _loads(text.replace('[61', '[60').replace('[65', '[60'), *a, **k)\n\n\n"
        "json.loads = _same_age\n\n\n" + RULE
    ),
}

# What real packages do for their own reasons.
LEGITIMATE = {
    "a tuned regular-expression cache": "import re\n\nre._MAXCACHE = 1000\n\n\n" + RULE,
    "a wrapper around open": (
        "import builtins\nimport functools\n\n"
        "builtins.open = functools.partial(builtins.open, encoding='utf-8')\n\n\n" + RULE
    ),
    # The harness keeps its own copy of the builtins; the module's code sees everybody's.
    "gettext's `_`, installed in builtins": (
        "import builtins\n\nbuiltins.__dict__['_'] = lambda text: text\n\n\n"
        "def premium(age):\n    return _('senior') if age > 60 else _('standard')\n"
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


@pytest.mark.parametrize("how", list(NO_EFFECT))
def test_replacing_what_the_harness_took_before_the_module_ran_changes_nothing(how: str) -> None:
    report = scan(NO_EFFECT[how])
    assert report.status == "biased", (report.status, report.reason)


@pytest.mark.parametrize("how", list(LEGITIMATE))
def test_a_package_that_changes_module_state_for_itself_is_tested(how: str) -> None:
    report = scan(LEGITIMATE[how])
    assert report.status == "biased", (report.status, report.reason)
    assert report.biased_attributes == ["age"]


def test_an_honest_module_is_still_proved_biased() -> None:
    assert scan("import json\n\n\n" + RULE).status == "biased"
