"""Reading Python that people and language models actually write.

Files from a repository are parsed as they are. Answers from a language model are read as a
person reads them (`recover_module`): the code is found among prose and fences
(answer_layout.py), and a line that does not parse is read the one way a person would read it
(line_repairs.py, docstring_repairs.py): a def name written as a path, a docstring cut at one
end, a def glued onto a docstring line, a bracket typed twice. Those readings keep what the
code does, so the answer is tested as the model wrote it. A line nothing can read is dropped
and its lines are `touched`: the engine does not run a function that lost code. Recovery
never adds or removes a line, so the line numbers reported are the answer's own, and every
repair is listed.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from analysis.errors import SourceError
from analysis.source.answer_layout import lay_out
from analysis.source.docstring_repairs import (
    glued_def,
    swallows_def,
    unclosed_docstring,
    unopened_docstring,
)
from analysis.source.line_repairs import (
    KINDS,
    Locator,
    ParseError,
    Repair,
    def_name,
    indent_of,
    missing_colon,
    odd_whitespace,
    prose_lines,
    python2_print,
    stutter,
    typographic_quotes,
)

__all__ = [
    "KINDS",
    "ParsedModule",
    "Repair",
    "extract_code",
    "fenced_blocks",
    "decode_source",
    "how_recovered",
    "parse_module",
    "read_source",
    "recover_module",
    "repair_code",
]

FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+-]*)[ \t]*$", re.MULTILINE)
DEF_ANYWHERE = re.compile(r"(?:^|[\s:;>`\"'])(?:async\s+)?def\s", re.MULTILINE)
EMPTY_BLOCK = re.compile(r"^expected an indented block after .* on line (\d+)$")
# The parser gave up on the whole text (nesting too deep to even read): nothing to mend.
HOPELESS = ParseError(0, 0, "the text cannot be parsed at all")

# In the order they are tried; each targets its own error messages or line shapes.
REPAIRS = (
    odd_whitespace,
    typographic_quotes,
    def_name,
    unclosed_docstring,  # before glued defs: an unclosed docstring misplaces later errors
    unopened_docstring,
    glued_def,
    stutter,
    python2_print,
    missing_colon,
    prose_lines,
)

# Readings of where the code is, as opposed to readings of a line of code.
LAYOUT_KINDS = frozenset({"prose", "fences", "prompt_docstring", "indentation", "end_token"})

Recovery = Literal["as_written", "recovered", "partly_recovered", "unreadable"]


@dataclass
class ParsedModule:
    source: str  # the text that parsed (the original when it parsed as it was)
    tree: ast.Module
    repairs: list[Repair] = field(default_factory=list)  # what recovery did, line by line
    touched: set[int] = field(default_factory=set)  # lines whose code recovery dropped

    @property
    def dropped(self) -> list[str]:
        """What recovery did, in words (the engine's notes quote these)."""
        return [str(repair) for repair in self.repairs]

    @property
    def recovered(self) -> bool:
        return bool(self.repairs)

    @property
    def kinds(self) -> list[str]:
        """The kinds of repair made (line_repairs.KINDS), each once, in the order first made."""
        return list(dict.fromkeys(repair.kind for repair in self.repairs))


def read_source(path: Path, max_bytes: int) -> str:
    """A Python file's text, decoded as Python decodes it (PEP 263 coding line, BOM, UTF-8)."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise SourceError(
                str(path),
                f"{size:,} bytes, over the {max_bytes:,}-byte limit (budget.max_file_bytes): "
                "not read",
            )
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(str(path), f"cannot read: {exc.strerror or exc}") from None
    return decode_source(data, str(path))


def decode_source(data: bytes, path: str) -> str:
    """Bytes of a Python file as text, as the interpreter decodes them (SourceError if not)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding).removeprefix("\ufeff")
    except (SyntaxError, LookupError) as exc:
        raise SourceError(path, f"cannot decode: {exc}") from None
    except UnicodeDecodeError as exc:
        raise SourceError(path, f"not {exc.encoding} text: {exc.reason}") from None


def parse_module(text: str, path: str) -> ParsedModule:
    """Parse a repository file; a SyntaxError is the caller's to report (with recovery)."""
    return ParsedModule(text, ast.parse(text, filename=path))


def recover_module(
    text: str, path: str, max_drops: int = 25, *, answer: bool = False
) -> ParsedModule | None:
    """The module a person reads in `text`, or None when no function can be read from it.

    An `answer` (a model's answer) is tested as the model meant it, so lines read by a repair
    are not touched. A file from a repository is what it is: a line that needed a repair
    cannot run as written, so it is touched like a dropped one (the prose or fences around
    its code excepted). Never raises: any text gives a module that parses, or None.
    """
    try:
        return parse_module(text, path)
    except (SyntaxError, ValueError):
        pass
    except (RecursionError, MemoryError):
        return None  # nested beyond what the parser reads: no reading of it would parse
    if not DEF_ANYWHERE.search(text):
        return None  # no function to test, whatever the rest says
    read = _read(text, path, max_drops)
    if read is not None and not answer:
        for repair in read.repairs:
            if repair.kind not in LAYOUT_KINDS:
                read.touched.update(range(repair.first, repair.last + 1))
    if read is None or not any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(read.tree)
    ):
        return None
    return read


def repair_code(text: str) -> str | None:
    """`text` made parsable by readings that keep what it does (no line dropped), or None.

    For answers that must be taken whole, such as a proposed fix."""
    read = _read(text, "<answer>", max_drops=0)
    return read.source if read is not None else None


def how_recovered(text: str) -> tuple[Recovery, list[str]]:
    """Whether an answer parsed as written, was read whole by repairs, lost code, or gave no
    function; with the kinds of repair made."""
    try:
        ast.parse(text)
        return "as_written", []
    except (SyntaxError, ValueError):
        pass
    except (RecursionError, MemoryError):
        return "unreadable", []
    read = recover_module(text, "answer.py", answer=True)
    if read is None:
        return "unreadable", []
    return ("partly_recovered" if read.touched else "recovered"), read.kinds


def extract_code(text: str) -> str:
    """The Python code in `text` (fenced blocks, or from the first line of code on), or `text`
    itself when none is found."""
    layout = lay_out(answer_lines(text))
    if not layout.code:
        return text
    code = "\n".join(layout.lines).strip("\n")
    return code + "\n" if code.strip() else text


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each ``` block; an unclosed last fence runs to the end."""
    marks = list(FENCE.finditer(text))
    blocks: list[tuple[str, str]] = []
    i = 0
    while i < len(marks):
        opening = marks[i]
        closing = marks[i + 1] if i + 1 < len(marks) else None
        end = closing.start() if closing else len(text)
        blocks.append((opening.group(2).lower(), text[opening.end() : end].strip("\n")))
        i += 2
    return [(lang, body) for lang, body in blocks if body.strip()]


def answer_lines(text: str) -> list[str]:
    """The lines as Python counts them (\\r\\n and \\r end a line; form feeds do not)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def locate(lines: list[str]) -> ParseError | None:
    """The first syntax error in `lines`, or None when they parse."""
    try:
        ast.parse("\n".join(lines) + "\n")
    except SyntaxError as exc:
        line = min(max(exc.lineno or len(lines), 1), len(lines))
        return ParseError(line, max((exc.offset or 1) - 1, 0), exc.msg)
    except (ValueError, RecursionError, MemoryError):
        return HOPELESS
    return None


def _read(text: str, path: str, max_drops: int) -> ParsedModule | None:
    layout = lay_out(answer_lines(text))
    lines = layout.lines
    repairs = list(layout.repairs)
    touched: set[int] = set()
    for i, line in enumerate(lines):
        if "\x00" in line or not line.isprintable() and _unencodable(line):
            # A NUL or half a surrogate pair: no reading of this line exists.
            lines[i] = ""
            touched.add(i + 1)
            repairs.append(Repair("dropped", i + 1, i + 1, "unreadable characters"))
    drops = 0
    done: set[frozenset[tuple[int, str]]] = set()
    for _ in range(4 * len(lines) + 2 * max_drops + 10):
        error = locate(lines)
        if error is None:
            joined = "\n".join(lines) + "\n"
            tree = ast.parse(joined, filename=path)
            hidden = swallowing_docstring(tree, lines)
            repair = None if hidden is None else read_line(lines, hidden, locate, done)
            if repair is None:
                return ParsedModule(joined, tree, repairs, touched)
            repairs.append(repair)
            continue
        if error is HOPELESS:
            return None
        repair = read_line(lines, error, locate, done)
        if repair is not None:
            repairs.append(repair)
            continue
        if drops >= max_drops:
            return None
        drops += 1
        dropped = _drop(lines, error)
        repairs.append(dropped)
        touched.add(dropped.first)
    return None


def swallowing_docstring(tree: ast.Module, lines: list[str]) -> ParseError | None:
    """A docstring that parses but holds a def less indented than itself: two docstrings'
    quotes were paired across the code between them, as the parser reads a lost quote."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)):
                continue
            opener, closer = first.lineno - 1, (first.end_lineno or first.lineno) - 1
            if swallows_def(lines, opener, closer):
                return ParseError(first.lineno, 0, "a docstring holds a def less indented")
    return None


def read_line(
    lines: list[str], error: ParseError, locate: Locator, done: set[frozenset[tuple[int, str]]]
) -> Repair | None:
    """Apply the repair that reads the line at `error` and gets the parser furthest past it
    (the first kind of repair that gets past it at all wins). `done` holds the changes made
    so far, none of which is made twice (two readings must not undo each other forever)."""
    for repair in REPAIRS:
        best: tuple[tuple[int, int], list[str], Repair, frozenset[tuple[int, str]]] | None = None
        for change, what in repair(lines, error):
            key = frozenset(change.items())
            if key in done:
                continue
            trial = list(lines)
            for index, text in change.items():
                trial[index] = text
            after = locate(trial)
            reached = (len(lines) + 1, 0) if after is None else after.position
            if after is not None and after.line < error.line and after.line - 1 not in change:
                # An error that was there before, in lines left alone, which the tokenizer's
                # complaint about this line hid: this line is read, that one comes next.
                reached = (error.line, error.column + 1)
            if reached > error.position and (best is None or reached > best[0]):
                best = (reached, trial, what, key)
        if best is not None:
            lines[:] = best[1]
            done.add(best[3])
            return best[2]
    return None


def _unencodable(line: str) -> bool:
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _drop(lines: list[str], error: ParseError) -> Repair:
    """Leave out the line at `error`, or mend its usual slip (a missing colon or bracket)."""
    lineno = error.line
    if not lines[lineno - 1].strip():
        # The error is past the code (a block cut off): an empty block gets `pass`, anything
        # else is the last line's fault.
        empty = EMPTY_BLOCK.search(error.message)
        if empty:
            lines[lineno - 1] = indent_of(lines[int(empty[1]) - 1]) + "    pass"
            return Repair("dropped", lineno, lineno, f"{error.message}: `pass` put there")
        lineno = next((j + 1 for j in range(lineno - 2, -1, -1) if lines[j].strip()), lineno)
    bad = lines[lineno - 1]
    what = f"{error.message}: {bad.strip()[:80]!r}"
    for mended in (bad.rstrip() + ":", bad.rstrip() + ")", bad.rstrip() + "]"):
        trial = [*lines[: lineno - 1], mended, *lines[lineno:]]
        after = locate(trial)
        if after is None or after.line != lineno:
            lines[lineno - 1] = mended
            return Repair("dropped", lineno, lineno, f"{error.message} (mended)")
    # Keep the line count, so every reported line number stays true.
    lines[lineno - 1] = f"{indent_of(bad)}pass" if bad.strip() else ""
    after = locate(lines)
    if after is not None and after.line == lineno:
        lines[lineno - 1] = ""
    return Repair("dropped", lineno, lineno, what)
