"""Which calls codebias makes itself while recording (analysis/evidence/madecalls.py): the
functions with protected inputs that call a function recorded for, each with its model's
first contexts, encoded as the search encodes them."""

from __future__ import annotations

import ast

from analysis.evidence.madecalls import CONTEXTS, MAX_CALLERS, Caller, MadeCall, made_calls
from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.source.functions import list_functions
from config.policy import default_policy

SOURCE = """\
WEIGHTS = {"Age": 0.04}

def points(values, weights):
    return sum(values[k] * w for k, w in weights.items())

def risk(age):
    return points({"Age": age}, WEIGHTS)

def total(amounts):
    return points(amounts, WEIGHTS)

async def later(age):
    return points({"Age": age}, WEIGHTS)

def nothing(age):
    return age * 2

class Clinic:
    def assess(self, sex):
        return self.points({"Sex": sex})

    def points(self, values):
        return len(values)
"""


def callers(source: str = SOURCE) -> list[Caller]:
    tree = ast.parse(source)
    facts, policy = ModuleFacts(tree), default_policy()
    builder = InputBuilder(facts, policy)
    return [Caller("pkg.score", info, builder.build(info)) for info in list_functions(tree)]


def test_a_caller_with_protected_inputs_is_called_for_the_helper_it_calls() -> None:
    made = made_calls({"points"}, callers())
    # Not `total` (no protected input), not the coroutine, not `nothing` (calls no helper).
    assert [call.qualname for call in made] == ["risk"] * CONTEXTS + ["Clinic.assess"] * CONTEXTS
    first = made[0]
    assert isinstance(first.kwargs["age"], int)  # the age, by keyword as the search passes it
    assert (made[1].args, made[1].kwargs) != (first.args, first.kwargs)  # an input moved
    wire = first.wire()
    assert wire["module"] == "pkg.score" and wire["qualname"] == "risk"
    assert wire["label"] == "codebias's call of pkg.score.risk"


def test_a_method_is_called_with_its_instance_first() -> None:
    made = [c for c in made_calls({"points"}, callers()) if c.qualname == "Clinic.assess"]
    assert made[0].args[0]["__cb__"] == "new" and made[0].args[0]["class"] == "Clinic"


def test_nothing_is_made_for_a_function_no_caller_calls() -> None:
    assert made_calls({"unheard_of"}, callers()) == ()
    assert made_calls({"risk"}, callers()) == ()  # only itself would


def test_a_helper_gets_a_few_callers_at_most() -> None:
    source = "def points(values):\n    return len(values)\n" + "".join(
        f"def caller_{i}(age):\n    return points([age])\n" for i in range(MAX_CALLERS + 2)
    )
    made = made_calls({"points"}, callers(source))
    assert len({call.qualname for call in made}) == MAX_CALLERS
    assert all(isinstance(call, MadeCall) for call in made)


def test_the_callers_of_helpers_without_protected_inputs_come_first() -> None:
    source = "def lookup(values):\n    return len(values)\n" + (
        "def rate(age):\n    return age\n"
        "def early(sex):\n    return rate(30)\n"
        "def late(sex):\n    return lookup([sex])\n"
    )
    made = made_calls({"rate", "lookup"}, callers(source), needy={"lookup"})
    assert [call.qualname for call in made][0] == "late"
