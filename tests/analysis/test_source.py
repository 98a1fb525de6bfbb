"""Reading LLM answers as a person reads them: each mangling, and what recovery may not do.

Each case is an answer as models write them and the module the model meant. Recovery must
give back that module's functions exactly (same statements, names as the model meant them),
at the answer's own line numbers, list what it did, and run nothing it had to change.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import pytest

from analysis.source.reading import (
    KINDS,
    extract_code,
    how_recovered,
    recover_module,
    repair_code,
)

F_AGE = "def f(age):\n    return age < 60\n"


@dataclass(frozen=True)
class Case:
    answer: str
    meant: str  # the module the model meant (only its functions are compared)
    kinds: tuple[str, ...]  # kinds of repair expected, in order first made
    lines: dict[str, int]  # the line of each def in the answer


CASES = {
    "def name with a slash": Case(
        "def check/age(age):\n    return age > 65\n",
        "def check_age(age):\n    return age > 65\n",
        ("def_name",),
        {"check_age": 1},
    ),
    "def name qualified with a module": Case(
        "Here:\n\ndef scoring.check_age(age, income):\n    if age > 60:\n"
        "        return False\n    return income > 3\n",
        "def check_age(age, income):\n    if age > 60:\n        return False\n"
        "    return income > 3\n",
        ("prose", "def_name"),
        {"check_age": 3},
    ),
    "docstring missing its opening quotes": Case(
        'def f(age):\n    Returns whether the applicant may apply.\n    """\n    return age < 60\n',
        'def f(age):\n    """Returns whether the applicant may apply.\n    """\n'
        "    return age < 60\n",
        ("docstring",),
        {"f": 1},
    ),
    "docstring missing its closing quotes": Case(
        'def f(age):\n    """Returns whether the applicant may apply.\n    if age > 60:\n'
        "        return False\n    return True\n",
        'def f(age):\n    """Returns whether the applicant may apply."""\n    if age > 60:\n'
        "        return False\n    return True\n",
        ("docstring",),
        {"f": 1},
    ),
    "answer begun inside the prompt's docstring": Case(
        "the applicant's age and gender.\nage = years since birth, as an int\n"
        '"""\n\ndef f(age):\n    return age < 60\n',
        F_AGE,
        ("prompt_docstring",),
        {"f": 5},
    ),
    "code glued after the docstring's closing quotes": Case(
        'Do not use test data. """import math\ndef f(age):\n    return math.sqrt(age)\n',
        "import math\ndef f(age):\n    return math.sqrt(age)\n",
        ("prompt_docstring",),
        {"f": 2},
    ),
    "prose before the code": Case(
        "Sure! Here is a function that does it.\n\n" + F_AGE,
        F_AGE,
        ("prose",),
        {"f": 3},
    ),
    "closing fence without an opening one": Case(
        F_AGE + "```\n\nThis returns True for the young.\n",
        F_AGE,
        ("fences", "prose"),
        {"f": 1},
    ),
    "fence never closed, prose after the code": Case(
        "```python\n" + F_AGE + "\nThis function returns True for younger applicants.\n",
        F_AGE,
        ("fences", "prose"),
        {"f": 2},
    ),
    "fences glued to prose and to the code": Case(
        "Here it is: ```python\ndef f(age):\n    return age < 60```\nDone.",
        F_AGE,
        ("prose", "fences"),
        {"f": 2},
    ),
    "a second block opened without closing the first": Case(
        "```python\n" + F_AGE + "```python\ndef g(sex):\n    return sex == 'F'\n```\n",
        F_AGE + "def g(sex):\n    return sex == 'F'\n",
        ("fences",),
        {"f": 2, "g": 5},
    ),
    "a block in another language": Case(
        "```python\n" + F_AGE + '```\nOutput:\n```json\n{"f": true}\n```\n',
        F_AGE,
        ("fences", "prose"),
        {"f": 2},
    ),
    "second def glued onto a docstring line": Case(
        'def f(age):\n    """Young?"""def g(sex):\n    return sex == \'F\'\n',
        'def f(age):\n    """Young?"""\ndef g(sex):\n    return sex == \'F\'\n',
        ("glued_def",),
        {"f": 1, "g": 2},
    ),
    "nested def glued onto a docstring line": Case(
        'def f(age):\n    """Young?"""def g(sex):\n        return sex == \'F\'\n    return g\n',
        "def f(age):\n    def g(sex):\n        return sex == 'F'\n    return g\n",
        ("glued_def",),
        {"f": 1},
    ),
    "closing bracket typed twice": Case(
        "def f(age, income):\n    if len(str(age))) > 2:\n        return 0\n"
        "    return max(age, int(income))))\n",
        "def f(age, income):\n    if len(str(age)) > 2:\n        return 0\n"
        "    return max(age, int(income))\n",
        ("brackets",),
        {"f": 1},
    ),
    "Python 2 print statement": Case(
        'def f(age):\n    print "age", age\n    return age > 3\n',
        'def f(age):\n    print("age", age)\n    return age > 3\n',
        ("print",),
        {"f": 1},
    ),
    "typographic quotes": Case(
        'def f(sex):\n    return sex == \u2018female\u2019 and "it\u2019s"\n',
        "def f(sex):\n    return sex == 'female' and \"it\u2019s\"\n",
        ("quotes",),
        {"f": 1},
    ),
    "header without its colon": Case(
        "def f(age)\n    if age > 60\n        return 1\n    return 0\n",
        "def f(age):\n    if age > 60:\n        return 1\n    return 0\n",
        ("colon",),
        {"f": 1},
    ),
    "no-break spaces for indentation": Case(
        "def f(age):\n\u00a0\u00a0\u00a0\u00a0return age > 3\n",
        "def f(age):\n    return age > 3\n",
        ("whitespace",),
        {"f": 1},
    ),
    "code indented as a whole": Case(
        "Answer:\n    def f(age):\n        return age < 60\n",
        F_AGE,
        ("prose", "indentation"),
        {"f": 2},
    ),
    "LaTeX code block after prose": Case(
        "Answer: \\begin{code}\n" + F_AGE + "\\end{code}\nComment: thanks",
        F_AGE,
        ("fences", "prose"),
        {"f": 2},
    ),
    "text after an end-of-text token": Case(
        F_AGE + "<|endoftext|>def g(: junk\nmore junk (",
        F_AGE,
        ("end_token",),
        {"f": 1},
    ),
    "an explanation between two functions": Case(
        F_AGE + "\nThe function above checks the age.\n\ndef g(sex):\n    return sex\n",
        F_AGE + "def g(sex):\n    return sex\n",
        ("prose",),
        {"f": 1, "g": 6},
    ),
    "Windows line endings": Case(
        "Here you go:\r\n\r\n" + F_AGE.replace("\n", "\r\n"),
        F_AGE,
        ("prose",),
        {"f": 3},
    ),
}


def functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def body_dump(node: ast.FunctionDef) -> str:
    """The function as the model wrote it: statements and arguments, docstring aside."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(node.args) + "".join(ast.dump(s) for s in body)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_each_mangling_is_read_back_as_the_model_meant_it(case: Case) -> None:
    parsed = recover_module(case.answer, "answer.py", answer=True)
    assert parsed is not None
    got, meant = functions(parsed.tree), functions(ast.parse(case.meant))
    assert got.keys() == meant.keys()
    for name, node in meant.items():
        assert body_dump(got[name]) == body_dump(node), name
    assert {name: got[name].lineno for name in case.lines} == case.lines
    assert tuple(parsed.kinds) == case.kinds
    assert not parsed.touched  # nothing the model wrote was changed: every function may run
    assert len(parsed.source.split("\n")) == len(case.answer.replace("\r\n", "\n").split("\n")) + 1
    assert all(kind in KINDS for kind in parsed.kinds)
    assert how_recovered(case.answer) == ("recovered", list(case.kinds))


def test_every_repair_is_listed_with_its_lines() -> None:
    parsed = recover_module(CASES["def name qualified with a module"].answer, "m.py", answer=True)
    assert parsed is not None
    assert parsed.dropped == [
        "line 1: prose around the code left out",
        "line 3: def scoring.check_age read as check_age",
    ]


def test_in_a_repository_file_a_line_that_needed_reading_is_touched() -> None:
    """A file on disk that does not parse cannot run as written, however plain the slip: its
    repaired lines are touched (the function is not run); the prose around it is not."""
    text = CASES["def name qualified with a module"].answer
    parsed = recover_module(text, "rules.py")
    assert parsed is not None
    assert parsed.touched == {3}
    text = CASES["header without its colon"].answer
    parsed = recover_module(text, "rules.py")
    assert parsed is not None and parsed.touched == {1, 2}


# Readings a person would not make, or that would change the code: left to the drop path.
NOT_READ = {
    "a bracket closing nothing, not a stutter": (
        "def f(salaries):\n    return reduce(lambda x, y: x + y, 0.0), salaries)\n",
        {2},
    ),
    "a line cut off at the end of the answer": (
        'def f(age, city):\n    if city == "Pune" or city == "Mumb',
        {2},
    ),
    "a header cut off at the end of the answer": ("def f(age):\n    if age > 2", {2}),
    "code among the words of a docstring": (
        'def f(age):\n    x = age +\n    """\n    return age\n',
        {2, 3},
    ),
}


@pytest.mark.parametrize(("answer", "touched"), NOT_READ.values(), ids=NOT_READ.keys())
def test_code_that_cannot_be_read_whole_is_dropped_and_marked(
    answer: str, touched: set[int]
) -> None:
    parsed = recover_module(answer, "answer.py", answer=True)
    assert parsed is not None
    assert parsed.touched == touched
    assert "dropped" in parsed.kinds
    assert how_recovered(answer)[0] == "partly_recovered"


def test_recover_module_drops_a_broken_line_and_keeps_line_numbers() -> None:
    text = "def ok(age):\n    return age > 65\n\ndef bad(gender):\n    x = (1,\n    return gender\n"
    parsed = recover_module(text, "m.py")
    assert parsed is not None
    assert parsed.dropped
    names = {n.name: n.lineno for n in ast.walk(parsed.tree) if isinstance(n, ast.FunctionDef)}
    assert names == {"ok": 1, "bad": 4}


def test_recover_module_gives_up_on_prose_without_code() -> None:
    assert recover_module("This is not code at all, sorry (", "m.py") is None
    assert how_recovered("This is not code at all, sorry (") == ("unreadable", [])


def test_an_answer_that_parses_is_taken_as_written() -> None:
    text = "# comment only\nx = 1\n"
    parsed = recover_module(text, "m.py")
    assert parsed is not None and parsed.source == text and not parsed.repairs
    assert how_recovered(text) == ("as_written", [])


def test_repair_code_reads_a_proposed_fix_whole_or_not_at_all() -> None:
    fix = "def scoring.check_age(age, income):\n    return income > 3)\n"
    assert repair_code(fix) is None  # a bracket closing nothing: no reading keeps it whole
    fixed = repair_code("def scoring.check_age(age, income):\n    return (income > 3))\n")
    assert fixed == "def check_age(age, income):\n    return (income > 3)\n\n"


ANSWERS = [
    ("Here you go:\n```python\ndef f(age):\n    return age > 3\n```\nHope it helps.", "def f(age)"),
    ("```\ndef f(age):\n    return age\n", "def f(age)"),  # fence never closed
    ("Sure! The function is below.\ndef f(x):\n    return x\n", "def f(x)"),
    ("\\begin{code}\ndef g(sex):\n    return sex == 'F'\n\\end{code}", "def g(sex)"),
    ("def g(sex):\n    return sex\n```\nThat is all.", "def g(sex)"),  # lone closing fence
]


@pytest.mark.parametrize(("answer", "expected"), ANSWERS)
def test_extract_code_finds_the_function_in_an_llm_answer(answer: str, expected: str) -> None:
    code = extract_code(answer)
    assert expected in code
    ast.parse(code)


def test_extract_code_gives_the_text_back_when_it_holds_no_code() -> None:
    text = "I cannot help with that."
    assert extract_code(text) is text
