"""Mending a broken line of an LLM answer the way a person reads it.

Each repair answers one syntax error with the one reading a person gives the line: a def name
written as a path, a bracket typed twice, a Python 2 print, typographic quotes, a docstring cut
at one end, a def glued onto a docstring, an explanation between lines of code. None of them
changes what the code does, and none adds or removes a line, so every line number stays the
answer's own. A line no repair can read is left to the caller, which drops it (and does not
run the function around it).
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
    "docstring": "a docstring cut at its start or its end",
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
GLUED_DEF = re.compile(
    r'^(?P<head>.*(?:"""|\'\'\'))[ \t]*(?P<tail>(?:async\s+)?def\s.*|class\s.*)$'
)
TRIPLE = re.compile(r"\"\"\"|'''")
DOCSTRING_OPEN = re.compile(r'^(?P<indent>\s*)[rRuU]?(?P<quote>"""|\'\'\')')
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
LOOKAHEAD = 60  # lines a docstring may run before its missing quotes


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def is_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def reads_as_prose(line: str) -> bool:
    """Whether a line that does not parse is an explanation in words, not broken code.

    Python never puts two plain words side by side outside strings, keywords aside; prose
    does so all the time. A line that starts with a keyword is taken for code.
    """
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


def opens_def(line: str) -> bool:
    """A def or class header, possibly glued after a docstring's closing quotes."""
    glued = GLUED_DEF.match(line)
    return bool(DEF_HEADER.match(glued["tail"] if glued else line))


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


def glued_def(lines: list[str], error: ParseError) -> list[Proposal]:
    """`    \"\"\"Doc.\"\"\"def other(x):`: the docstring moves up a line, the def keeps its own."""
    i = error.line - 1
    match = GLUED_DEF.match(lines[i])
    if not match:
        return []
    head, tail = match["head"], match["tail"]
    renamed = readable_def(tail)
    tail = renamed[0] if renamed else tail
    quote = head[-3:]
    doc = head.strip()
    whole_string = doc.count(quote) >= 2 and DOCSTRING_OPEN.match(doc) is not None
    above = previous_code_line(lines, i)
    heads: list[dict[int, str]] = []
    if above is not None:
        joiner = " " if not whole_string or lines[above].rstrip().endswith(":") else "; "
        heads.append({above: lines[above].rstrip() + joiner + doc})
    if whole_string:
        heads.append({})  # a string statement does nothing: it may go
    after = next_code_line(lines, i)
    limit = len(indent_of(lines[after])) if after is not None else 1 << 30
    owners = {indent_of(lines[j]) for j in range(i) if DEF_HEADER.match(lines[j])}
    indents = sorted(
        owners | {indent_of(lines[i]), ""},
        key=len,
        reverse=True,
    )
    proposals: list[Proposal] = []
    for moved in heads:
        for indent in indents:
            if len(indent) >= limit:
                continue
            change = {**moved, i: indent + tail}
            doc_went = "moved up a line" if moved else "left out (a string that does nothing)"
            what = f"a def glued onto a docstring put on its own line, the docstring {doc_went}"
            proposals.append((change, Repair("glued_def", error.line, error.line, what)))
    return proposals


def unclosed_docstring(lines: list[str], error: ParseError) -> list[Proposal]:
    """A docstring whose closing quotes were lost: it ends where the code starts again.

    The error shows where the lost docstring's string ends: at the end of the text
    (unterminated), or where a later docstring's opening quotes closed it and its words
    follow as code. So every docstring up to the error that opens without closing on its
    line is a candidate; the caller keeps the one that reads furthest."""
    proposals = []
    for i in range(error.line):
        proposal = close_docstring(lines, i)
        if proposal is not None:
            proposals.append(proposal)
    return proposals


def close_docstring(lines: list[str], i: int) -> Proposal | None:
    match = DOCSTRING_OPEN.match(lines[i])
    if not match:
        return None
    above = previous_code_line(lines, i)
    if above is not None and not opens_def(lines[above]):
        return None  # not a docstring: a string the code uses, which we must not reshape
    quote, indent = match["quote"], match["indent"]
    after_quote = lines[i][match.end() :]
    if quote in after_quote:
        return None
    closing = next((j for j in range(i + 1, len(lines)) if quote in lines[j]), None)
    if closing is not None and lines[closing].strip() == quote:
        if not swallows_def(lines, i, closing):
            return None  # closed on a line of its own: a docstring as it should be
    for j in range(i, min(len(lines), i + LOOKAHEAD)):
        k = next_code_line(lines, j)
        if k is None:
            break
        if indent_of(lines[k]) != indent or not CODE_LINE.match(lines[k]):
            continue
        if reads_as_prose(lines[k]) or j == i and not after_quote.strip():
            continue  # words, or an empty opening line: the docstring goes on
        end = lines[j].rstrip()
        sep = " " if end.endswith((quote[0], "\\")) else ""
        what = f"docstring closed before line {k + 1}"
        return ({j: end + sep + quote}, Repair("docstring", i + 1, j + 1, what))
    return None


def unopened_docstring(lines: list[str], error: ParseError) -> list[Proposal]:
    """Words under a def header, then a lone closing quote: the opening quotes were lost.

    The parser stops at the first line of words; or the tokenizer stops first, at the lone
    quote, which it takes for an opening one, or at a later quote that quote got paired
    with. So the lone quotes up to the error, and the first below a line of words the error
    is at, are candidates."""
    i = error.line - 1
    closes = [c for c in range(error.line) if lone_closing_quote(lines[c])]
    if i > 0 and (above := previous_code_line(lines, i)) is not None and opens_def(lines[above]):
        below = next((c for c in range(i + 1, len(lines)) if TRIPLE.search(lines[c])), None)
        if below is not None and below - i < LOOKAHEAD:
            closes.append(below)
    proposals = []
    for close in closes:
        header = previous_code_line(lines, close)
        while header is not None and not opens_def(lines[header]) and close - header < LOOKAHEAD:
            header = previous_code_line(lines, header)
        if header is None or not opens_def(lines[header]):
            continue
        proposal = open_docstring(lines, header, close)
        if proposal is not None:
            proposals.append(proposal)
    return proposals


def swallows_def(lines: Sequence[str], opener: int, closer: int) -> bool:
    """Whether the string from `opener` to `closer` holds a def less indented than itself:
    its quotes were paired with another docstring's, and it hides code."""
    margin = len(indent_of(lines[opener]))
    return any(
        DEF_HEADER.match(lines[j]) and len(indent_of(lines[j])) < margin
        for j in range(opener + 1, closer)
    )


def lone_closing_quote(line: str) -> bool:
    found = TRIPLE.search(line)
    return (
        found is not None
        and line.count(found.group()) == 1
        and line.rstrip().endswith(found.group())
    )


def open_docstring(lines: list[str], header: int, close: int) -> Proposal | None:
    """Opening quotes for the words between a def header and a lone closing quote."""
    first = next_code_line(lines, header)
    if first is None or first >= close or not lone_closing_quote(lines[close]):
        return None
    for j in range(first, close):
        if TRIPLE.search(lines[j]) or CODE_LINE.match(lines[j]) and not reads_as_prose(lines[j]):
            return None  # code among the words: quoting it would hide code
    quote = TRIPLE.search(lines[close])
    assert quote is not None
    text = indent_of(lines[first]) + quote.group() + lines[first].lstrip()
    what = "docstring opened where its words start"
    return ({first: text}, Repair("docstring", first + 1, close + 1, what))


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
