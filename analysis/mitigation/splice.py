"""Putting a new function into its module, and the patch that says what changed."""

from __future__ import annotations

import ast
import difflib
import io
import tokenize

from analysis.mitigation.answer import Candidate
from analysis.source.functions import FunctionInfo
from analysis.source.functions import find_function as find_function  # re-exported for callers


def function_source(source: str, info: FunctionInfo) -> str:
    """The definition as written, decorators included, dedented to column 0."""
    lines = source.splitlines()
    segment = lines[info.first_line - 1 : info.end_line]
    indent = _indent_of(segment[0])
    return "\n".join(_strip_indent(line, indent) for line in segment) + "\n"


def splice(source: str, info: FunctionInfo, candidate: Candidate) -> str:
    """`source` with the definition of `info` replaced by the candidate, and its imports added."""
    lines = source.splitlines(keepends=True)
    first, end = info.first_line, info.end_line
    replacement = replacement_text(source, info, candidate)
    # Keep whatever line ending the function's last line had (a file without a final newline).
    if end == len(lines) and not lines[-1].endswith("\n"):
        replacement = replacement.rstrip("\n")
    new_lines = lines[: first - 1] + [replacement] + lines[end:]
    text = "".join(new_lines)
    if candidate.imports:
        text = _add_imports(text, candidate.imports, before_line=first)
    return text


def replacement_text(source: str, info: FunctionInfo, candidate: Candidate) -> str:
    """The lines that take the place of `info.first_line`..`info.end_line` (a suggestion)."""
    indent = _indent_of(source.splitlines()[info.first_line - 1])
    return _indent_code(candidate.function_source, indent)


def unified_patch(before: str, after: str, path: str) -> str:
    """A unified diff in the `--- a/path` / `+++ b/path` form that `git apply` accepts."""
    name = path.lstrip("/")
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    out: list[str] = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _strip_indent(line: str, indent: str) -> str:
    return line[len(indent) :] if line.startswith(indent) else line.lstrip(" \t")


def _indent_code(code: str, indent: str) -> str:
    """Indent every line of `code`, except the inside of multi-line strings (their text would
    change)."""
    if not indent:
        return code if code.endswith("\n") else code + "\n"
    inside = string_continuation_lines(code)
    out = []
    for number, line in enumerate(code.splitlines(), start=1):
        if number in inside or not line.strip():
            out.append(line)
        else:
            out.append(indent + line)
    return "\n".join(out) + "\n"


def string_continuation_lines(code: str) -> set[int]:
    """Lines that continue a multi-line string (their text is the string's, not layout)."""
    lines: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                lines.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        pass  # the code parsed before we got here; a tokenizer hiccup only costs indentation
    return lines


def _add_imports(text: str, imports: list[str], before_line: int) -> str:
    """Add import lines after the last top-level import above the function (or after the
    docstring and `__future__` imports when there is none)."""
    tree = ast.parse(text)
    at = 0
    for stmt in tree.body:
        if stmt.lineno >= before_line:
            break
        is_docstring = (
            stmt is tree.body[0]
            and isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
        )
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) or is_docstring:
            at = stmt.end_lineno or stmt.lineno
    lines = text.splitlines(keepends=True)
    block = "".join(f"{line}\n" for line in imports)
    if at == 0:
        block += "\n"
    return "".join(lines[:at]) + block + "".join(lines[at:])
