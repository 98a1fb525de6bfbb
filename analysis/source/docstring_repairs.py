"""Reading docstrings an LLM answer broke: cut at the start or the end, or with a def glued
onto their closing line.

A lost quote makes the parser pair the quotes that are left the wrong way, so it complains
far from the cause: at the end of the text, or where a later docstring's words come out as
code. These repairs therefore propose every docstring that could be the cause; the caller
keeps the reading that gets the parser furthest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from analysis.source.line_repairs import (
    CODE_LINE,
    DEF_HEADER,
    TRIPLE,
    ParseError,
    Proposal,
    Repair,
    indent_of,
    next_code_line,
    previous_code_line,
    readable_def,
    reads_as_prose,
)

GLUED_DEF = re.compile(
    r'^(?P<head>.*(?:"""|\'\'\'))[ \t]*(?P<tail>(?:async\s+)?def\s.*|class\s.*)$'
)
DOCSTRING_OPEN = re.compile(r'^(?P<indent>\s*)[rRuU]?(?P<quote>"""|\'\'\')')
LOOKAHEAD = 60  # lines a docstring may run before its missing quotes


def opens_def(line: str) -> bool:
    """A def or class header, possibly glued after a docstring's closing quotes."""
    glued = GLUED_DEF.match(line)
    return bool(DEF_HEADER.match(glued["tail"] if glued else line))


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
