"""Reading Python that people and language models actually write.

Files from a repository are parsed as they are. Answers pasted from a language model often
wrap the code in prose or fences, or carry a broken line; `recover_module` keeps what parses
and says what it had to drop, so the engine judges what it can and never fails silently.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from analysis.errors import SourceError

FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+-]*)[ \t]*$", re.MULTILINE)
LATEX_CODE = re.compile(r"\\begin\{code\}(.*?)(?:\\end\{code\}|\Z)", re.DOTALL)
ODD_SPACE = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
CODE_START = re.compile(
    r"^(?:def |async def |class |import |from \S+ import |@|[A-Za-z_][\w.]* *=[^=]|if __name__)"
)


@dataclass
class ParsedModule:
    source: str  # the text that parsed (the original when it parsed as it was)
    tree: ast.Module
    dropped: list[str] = field(default_factory=list)  # what recovery had to leave out, in words
    touched: set[int] = field(default_factory=set)  # lines recovery mended or blanked

    @property
    def recovered(self) -> bool:
        return bool(self.dropped)


def extract_code(text: str) -> str:
    """The Python code in `text`: fenced blocks if any, else from the first line of code on."""
    blocks = fenced_blocks(text)
    if blocks:
        python = [b for lang, b in blocks if lang in ("", "python", "py", "python3")]
        return "\n\n".join(python or [b for _, b in blocks]).strip("\n") + "\n"
    latex = LATEX_CODE.findall(text)
    if latex:
        return "\n\n".join(block.strip("\n") for block in latex) + "\n"
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if CODE_START.match(line):
            return "\n".join(lines[i:]).strip("\n") + "\n"
    return text


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


def parse_module(text: str, path: str) -> ParsedModule:
    """Parse a repository file; a SyntaxError is the caller's to report (with recovery)."""
    return ParsedModule(text, ast.parse(text, filename=path))


def recover_module(text: str, path: str, max_drops: int = 25) -> ParsedModule | None:
    """Parse what can be parsed: strip prose and fences, then drop broken lines one by one.

    Each dropped line is replaced by `pass` at its indentation (or removed when that does
    not parse either), so that the functions around it keep their shape. Returns None when
    nothing that defines a function survives.
    """
    try:
        return parse_module(text, path)
    except (SyntaxError, ValueError):
        pass
    dropped: list[str] = []
    touched: set[int] = set()
    code = extract_code(text)
    if code != text:
        dropped.append("prose or fences around the code")
    spaced = ODD_SPACE.sub(" ", code)
    if spaced != code:
        # Em spaces and no-break spaces pasted from a chat window: indentation in all but name.
        code = spaced
        dropped.append("unusual whitespace, read as spaces")
    lines = code.splitlines()
    for _ in range(max_drops):
        joined = "\n".join(lines) + "\n"
        try:
            tree = ast.parse(joined, filename=path)
        except SyntaxError as exc:
            lineno = exc.lineno or len(lines)
            if exc.msg.startswith(
                ("unexpected EOF", "'(' was never closed", "expected an indented")
            ):
                lineno = min(lineno, len(lines))
            if not 1 <= lineno <= len(lines):
                lineno = len(lines)
            if not lines:
                return None
            bad = lines[lineno - 1]
            touched.add(lineno)
            dropped.append(f"line {lineno}: {exc.msg}: {bad.strip()[:80]!r}")
            indent = bad[: len(bad) - len(bad.lstrip())]
            # Mend the usual slips (a missing colon or bracket) before giving the line up.
            for mended in (bad.rstrip() + ":", bad.rstrip() + ")", bad.rstrip() + "]"):
                trial = [*lines[: lineno - 1], mended, *lines[lineno:]]
                if first_error_line(trial) != lineno:
                    lines[lineno - 1] = mended
                    dropped[-1] = f"line {lineno}: {exc.msg} (mended)"
                    break
            else:
                # Keep the line count, so every reported line number stays true.
                lines[lineno - 1] = f"{indent}pass" if bad.strip() else ""
                if first_error_line(lines) == lineno:
                    lines[lineno - 1] = ""
            continue
        except ValueError:
            return None
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(tree)):
            return ParsedModule(joined, tree, dropped, touched)
        return None
    return None


def first_error_line(lines: list[str]) -> int | None:
    """The line of the first syntax error, or None when the text parses."""
    try:
        ast.parse("\n".join(lines) + "\n")
    except SyntaxError as exc:
        return exc.lineno or 0
    except ValueError:
        return 0
    return None


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
