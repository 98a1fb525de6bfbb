"""Property tests for reading LLM answers.

Any text at all gives a module that parses, with the answer's own line numbers, or None;
never an exception. And a module mangled the ways models mangle answers is read back with
every function as it was written, and nothing marked as changed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from hypothesis import example, given, note, settings
from hypothesis import strategies as st

from analysis.source.reading import extract_code, how_recovered, recover_module, repair_code

# Pieces of answers as models write them, to reach every branch of recovery.
FRAGMENTS = (
    "def f(age):",
    "def check/age(age, sex):",
    "def mod.g(x)",
    "async def h(y):",
    "class C:",
    "    return age > 3",
    "    return max(age, int(x)))",
    "        return x]]",
    "    if age > 60",
    "    print 'old', age",
    "    x = \u2018female\u2019",
    "\u00a0\u00a0\u00a0\u00a0return 1",
    '    """Doc.',
    '    """Doc."""def g(z):',
    '"""',
    "'''",
    "```python",
    "```",
    "~~~",
    "    return 1```",
    "Here it is: ```python",
    "\\begin{code}",
    "\\end{code}",
    "Sure! Here is the function you asked for.",
    "Output:",
    "1. Define the function first.",
    "<|endoftext|>",
    "<s>",
    "x = (",
    "    )",
    "import os",
    "from a import b",
    "@decorator",
    "# comment",
    "\t\treturn",
    "\x00",
    "\ud800",
    "",
    "    ",
    "((((((((((",
)


@st.composite
def answers(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=30)), min_size=0, max_size=25
        )
    )
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return newline.join(parts)


def check_total(text: str) -> None:
    parsed = recover_module(text, "answer.py")
    if parsed is not None:
        ast.parse(parsed.source)  # what the engine runs parses
        if parsed.repairs:
            lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            assert len(parsed.source.split("\n")) == len(lines) + 1  # line numbers stay true
            assert all(1 <= n <= len(lines) for n in parsed.touched)
        else:
            assert parsed.source == text  # text that parses is taken as it is
    status, kinds = how_recovered(text)
    assert (status == "unreadable") == (parsed is None and status != "as_written")
    fixed = repair_code(text)
    if fixed is not None:
        ast.parse(fixed)
    assert isinstance(extract_code(text), str)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_gives_a_parsable_module_or_none(text: str) -> None:
    check_total(text)


@settings(max_examples=400, deadline=None)
@given(answers())
@example("\\end{code}\ndef f(age):\n    return age > 3")  # a closing marker alone: said left out
def test_any_answer_shaped_text_gives_a_parsable_module_or_none(text: str) -> None:
    check_total(text)


# --- mangle, then read back --------------------------------------------------------------------


@dataclass(frozen=True)
class Function:
    name: str
    params: tuple[str, str]
    doc: bool
    meant: str  # as written: the name the model meant, every line well formed


NAMES = ("score", "check_age", "rate", "approve")
PARAMS = (("age", "income"), ("sex", "salary"), ("race", "score"), ("city", "years"))
PROSE = (
    "Sure! Here is the code you asked for.",
    "The function below returns a score for each applicant.",
    "Note that the thresholds are only examples.",
)


@st.composite
def functions(draw: st.DrawFn, index: int) -> Function:
    name = NAMES[index]
    a, b = draw(st.sampled_from(PARAMS))
    doc = draw(st.booleans())
    limit = draw(st.integers(0, 99))
    lines = [f"def {name}({a}, {b}):"]
    if doc:
        lines.append('    """Return the score of one applicant."""')
    lines += [
        f"    if len(str({a})) > {limit}:",
        f"        return int(str({b}))",
        f"    return len(str({a}))",
    ]
    return Function(name, (a, b), doc, "\n".join(lines) + "\n")


@st.composite
def mangled(draw: st.DrawFn) -> tuple[str, dict[str, str]]:
    """A mangled answer, and the name recovery gives each function mapped to what the model
    meant it to be (`body_dump`)."""
    count = draw(st.integers(1, 3))
    funcs = [draw(functions(i)) for i in range(count)]
    chunks: list[str] = []
    names: dict[str, str] = {}
    glue_next = False
    for f in funcs:
        lines = f.meant.rstrip("\n").split("\n")
        name = f.name
        how = draw(st.sampled_from(["", "dot", "slash"]))
        if how == "dot":
            lines[0] = lines[0].replace(f"def {name}(", f"def scoring.{name}(")
        elif how == "slash":
            lines[0] = lines[0].replace(f"def {name}(", f"def rules/{name}(")
            name = f"rules_{name}"
        names[name] = body_dump(ast.parse(f.meant).body[0])
        body = 2 if f.doc else 1  # index of the `if` line
        if draw(st.booleans()):
            lines[body] = lines[body].rstrip(":")  # a header without its colon
        if draw(st.booleans()):
            lines[body + 2] += ")"  # the last closing bracket typed twice
        doc_how = ""
        if f.doc:
            doc_how = draw(st.sampled_from(["", "unclosed", "unopened"]))
            if doc_how == "unclosed":
                lines[1] = '    """Return the score of one applicant.'
            elif doc_how == "unopened":
                lines[1:2] = ["    Return the score of one applicant.", '    """']
        glued = glue_next
        glue_next = f.doc and doc_how == "" and draw(st.booleans())
        if glue_next:
            lines = lines[:2]  # the docstring line ends this function: the next def is glued on
            del names[name]
        if glued:
            previous = chunks[-1].split("\n")
            previous[-1] += lines[0]  # this def glued onto the previous one's docstring line
            chunks[-1] = "\n".join(previous)
            lines = lines[1:]
        chunks.append("\n".join(lines))
        if draw(st.booleans()) and not glue_next:
            chunks.append("\n" + draw(st.sampled_from(PROSE)) + "\n")
    code = "\n".join(chunks) + "\n"
    wrap = draw(st.sampled_from(["", "fenced", "unclosed", "closing only", "glued", "remainder"]))
    before = draw(st.sampled_from(PROSE)) + "\n\n"
    if wrap == "fenced":
        code = before + "```python\n" + code + "```\n" + draw(st.sampled_from(PROSE))
    elif wrap == "unclosed":
        code = before + "```python\n" + code
    elif wrap == "closing only":
        code = code + "```\n\n" + draw(st.sampled_from(PROSE))
    elif wrap == "glued":
        code = before.rstrip() + " ```python\n" + code.rstrip("\n") + "```\n"
    elif wrap == "remainder":
        code = "of each applicant, from the given attributes.\n" + '"""\n' + code
    elif draw(st.booleans()):
        code = before + code
    if draw(st.booleans()):
        code += "<|endoftext|>def (: trailing junk"
    return code, names


@settings(max_examples=300, deadline=None)
@given(mangled())
def test_a_mangled_answer_reads_back_as_written(case: tuple[str, dict[str, str]]) -> None:
    answer, names = case
    note(answer)
    parsed = recover_module(answer, "answer.py", answer=True)
    assert parsed is not None
    note(parsed.source)
    assert not parsed.touched, parsed.dropped
    got = {n.name: n for n in parsed.tree.body if isinstance(n, ast.FunctionDef)}
    assert names.keys() <= got.keys()
    for name, meant in names.items():
        assert body_dump(got[name]) == meant, name


def body_dump(node: ast.stmt) -> str:
    """A function as written: its arguments and statements, docstring aside."""
    assert isinstance(node, ast.FunctionDef)
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(node.args) + "".join(ast.dump(s) for s in body)
