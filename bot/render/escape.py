"""File names come from whoever wrote the pull request: they are shown, never obeyed.

A name may hold ESC sequences (that recolour, retitle or clear a terminal), newlines (that
forge lines of output or of a check summary) or bidi overrides (that reorder what a reader
sees). `printable` writes every such character as its Python escape (`\\x1b`, `\\n`,
`\\u202e`), so the name reads unambiguously and acts on nothing.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """`text` with each non-printable character (C0/C1 controls, format characters) escaped."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def code_span(text: str) -> str:
    """Markdown inline code showing `text` literally, whatever backticks it holds."""
    text = printable(text)
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"
