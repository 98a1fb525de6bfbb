"""Mending a broken line of an LLM answer the way a person reads it.

Each repair answers one syntax error with the one reading a person gives the line: a def name
written as a path, a bracket typed twice, a Python 2 print, typographic quotes, a header
without its colon, an explanation between lines of code (docstrings: docstring_repairs.py).
None of them changes what the code does, and none adds or removes a line, so every line
number stays the answer's own. A repair proposes; the caller (source.py) keeps a proposal
only if the parser gets further with it. A line no repair can read is left to the caller,
which drops it (and does not run the function around it).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# What each kind of repair reads, in the words reports use.
KINDS: dict[str, str] = {
    "fences": "code fences or markers around the code",
    "prose": "prose around or between the code",
    "prompt_docstring": "the rest of a docstring the prompt opened",
    "docstring": "a docstring that lost its opening or closing quotes",
    "indentation": "code indented as a whole",
    "def_name": "a def name written with / or .",
    "glued_def": "a def glued onto a docstring line",
    "brackets": "a closing bracket typed twice",
    "print": "a Python 2 print statement",
    "quotes": "typographic quotes around a string",
    "colon": "a block header without its colon",
    "whitespace": "unusual whitespace",
    "end_token": "text after an end-of-text token",
    "dropped": "broken code left out",  # the only kind that changes the code: never run
}


@dataclass(frozen=True)
class Repair:
    """One thing recovery did to the answer, on lines `first`..`last` (1-based)."""

    kind: str
    first: int
    last: int
    what: str

    def __str__(self) -> str:
        where = (
            f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"
        )
        return f"{where}: {self.what}"


@dataclass(frozen=True)
class ParseError:
    line: int  # 1-based
    column: int  # 0-based
    message: str

    @property
    def position(self) -> tuple[int, int]:
        return (self.line, self.column)


# A proposal: new text for some lines (0-based index -> text) and what that reads as.
Proposal = tuple[dict[int, str], Repair]
Locator = Callable[[list[str]], ParseError | None]

ODD_SPACE = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
HEADER = re.compile(
    r"^\s*(?:if|elif|else|for|while|def|class|with|try|except|finally|async\s+(?:def|for|with))\b"
)
DEF_HEADER = re.compile(r"^\s*(?:async\s+def|def|class)\b.*:\s*(?:#.*)?$")
BAD_DEF_NAME = re.compile(
    r"^(?P<head>\s*(?:async\s+def|def|class)\s+)"
    r"(?P<name>[A-Za-z_]\w*(?:(?:\.|::|/|\\|-)[A-Za-z_]\w*)+)"
    r"(?P<tail>\s*[(:].*)$"
)
TRIPLE = re.compile(r"\"\"\"|'''")
UNMATCHED = re.compile(r"^unmatched '([)\]}])'|^closing parenthesis '([)\]}])' does not match")
PY2_PRINT = re.compile(r"^(?P<indent>\s*)print\s+(?P<rest>[^>\s].*?)\s*$")
CURLY = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
LIST_MARK = re.compile(r"^(?:\d{1,3}[.)]|[-*+>•])\s+")
PLAIN_WORD = re.compile(r"^[A-Za-z][a-z']*$")
SOFT_KEYWORDS = frozenset({"match", "case", "type", "print", "exec", "_"})
CODE_LINE = re.compile(
    r"^\s*(?:(?:if|elif|else|for|while|return|yield|raise|try|except|finally|with|def|class|"
    r"import|from|assert|pass|break|continue|global|nonlocal|del|async|await)\b"
    r"|@|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|//|\*\*)?=[^=]|[A-Za-z_][\w.]*\()"
)


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def is_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def reads_as_prose(line: str) -> bool:
    """Whether a line that does not parse is an explanation in words, not broken code.

    Python never puts two plain words side by side outside strings, keywords aside; prose
    does so all the time. A line that starts with a keyword is taken for code.
    """
    # Early answers, one rule each: their order is the rules' precedence.
    text = line.strip()
    if text.startswith(("//", "/*", "*/", "<!--")):
        return True  # another language's comment, as models write them after code
    text = LIST_MARK.sub("", text, count=1)
    tokens = text.split()
    if not tokens:
        return False
    if not (tokens[0][0].isalpha() or tokens[0][0] in "*`"):
        return False  # a string, a number, a bracket: code, however broken
    words = [t.strip(",.;:!?()\"'`*") for t in tokens]
    first = words[0]
    if not PLAIN_WORD.match(first) or keyword.iskeyword(first) or first in SOFT_KEYWORDS:
        return False
    if text.endswith(":") and len(tokens) <= 4 and all(PLAIN_WORD.match(w) for w in words):
        return True  # a label: "Output:", "Example usage:"
    pairs = [
        i
        for i in range(len(words) - 1)
        if all(
            PLAIN_WORD.match(w) and not keyword.iskeyword(w) and w not in SOFT_KEYWORDS
            for w in (words[i], words[i + 1])
        )
        and not tokens[i].endswith((",", ";", ":", ")", "("))
    ]
    return len(pairs) >= 2 or (bool(pairs) and text.endswith((".", ":", "!", "?")))


def next_code_line(lines: Sequence[str], index: int) -> int | None:
    """Index of the first non-blank line after `index`."""
    for j in range(index + 1, len(lines)):
        if lines[j].strip():
            return j
    return None


def previous_code_line(lines: Sequence[str], index: int) -> int | None:
    for j in range(index - 1, -1, -1):
        if lines[j].strip():
            return j
    return None


# --- the repairs: each reads the line at the error, or returns None ---------------------------


def def_name(lines: list[str], error: ParseError) -> list[Proposal]:
    """`def check/age(...)`, `def module.func(...)`: the function is the name's last part."""
    i = error.line - 1
    read = readable_def(lines[i])
    if read is None:
        return []
    text, what = read
    return [({i: text}, Repair("def_name", error.line, error.line, what))]


def readable_def(line: str) -> tuple[str, str] | None:
    """The def line with its name read as an identifier, and what was read; None when the
    name is fine or cannot be read."""
    match = BAD_DEF_NAME.match(line)
    if not match:
        return None
    name = match["name"]
    qualified = re.split(r"\.|::", name)[-1]
    new = re.sub(r"[/\\-]+", "_", qualified)
    if not is_name(new):
        return None
    return match["head"] + new + match["tail"], f"def {name} read as {new}"


def stutter(lines: list[str], error: ParseError) -> list[Proposal]:
    """`f(x))`: a closing bracket right after the same bracket, with nothing to close."""
    match = UNMATCHED.match(error.message)
    if not match:
        return []
    closer = match.group(1) or match.group(2)
    i, col = error.line - 1, error.column
    line = lines[i]
    if not (0 < col < len(line)) or line[col] != closer:
        return []
    if not line[:col].rstrip().endswith(closer):
        return []
    end = col
    while end < len(line) and line[end] == closer:
        end += 1  # the rest of the run closes nothing either
    text = line[:col] + line[end:]
    what = f"{closer!r} typed {end - col} more time{'s' if end - col > 1 else ''} than opened"
    return [({i: text}, Repair("brackets", error.line, error.line, what))]


def python2_print(lines: list[str], error: ParseError) -> list[Proposal]:
    if not error.message.startswith("Missing parentheses in call to 'print'"):
        return []
    i = error.line - 1
    match = PY2_PRINT.match(lines[i])
    if not match or match["rest"].endswith(","):
        return []  # `print x,` keeps the line open: no call says that
    text = f"{match['indent']}print({match['rest']})"
    return [({i: text}, Repair("print", error.line, error.line, "print statement read as a call"))]


def typographic_quotes(lines: list[str], error: ParseError) -> list[Proposal]:
    """‘text’ and “text” outside any string: the quotes a chat window typeset."""
    if not error.message.startswith("invalid character"):
        return []
    i = error.line - 1
    line = lines[i]
    if not any(c in line for c in CURLY):
        return []
    out: list[str] = []
    inside: str | None = None  # the straight quote of the string we are in
    escaped = False
    for c in line:
        if inside is not None:
            out.append(c)
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == inside:
                inside = None
            continue
        if c == "#":
            out.append(line[len(out) :])
            break
        if c in ("'", '"'):
            inside = c
        out.append(CURLY.get(c, c))
    text = "".join(out)
    if text == line:
        return []
    return [({i: text}, Repair("quotes", error.line, error.line, "typographic quotes as quotes"))]


def odd_whitespace(lines: list[str], error: ParseError) -> list[Proposal]:
    """No-break and em spaces pasted from a chat window: spaces in all but name."""
    if not error.message.startswith("invalid non-printable character"):
        return []
    i = error.line - 1
    line = lines[i]
    lead = indent_of(line)
    cleaned = ODD_SPACE.sub(" ", lead) + line[len(lead) :]
    col = error.column
    if 0 <= col < len(cleaned):
        c = cleaned[col]
        if ODD_SPACE.match(c):
            cleaned = cleaned[:col] + " " + cleaned[col + 1 :]
        elif c in ZERO_WIDTH:
            cleaned = cleaned[:col] + cleaned[col + 1 :]
    if cleaned == line:
        return []
    return [({i: cleaned}, Repair("whitespace", error.line, error.line, "unusual whitespace"))]


def missing_colon(lines: list[str], error: ParseError) -> list[Proposal]:
    """`if age > 65` over an indented block: the header lost its colon."""
    if error.message != "expected ':'":
        return []
    i = error.line - 1
    line = lines[i]
    after = next_code_line(lines, i)
    if not HEADER.match(line) or "#" in line or after is None:
        return []
    if len(indent_of(lines[after])) <= len(indent_of(line)):
        return []  # nothing indented under it: the line was cut, not a colon forgotten
    text = line.rstrip() + ":"
    return [({i: text}, Repair("colon", error.line, error.line, "missing ':' added"))]


def prose_lines(lines: list[str], error: ParseError) -> list[Proposal]:
    """An explanation written between lines of code: blanked, with the lines of prose after it."""
    i = error.line - 1
    if not reads_as_prose(lines[i]):
        return []
    last = i
    while last + 1 < len(lines) and reads_as_prose(lines[last + 1]):
        last += 1
    change = {j: "" for j in range(i, last + 1)}
    return [(change, Repair("prose", i + 1, last + 1, "prose between the code"))]
