"""Which functions a recording records (analysis/evidence/scope.py): protected inputs, or
inputs the engine cannot see into where a person may sit; not a general library's every
function of unknown inputs, whose test suite is not worth running for them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from analysis.evidence.scope import wanted
from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.source.functions import find_function
from config.policy import default_policy
from tests.analysis.test_imports import facts_in_project


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


# A model's module names no person: its frame goes to a helper that selects the columns a
# schema of its project lists.
TRIAGE = {
    "triage/__init__.py": "",
    "triage/schema.py": (
        "FIELDS = {'age': 'years', 'sex': '0 or 1', 'troponin': 'ng/L'}\n"
        "FEATURES = tuple(name for name in FIELDS)\n"
    ),
    "triage/preprocessing.py": (
        "from .schema import FEATURES\n"
        "def prepare(frame):\n    return frame.loc[:, list(FEATURES)]\n"
    ),
    "triage/model.py": (
        "from .preprocessing import prepare\n"
        "class Model:\n"
        "    def predict(self, frame):\n"
        "        return self.pipeline.predict(prepare(frame))\n"
    ),
}
# Half of a web library imports HTTP's `Age` header: one category named there is no person.
WEB = {
    "web/__init__.py": "",
    "web/http.py": (
        "def dump_age(age=None):\n    return str(age)\n"
        "def http_date(stamp):\n    return str(stamp)\n"
    ),
    "web/response.py": (
        "from .http import http_date\n"
        "class Response:\n"
        "    def expire(self, headers, stamp):\n"
        "        return headers.set('Expires', http_date(stamp))\n"
    ),
}
# Across a whole library two categories are named by two modules (networkx's `women` of a
# social graph, `alter` of a file format): neither is about people.
GRAPHS = {
    "graphs/__init__.py": "from .social import *\nfrom .formats import *\n",
    "graphs/social.py": "def southern_women_graph():\n    return {'women': 18}\n",
    "graphs/formats.py": "def alter_graph_mode(mode):\n    return mode\n",
    "graphs/paths.py": (
        "import graphs\n"
        "def shortest(G, source):\n    return graphs.walk(G, source)\n"
    ),
}


@pytest.mark.parametrize(
    ("files", "module", "qualname", "expected"),
    [
        (TRIAGE, "triage/model.py", "Model.predict", True),
        (WEB, "web/response.py", "Response.expire", False),
        (GRAPHS, "graphs/paths.py", "shortest", False),
    ],
)
def test_a_module_whose_project_imports_name_people_is_about_them(
    tmp_path: Path, files: dict[str, str], module: str, qualname: str, expected: bool
) -> None:
    facts = facts_in_project(tmp_path, files, module)
    info = find_function(facts.tree, qualname)
    assert info is not None
    policy = default_policy()
    assert wanted(info, InputBuilder(facts, policy).build(info), facts, policy) is expected
