"""Names and texts from a pull request are shown literally, never obeyed (issue 11, item 9).

Reproducers: repository files named
- `evil\\x1b[2J\\x1b]0;owned\\x07.py`: ESC sequences that clear the terminal and retitle it;
- `forged\\n0 functions, 0 biased.py`: a newline that forges a line of the report;
- `rtl\\u202egnp.py`: a bidi override that reverses what follows on screen;
- ``tick`[click](https://evil.example)`.py``: backticks that close the code span around a
  path in markdown, turning the rest into a live link in the App's check summary;
- `a[/].py`, and a function whose output is the string `[/]`: rich markup in the text
  table, where a stray closing tag raised MarkupError (a traceback instead of a report).
Before: text and markdown output wrote each name raw (and the text renderer crashed on
`[/]`). Now each control character appears as its escape (`\\x1b`, `\\n`, `\\u202e`), code
spans are fenced by more backticks than the name holds, and markup is escaped.
"""

from __future__ import annotations

import pytest

from analysis.report import Example, Finding, FunctionReport, ScanReport
from bot.render.markdown import render_report
from bot.render.text import render_text

NAMES = {
    "evil\x1b[2J\x1b]0;owned\x07.py": "evil\\x1b[2J\\x1b]0;owned\\x07.py",
    "forged\n0 functions, 0 biased.py": "forged\\n0 functions, 0 biased.py",
    "rtl\u202egnp.py": "rtl\\u202egnp.py",
}
TICKS = "tick`[click](https://evil.example)`.py"


def report(path: str, output: str = "True") -> ScanReport:
    finding = Finding(
        "age",
        "age",
        Example(inputs={"age": 30}, values=[30, 70], outputs=[output, "False"]),
        line=3,
    )
    biased = FunctionReport(path, "decide", 2, 4, "biased", attributes_tested=["age"],
                            findings=[finding], executions=10)  # fmt: skip
    broken = FunctionReport(path, "other", 6, 7, "unverified", reason=f"cannot import {path}")
    return ScanReport([biased, broken], problems=[(path, "not UTF-8")])


@pytest.mark.parametrize("render", [render_text, render_report], ids=["text", "markdown"])
@pytest.mark.parametrize(("name", "escaped"), NAMES.items(), ids=["esc", "newline", "bidi"])
def test_control_characters_in_file_names_are_escaped(
    render: object, name: str, escaped: str
) -> None:
    assert callable(render)
    out = render(report(name))
    for raw in ("\x1b", "\x07", "\u202e", "forged\n"):
        assert raw not in out
    assert escaped in out.replace("\n", "") or escaped in out


def test_backticks_in_a_file_name_cannot_close_its_markdown_code_span() -> None:
    out = render_report(report(TICKS))
    assert f"## `` {TICKS}::decide `` (line 2)" in out
    assert f"- `` {TICKS} ``: not UTF-8" in out
    assert f"| `` {TICKS}:2 `` `decide` |" in out


def test_rich_markup_in_names_and_outputs_is_shown_not_interpreted() -> None:
    out = render_text(report("a[/].py", output="[/]"), width=200)
    assert "a[/].py:3 decide" in out
    assert "-> [/]" in out
