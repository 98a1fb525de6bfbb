"""Which functions a recording records (analysis/evidence/scope.py): protected inputs, or
inputs the engine cannot see into where a person may sit; not a general library's every
function of unknown inputs, whose test suite is not worth running for them."""

from __future__ import annotations

import ast

import pytest

from analysis.evidence.scope import wanted
from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.source.functions import find_function
from config.policy import default_policy


def is_wanted(source: str, qualname: str = "f") -> bool:
    tree = ast.parse(source)
    info = find_function(tree, qualname)
    assert info is not None
    facts, policy = ModuleFacts(tree), default_policy()
    return wanted(info, InputBuilder(facts, policy).build(info), facts, policy)


@pytest.mark.parametrize(
    "source",
    [
        "def f(applicant):\n    return applicant['age'] > 60\n",  # a protected input
        "def f(people):\n    return [score(p) for p in people]\n",  # names a person
        # The module speaks of a category; the function's input is a table it cannot see.
        "COLUMNS = ['sex', 'income']\ndef f(table):\n    return table[COLUMNS].sum()\n",
    ],
)
def test_functions_that_may_hold_a_person_are_recorded(source: str) -> None:
    assert is_wanted(source)


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    return 1\n",  # nothing to record
        "def f(handler, chunk):\n    return handler.write(chunk)\n",  # a general library's
        "def f(count: int, label: str):\n    return label * count\n",  # plain values
        # A module that names a category only by weak words (networkx's node `degree`, a
        # server's `region`): a graph or a cloud, no person.
        "def degree(G, nbunch):\n    return G.degree(nbunch)\n"
        "def f(G, weight):\n    return sum(d for _, d in degree(G, None))\n",
        "REGION = 'us-east-1'\ndef f(client):\n    return client.connect(REGION)\n",
    ],
)
def test_functions_with_no_person_in_sight_are_not(source: str) -> None:
    assert not is_wanted(source)
