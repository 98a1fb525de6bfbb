import ast

import pytest

from analysis.source import extract_code, recover_module

ANSWERS = [
    ("Here you go:\n```python\ndef f(age):\n    return age > 3\n```\nHope it helps.", "def f(age)"),
    ("```\ndef f(age):\n    return age\n", "def f(age)"),  # fence never closed
    ("Sure! The function is below.\ndef f(x):\n    return x\n", "def f(x)"),
    ("\\begin{code}\ndef g(sex):\n    return sex == 'F'\n\\end{code}", "def g(sex)"),
]


@pytest.mark.parametrize(("answer", "expected"), ANSWERS)
def test_extract_code_finds_the_function_in_an_llm_answer(answer: str, expected: str) -> None:
    code = extract_code(answer)
    assert expected in code
    ast.parse(code)


def test_recover_module_drops_a_broken_line_and_keeps_line_numbers() -> None:
    text = "def ok(age):\n    return age > 65\n\ndef bad(gender):\n    x = (1,\n    return gender\n"
    parsed = recover_module(text, "m.py")
    assert parsed is not None
    assert parsed.dropped
    names = {n.name: n.lineno for n in ast.walk(parsed.tree) if isinstance(n, ast.FunctionDef)}
    assert names["ok"] == 1


def test_recover_module_gives_up_on_prose_without_code() -> None:
    assert recover_module("This is not code at all, sorry (", "m.py") is None
