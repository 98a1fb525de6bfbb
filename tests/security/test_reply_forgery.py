"""Forged verdicts (issue 25, item 5): code under test must not be able to write a reply that
the parent takes for the harness's.

Reproducers, each a module whose only function is plainly biased (`age > 60`):
- it replaces the method `json.JSONEncoder.encode`, so that every output the harness sends
  reads the same (the guard compared only the names in `vars(json)`);
- it puts itself between the harness and its reply pipe (found in /proc/self/fd) and rewrites
  each reply on the way;
- it fills the regular-expression cache with patterns of its own, so that masking turns every
  output into the same text (`re._cache` is changed in place: no name changes).
Each made the function `clean`. Now the harness's replies carry a MAC under a key taken before
any code under test runs, its encoder and its masking use nothing code under test can replace
by assignment, and the function is proved biased (the forgery has no effect) or is not judged
by its calls at all (a reply the harness did not sign ends the session).
"""

from __future__ import annotations

import pytest

from analysis import Engine, FunctionReport
from config.policy import default_policy

pytestmark = pytest.mark.sandbox

RULE = '''

def premium(age):
    return "senior rate" if age > 60 else "standard rate"
'''

REWRITE = '''
def _same(value):
    """Every output text of a reply, wherever the protocol puts it, made the same."""
    if isinstance(value, dict):
        return {k: ("'same'" if k in ("repr", "masked") else _same(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_same(v) for v in value]
    return value
'''

ENCODER = (
    "import json\n"
    + REWRITE
    + '''
_encode = json.JSONEncoder.encode


def _forged(self, obj):
    return _encode(self, _same(obj))


json.JSONEncoder.encode = _forged
'''
    + RULE
)

MIDDLE = (
    "import fcntl, json, os, stat, threading\n"
    + REWRITE
    + '''

def _writes_a_pipe(fd):
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & 3 == 1
    except OSError:
        return False


_fd = next(fd for fd in range(3, 64) if _writes_a_pipe(fd))
_real = os.dup(_fd)
_read, _write = os.pipe()
os.dup2(_write, _fd)
os.close(_write)


def _forge(line):
    head, brace, rest = line.partition(b"{")
    try:
        body = json.loads(brace + rest)
    except ValueError:
        return line
    return head + json.dumps(_same(body)).encode()


def _relay():
    pending = b""
    while True:
        chunk = os.read(_read, 65536)
        if not chunk:
            return
        pending += chunk
        while b"\\n" in pending:
            line, pending = pending.split(b"\\n", 1)
            os.write(_real, _forge(line) + b"\\n")


threading.Thread(target=_relay, daemon=True).start()
'''
    + RULE
)

REGEX_CACHE = (
    "import re\n"
    + '''

class _Same:
    def sub(self, repl, string, count=0):
        return "same"


def _whole(token, number):
    before = r"[\\w.\\-]" if number else r"[\\w.]"
    return rf"(?<!{before}){re.escape(token)}(?![\\w]|\\.\\d)"


for _n in range(0, 121):  # 484 patterns: the cache keeps 512
    for _text in (str(_n), f"{_n:.1f}", f"{_n:.2f}", f"{_n:.3f}"):
        re._cache[str, _whole(_text, True), re.IGNORECASE.value] = _Same()
'''
    + RULE
)


def scan(source: str) -> FunctionReport:
    return Engine(default_policy()).scan_function(source, "forged.py", "premium")


def test_the_honest_module_is_biased() -> None:
    assert scan(RULE).status == "biased"


@pytest.mark.parametrize(
    "source", [ENCODER, REGEX_CACHE], ids=["json encoder method", "regular expression cache"]
)
def test_what_the_harness_uses_cannot_be_replaced_by_assignment(source: str) -> None:
    report = scan(source)
    assert report.status == "biased", (report.status, report.reason)


def test_a_module_between_the_harness_and_its_pipe_gets_no_verdict_from_its_calls() -> None:
    report = scan(MIDDLE)
    assert report.status in ("unverified", "error"), (report.status, report.reason)
    assert "reply" in (report.reason or ""), report.reason
    assert [(f.attribute, f.method) for f in report.findings] == [("age", "static")]
