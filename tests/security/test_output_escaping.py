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
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from analysis.report import Example, Finding, FunctionReport, ScanReport
from bot.render.escape import code_span, fenced, printable
from bot.render.markdown import MAX_CELL, code, example_table, render_report
from bot.render.text import render_text

# CommonMark with GitHub's tables: what the App's comments and check summaries are read as.
MARKDOWN = MarkdownIt("commonmark").enable("table")

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
    assert f"- `` {TICKS} ``: `not UTF-8`" in out
    assert f"| `` {TICKS}:2 `` `decide` |" in out


def test_rich_markup_in_names_and_outputs_is_shown_not_interpreted() -> None:
    out = render_text(report("a[/].py", output="[/]"), width=200)
    assert "a[/].py:3 decide" in out
    assert "-> [/]" in out


# Text as an attacker writes it for markdown: backtick runs, fences, spaces at the edges,
# links, autolinks, mentions and HTML, besides anything at all.
MARKDOWNISH = st.text() | st.lists(
    st.sampled_from(
        ["`", "``", "```", "````", "\n", " ", "~~~", "|", "\\", "a", "[x](//e.example)",
         "<https://e.example>", "www.e.example", "@org/team", "<b>", "suggestion"]
    )
).map("".join)


def inline_children(markdown: str) -> list[tuple[str, str]]:
    return [
        (child.type, child.content)
        for token in MARKDOWN.parse(markdown)
        if token.type == "inline"
        for child in token.children or []
    ]


@given(MARKDOWNISH)
def test_any_string_renders_as_its_own_literal_text(text: str) -> None:
    """Issue 25, item 11: the one helper every user- or code-supplied string goes through.
    Whatever the string holds (backtick runs, links, autolinks, `@team` mentions, HTML,
    edge spaces), it renders as one code span showing exactly that text (control
    characters as their escapes): GitHub neither links nor mentions inside code."""
    shown = printable(text)
    expected = [("code_inline", shown)] if shown else []
    assert inline_children(code_span(text)) == expected
    # The same in the middle of a line, as check summaries and replies use it.
    assert not shown or inline_children(f"- see {code_span(text)} here") == [
        ("text", "see "),
        *expected,
        ("text", " here"),
    ]


@given(MARKDOWNISH.filter(lambda text: len(" ".join(text.split())) <= MAX_CELL))
def test_any_value_in_a_table_cell_is_one_literal_code_span(text: str) -> None:
    """Issue 25, item 11: `code()` fenced with at most two backticks, so an output holding
    a double backtick closed its span and the rest rendered as markdown (a live link). Nothing
    at all reads as a dash, not as an empty span."""
    shown = printable(" ".join(text.split()))
    table = f"| value |\n|---|\n| {code(text)} |\n"
    cell = inline_children(table)[1:]
    assert cell == ([("code_inline", shown)] if shown else [("text", "—")])


def test_an_output_with_double_backticks_cannot_render_a_link() -> None:
    output = "`` [prize](https://evil.example) ``"
    finding = Finding(
        "age", "age", Example(inputs={"age": 30}, values=[30, 70], outputs=[output, "False"]), 3
    )
    tokens = [
        child
        for token in MARKDOWN.parse(example_table(finding))
        if token.type == "inline"
        for child in token.children or []
    ]
    assert not any(t.type == "link_open" for t in tokens)
    assert ("code_inline", output) in [(t.type, t.content) for t in tokens]


def suggestion_blocks(markdown: str) -> list[Token]:
    return [
        t
        for t in MARKDOWN.parse(markdown)
        if t.type == "fence" and t.info.split()[:1] == ["suggestion"]
    ]


@given(MARKDOWNISH)
def test_a_fenced_block_holds_exactly_its_text(text: str) -> None:
    """Issue 25, item 8: whatever backticks the text holds, nothing inside closes the block."""
    text = text.replace("\r", "").replace("\0", "")  # line ends as Python writes them
    (block,) = suggestion_blocks(fenced(text, "suggestion"))
    assert block.content == text.rstrip("\n") + "\n"
