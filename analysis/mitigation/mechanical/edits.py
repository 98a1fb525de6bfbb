"""Rewriting a module's text where its syntax tree points, keeping everything else as
written: comments, blank lines, quotes and the layout of the lines left alone."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from analysis.mitigation.splice import string_continuation_lines

# Expressions that may stand anywhere another expression stood without parentheses.
ATOMS = (
    ast.Constant, ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.List, ast.Tuple,
    ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr,
)  # fmt: skip


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] of the module with `text`."""

    start: int
    end: int
    text: str


class Source:
    """A module's text with its tree, and the offsets of the tree's nodes in the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tree = ast.parse(text)
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, column: int) -> int:
        """The text offset of a 1-based line and a UTF-8 byte column (as ast gives them)."""
        if line > len(self.lines):
            return len(self.text)
        prefix = self.lines[line - 1].encode("utf-8")[:column]
        return self.starts[line - 1] + len(prefix.decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def atom(self, node: ast.expr) -> str:
        """The node's text, in parentheses unless it can stand anywhere as it is."""
        text = self.segment(node)
        if isinstance(node, ATOMS) and not (isinstance(node, ast.Tuple) and not _bracketed(text)):
            return text
        return f"({text})"

    def indent_of(self, line: int) -> str:
        text = self.lines[line - 1]
        return text[: len(text) - len(text.lstrip(" \t"))]

    def own_lines(self, stmt: ast.stmt) -> bool:
        """Whether the statement starts its first line and ends its last (no `;` beside it,
        at most a comment after it), so that it can be moved or removed as whole lines."""
        first = self.lines[stmt.lineno - 1]
        before = first.encode("utf-8")[: stmt.col_offset].decode("utf-8", errors="ignore")
        if before.strip():
            return False
        last = self.lines[(stmt.end_lineno or stmt.lineno) - 1]
        after = last.encode("utf-8")[stmt.end_col_offset :].decode("utf-8", errors="ignore")
        return not after.strip() or after.strip().startswith("#")

    def whole_lines(self, first: int, last: int) -> tuple[int, int]:
        return self.starts[first - 1], self.starts[last]

    def block(self, body: list[ast.stmt], indent: str) -> str | None:
        """The statements of `body` as lines indented by `indent` (None when they do not
        stand on lines of their own)."""
        if not all(self.own_lines(s) for s in body):
            return None
        first, last = body[0].lineno, body[-1].end_lineno or body[-1].lineno
        start, end = self.whole_lines(first, last)
        text = self.text[start:end]
        if not text.endswith("\n"):
            text += "\n"
        return reindent(text, self.indent_of(first), indent)

    def apply(self, edits: list[Edit]) -> str:
        """The text with `edits` made; an edit overlapping one made before it is left out
        (the next pass finds it again in the new text)."""
        taken: list[Edit] = []
        for edit in sorted(edits, key=lambda e: (e.start, e.end)):
            if taken and edit.start < taken[-1].end:
                continue
            taken.append(edit)
        text = self.text
        for edit in reversed(taken):
            text = text[: edit.start] + edit.text + text[edit.end :]
        return text


def _bracketed(text: str) -> bool:
    return text.startswith("(") and text.endswith(")")


def reindent(text: str, old: str, new: str) -> str:
    """Lines indented by `old` moved to `new`, leaving the inside of multi-line strings."""
    inside = string_continuation_lines(text)
    out = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if number in inside or not line.strip():
            out.append(line)
        elif line.startswith(old):
            out.append(new + line[len(old) :])
        else:
            out.append(new + line.lstrip(" \t"))
    return "".join(out)

