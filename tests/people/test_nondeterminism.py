"""Nondeterminism does not hide bias (issue 10, item 5): parts of an output that re-run
stably with the same seed (tuple and list items, dict values, attributes) are compared on
their own, so a clock beside an age rule does not hide the rule. Unseeded parts never make a
finding."""

from __future__ import annotations

import pytest

from analysis import Engine, FunctionReport
from config.policy import default_policy

pytestmark = pytest.mark.sandbox

ENGINE = Engine(default_policy())

MODULE = """
import random
import time
import uuid
from datetime import datetime


class Decision:
    def __init__(self, approved, at):
        self.approved = approved
        self.at = at


def stamped(age):
    return (age < 60, time.time())


def logged(age, score):
    return {"ok": age < 60 and score > 1, "at": datetime.now().isoformat()}


def decided(gender):
    return Decision(gender == "male", str(uuid.uuid4()))  # a uuid's short groups vary


def listed(gender):
    return [random.Random().random(), gender == "female"]


def noisy_but_fair(age):
    return (True, time.time(), uuid.uuid4().hex)


def coin(gender):
    return (random.Random().random() < 0.5, random.Random().random() < 0.5)
"""


def judge(qualname: str) -> FunctionReport:
    return ENGINE.scan_function(MODULE, "noisy.py", qualname)


@pytest.mark.parametrize(
    ("qualname", "attribute", "part"),
    [
        ("stamped", "age", "[0]"),
        ("logged", "age", "['ok']"),
        ("decided", "gender", ".approved"),
        ("listed", "gender", "[1]"),
    ],
)
def test_a_stable_part_that_differs_is_bias(qualname: str, attribute: str, part: str) -> None:
    report = judge(qualname)
    assert report.status == "biased", report.reason
    [finding] = report.findings
    assert finding.attribute == attribute
    assert finding.example is not None
    a, b = finding.example.outputs
    assert a != b
    assert part in a and part in b, finding.example.outputs


def test_unstable_parts_alone_never_make_a_finding() -> None:
    for qualname in ("noisy_but_fair", "coin"):
        report = judge(qualname)
        assert report.status == "clean", (qualname, report.findings)
