"""A proposed fix is read as a person reads it, but only whole: a fix that would lose a line
is refused, since it is not the fix the model proposed."""

from __future__ import annotations

import ast

import pytest

from analysis.mitigation import AnswerRejected, extract_function
from analysis.mitigation.splice import find_function, function_source

MODULE = """def assess(age, experience):
    if age > 60:
        return False
    return experience >= 3
"""
FAIR = "def assess(age, experience):\n    return experience >= 3\n"


def extract(answer: str) -> str:
    tree = ast.parse(MODULE)
    info = find_function(tree, "assess")
    assert info is not None
    return extract_function(answer, info, tree, function_source(MODULE, info)).function_source


@pytest.mark.parametrize(
    "answer",
    [
        "```python\ndef hiring.assess(age, experience):\n    return experience >= 3\n```",
        "```python\ndef assess(age, experience):\n    return (experience >= 3))\n```",
        "Fixed:\ndef assess(age, experience)\n    return experience >= 3\n",
    ],
    ids=["def name qualified with its module", "bracket typed twice", "header without colon"],
)
def test_a_fix_mangled_the_ways_models_mangle_code_is_read_whole(answer: str) -> None:
    fixed = extract(answer)
    assert ast.dump(ast.parse(fixed)) == ast.dump(ast.parse(FAIR))


def test_a_fix_that_would_lose_a_line_is_refused() -> None:
    answer = '```python\ndef assess(age, experience):\n    return experience >= 3 and "ok\n```'
    with pytest.raises(AnswerRejected, match="does not parse"):
        extract(answer)
