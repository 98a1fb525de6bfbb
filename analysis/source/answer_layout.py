"""Where the code is in a language model's answer.

Answers wrap code in prose and fences (```python, ~~~, LaTeX's \\begin{code}), sometimes
unbalanced: a fence never closed, a closing fence with no opening one, a fence glued to the
last line of code. Base models continue a prompt from inside a docstring, so their answer
starts with the rest of that docstring and its closing quotes. `lay_out` keeps the code where
it is and blanks the rest, so the answer keeps its line count and every line number reported
is the answer's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from analysis.source.line_repairs import TRIPLE, Repair, indent_of, reads_as_prose

FENCE_LINE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})(?P<info>[^`]*)$")
TRAILING_FENCE = re.compile(r"^(?P<text>.*\S)[ \t]*`{3,}(?P<info>[\w+#.-]*)[ \t]*$")
LATEX_BEGIN, LATEX_END = "\\begin{code}", "\\end{code}"
PYTHON_LANGS = frozenset({"python", "py", "python3", "py3", "ipython", "ipython3", "latex-code"})
CODE_START = re.compile(
    r"^[ \t]*(?:def |async def |class |import |from \S+ import |@\w|if __name__"
    r"|[A-Za-z_][\w.]*(?:\[[^\]]*\])? *(?:[-+*/%]|//|\*\*)?= *[^=\s])"
)
END_TOKEN = re.compile(r"<\|(?:endoftext|im_end|end|eot_id|end_of_text)\|>|</s>|<EOS>|<eos>")
START_TOKEN = re.compile(r"^\s*(?:<s>|<\|startoftext\|>|<\|begin_of_text\|>|<BOS>|<bos>)")
DEF_OR_CLASS = re.compile(r"^\s*(?:async\s+def|def|class)\s")
# Code that opens a string with the quotes that follow it: `x = """`, `f("""`, `return r"""`.
STRING_USE = re.compile(r"(?:[=(,\[{+]|\breturn|\byield)\s*[rRbBuUfF]{0,2}$|^\s*[rRbBuUfF]{1,2}$")


@dataclass
class Segment:
    """A run of lines between fences; `lang` is None outside any fence."""

    lang: str | None
    lines: list[int] = field(default_factory=list)

    @property
    def fenced(self) -> bool:
        return self.lang is not None


@dataclass
class Layout:
    lines: list[str]
    repairs: list[Repair] = field(default_factory=list)
    code: list[int] = field(default_factory=list)  # indices of the lines kept as code
    _blanked: dict[str, set[int]] = field(default_factory=dict)

    def blank(self, index: int, kind: str) -> None:
        if self.lines[index].strip():
            self._blanked.setdefault(kind, set()).add(index)
        self.lines[index] = ""

    def report(self) -> None:
        """One repair per run of blanked lines, blank lines between them included."""
        words = {"fences": "fence or code marker", "prose": "prose"}
        for kind, indices in self._blanked.items():
            runs: list[list[int]] = []
            for i in sorted(indices):
                if runs and all(not self.lines[j].strip() for j in range(runs[-1][-1] + 1, i)):
                    runs[-1].append(i)
                else:
                    runs.append([i])
            for run in runs:
                what = f"{words.get(kind, kind)} around the code left out"
                if kind == "prompt_docstring":
                    what = "the end of a docstring opened before the answer began, left out"
                self.repairs.append(Repair(kind, run[0] + 1, run[-1] + 1, what))
        self.repairs.sort(key=lambda r: r.first)


def lay_out(lines: list[str]) -> Layout:
    """Blank what is not code (in place on a copy); the result lists what was left out."""
    layout = Layout(list(lines))
    cut_at_end_token(layout)
    segments = split_at_fences(layout)
    for segment in segments:
        if not segment.lines:
            continue
        lang = segment.lang
        if lang is not None and (
            lang in PYTHON_LANGS or (lang == "" and looks_like_code(layout, segment))
        ):
            dedent(layout, segment.lines)
            layout.code += segment.lines
        elif lang is None and (len(segments) == 1 or looks_like_code(layout, segment)):
            layout.code += unfenced_code(layout, segment.lines)
        else:
            for i in segment.lines:
                layout.blank(i, "prose")
    layout.report()
    return layout


def cut_at_end_token(layout: Layout) -> None:
    """A model's end-of-text token ends its answer; what follows it is not the answer. A
    start token before the answer is not part of it either."""
    lines = layout.lines
    for i, line in enumerate(lines):
        if i == 0 or not lines[i - 1].strip():
            start = START_TOKEN.match(line)
            if start and all(not lines[j].strip() for j in range(i)):
                lines[i] = line[start.end() :]
        end = END_TOKEN.search(lines[i])
        if end is None:
            continue
        lines[i] = lines[i][: end.start()]
        layout.repairs.append(
            Repair("end_token", i + 1, len(lines), "the text after the end-of-text token left out")
        )
        for j in range(i + 1, len(lines)):
            lines[j] = ""
        return


def split_at_fences(layout: Layout) -> list[Segment]:
    """Segments between fence lines; fence lines are blanked. A fence with a language always
    opens a block; a bare one closes the open block, or opens one."""
    current = Segment(None)
    segments = [current]

    def start(lang: str | None) -> Segment:
        segment = Segment(lang)
        segments.append(segment)
        return segment

    for i, line in enumerate(layout.lines):
        fence = FENCE_LINE.match(line)
        if fence:
            lang = language(fence["info"])
            layout.blank(i, "fences")
            current = start(lang if lang or not current.fenced else None)
            continue
        if LATEX_BEGIN in line:
            layout.blank(i, "fences")
            current = start("latex-code")
            continue
        if LATEX_END in line:
            kept = line[: line.index(LATEX_END)]
            if kept.strip() and current.fenced:
                layout.lines[i] = kept
                layout.repairs.append(Repair("fences", i + 1, i + 1, "a code marker left out"))
                current.lines.append(i)
            else:
                layout.blank(i, "fences")  # the marker's line, so that its leaving is said
            current = start(None)
            continue
        trailing = TRAILING_FENCE.match(line)
        if trailing and current.fenced:
            # The closing fence glued to the last line of code.
            layout.lines[i] = line[: trailing.end("text")]
            layout.repairs.append(Repair("fences", i + 1, i + 1, "a fence after the code left out"))
            current.lines.append(i)
            current = start(None)
            continue
        if trailing:
            layout.blank(i, "prose")  # "Here it is: ```python"
            current = start(language(trailing["info"]))
            continue
        current.lines.append(i)
    return segments


def language(info: str) -> str:
    words = info.strip().lower().split()
    return words[0].strip("{}.") if words else ""


def looks_like_code(layout: Layout, segment: Segment) -> bool:
    return any(
        CODE_START.match(layout.lines[i]) and not reads_as_prose(layout.lines[i])
        for i in segment.lines
    )


def unfenced_code(layout: Layout, indices: list[int]) -> list[int]:
    """Code outside fences starts at its first line of code; what comes before is prose, or
    the rest of a docstring the answer began inside of."""
    lines = layout.lines
    start = 0
    closer = docstring_remainder(lines, indices)
    if closer is not None:
        at, end = closer
        for i in indices[:at]:
            layout.blank(i, "prompt_docstring")
        rest = lines[indices[at]][end:]
        if CODE_START.match(rest.lstrip()):
            lines[indices[at]] = rest.lstrip()
            layout._blanked.setdefault("prompt_docstring", set()).add(indices[at])
            start = at
        else:
            layout.blank(indices[at], "prompt_docstring")
            start = at + 1
    first = next(
        (
            k
            for k in range(start, len(indices))
            if CODE_START.match(lines[indices[k]]) and not reads_as_prose(lines[indices[k]])
        ),
        None,
    )
    if first is None:
        for i in indices[start:]:
            layout.blank(i, "prose")
        return []
    for i in indices[start:first]:
        layout.blank(i, "prose")
    code = indices[first:]
    margin = indent_of(lines[code[0]])
    if margin and all(
        lines[i].startswith(margin) or not lines[i].strip() or reads_as_prose(lines[i])
        for i in code
    ):
        dedent(layout, code, margin)
    return code


def docstring_remainder(lines: list[str], indices: list[int]) -> tuple[int, int] | None:
    """(position in `indices`, column after the quotes) of the quotes that close a docstring
    opened before the answer began; None when the answer does not start inside one.

    The first triple quote closes such a docstring when no def or class comes before it (so
    it is not theirs), no code before it on its line opens a string with it, and either it
    occurs an odd number of times (one is left without its pair) or nothing before it reads
    as code and it does not close again on its own line."""
    code_before = False
    for k, i in enumerate(indices):
        line = lines[i]
        if DEF_OR_CLASS.match(line):
            return None
        found = TRIPLE.search(line)
        if found is None:
            code_before = code_before or bool(CODE_START.match(line))
            continue
        before = line[: found.start()].rstrip()
        if STRING_USE.search(before):
            return None
        quote = found.group()
        count = sum(lines[j].count(quote) for j in indices[k:])
        alone = quote not in line[found.end() :]
        return (k, found.end()) if count % 2 == 1 or (alone and not code_before) else None
    return None


def dedent(layout: Layout, indices: list[int], margin: str | None = None) -> None:
    """Code indented as a whole (inside a list item, or quoted) read from its own margin."""
    lines = layout.lines
    if margin is None:
        margins = [indent_of(lines[i]) for i in indices if lines[i].strip()]
        margin = min(margins, key=len) if margins else ""
        if not margin or not all(lines[i].startswith(margin) for i in indices if lines[i].strip()):
            return
    moved = [i for i in indices if lines[i].startswith(margin) and lines[i].strip()]
    for i in moved:
        lines[i] = lines[i][len(margin) :]
    if moved:
        layout.repairs.append(
            Repair("indentation", moved[0] + 1, moved[-1] + 1, "code read from its own left margin")
        )
