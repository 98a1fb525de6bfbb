"""Text from a pull request, a comment or the code under test is shown, never obeyed.

A name may hold ESC sequences (that recolour, retitle or clear a terminal), newlines (that
forge lines of output or of a check summary) or bidi overrides (that reorder what a reader
sees). `printable` writes every such character as its Python escape (`\\x1b`, `\\n`,
`\\u202e`), so the name reads unambiguously and acts on nothing.

In markdown, every user- or code-supplied string goes through `code_span` (or `table_code`,
or `fenced` for whole blocks): a code span fenced by more backticks than the text holds
shows the text literally, and GitHub neither links nor mentions (`@team`) inside code.
"""

from __future__ import annotations

import re

BACKTICK_RUN = re.compile(r"`+")


def printable(text: str) -> str:
    """`text` with each non-printable character (C0/C1 controls, format characters) escaped."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in BACKTICK_RUN.findall(text)), default=0)


def code_span(text: str) -> str:
    """Markdown inline code showing `text` literally, whatever it holds; "" for "".

    CommonMark: the span's fence must differ from every backtick run inside (one longer than
    the longest does), and one space is stripped from each end when both ends have one, so
    a text with backticks, or starting or ending with a space, is padded by a space each side
    (unless it is all spaces: those are kept as they are).
    """
    text = printable(text)
    if not text:
        return ""
    fence = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if ("`" in text or " " in text[0] + text[-1]) and text.strip(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table_code(text: str) -> str:
    """`code_span` for a table cell: a pipe would end the cell (GFM reads `\\|` as `|`)."""
    return code_span(text).replace("|", "\\|")


def fenced(text: str, info: str = "") -> str:
    """A fenced code block holding `text` verbatim (`info`: `suggestion`, `diff`, ...).

    Its fence is longer than any backtick run in the text: a closing fence must be at least
    as long as the opening one, so no line of the text can close the block early.
    """
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"
