"""The code examples of the project's documentation, as an entry point of the recording.

A package with no tests and no demo still shows how to call it: its README's usage section
(`kfre_person(age=57.28, is_male=False, ...)`, a DataFrame built and handed to
`add_kfre_risk_col`), its docs' pages. Those calls carry realistic values, a person's among
them. Found here, read on the host only as text: the fenced Python blocks of Markdown
(```python, ```py, ```pycon, ```ipython), the `.. code-block:: python` (and `.. code::`,
`.. sourcecode::`) blocks of reStructuredText, and doctest prompts (`>>> `) in either; of the
README at the project's root (or the sdist's PKG-INFO when there is none) and of the pages
under `docs/`. A document's blocks are kept when one of them names a module being scanned
(its first or last dotted part) or a public function recorded, all of them then, in order:
a later block uses what an earlier one built, as a reader running them would.

The recorder (harness/recorder.py `run_examples`) runs one document's blocks in one
namespace, after importing everything the scanned packages export (a README's block often
calls `kfre_person` without importing it) and pandas and numpy as `pd` and `np` where they
import; a block that raises is counted and the next one runs. A call is named by its
document and line (`README.md example (line 42)`). IPython lines (`%timeit`, `!pip`) are
left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from analysis.scan.project import SKIP_DIRS, Project

MAX_DOC_BYTES = 300_000
MAX_DOCS = 30
MAX_BLOCKS = 200  # of all documents
MAX_CODE = 200_000  # characters of all blocks
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)[ \t]*\{?\.?(?P<info>[\w+-]*)")
PYTHON_INFO = frozenset({"python", "py", "python3", "pycon", "ipython", "ipython3", "pyodide"})
RST_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. (code-block|code|sourcecode)::[ \t]*(\w*)")
PROMPT = re.compile(r"^[ \t]*(>>>|\.\.\.)( |$)")
WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Block:
    document: str  # relative to the project
    line: int  # of its first line of code
    code: str

    @property
    def label(self) -> str:
        return f"{self.document} example (line {self.line})"


def documentation_examples(project: Project, modules: set[str], functions: set[str]) -> list[Block]:
    """The blocks of the project's documents one of which names one of `modules` (dotted
    names) or of `functions` (names; private ones do not count)."""
    names = {part for module in modules for part in (module.split(".")[0], module.split(".")[-1])}
    names |= {name for name in functions if not name.startswith("_")}
    blocks: list[Block] = []
    size = 0
    for relative in documents(project.root):
        try:
            text = (project.root / relative).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = python_blocks(relative, text)
        if not any(names & set(WORD.findall(block.code)) for block in found):
            continue
        for block in found:
            size += len(block.code)
            if len(blocks) >= MAX_BLOCKS or size > MAX_CODE:
                return blocks
            blocks.append(block)
    return blocks


def documents(root: Path) -> list[str]:
    """The README at the root (the sdist's PKG-INFO when there is none), then `docs/` pages."""
    readmes = sorted(
        p.name for p in root.iterdir() if p.is_file() and p.name.lower().startswith("readme")
    ) if root.is_dir() else []  # fmt: skip
    if not readmes and (root / "PKG-INFO").is_file():
        readmes = ["PKG-INFO"]
    pages = []
    docs = root / "docs"
    if docs.is_dir():
        for path in sorted(docs.rglob("*")):
            parts = path.relative_to(root).parts
            if any(part in SKIP_DIRS or part.startswith(".") for part in parts[:-1]):
                continue
            if path.suffix.lower() in (".md", ".rst", ".txt") and path.is_file():
                pages.append(path.relative_to(root).as_posix())
    chosen = [r for r in [*readmes, *pages] if small(root / r)]
    return chosen[:MAX_DOCS]


def small(path: Path) -> bool:
    try:
        return path.stat().st_size <= MAX_DOC_BYTES
    except OSError:
        return False


def python_blocks(document: str, text: str) -> list[Block]:
    """The Python blocks of a document, in order, as code to run."""
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        directive = RST_DIRECTIVE.match(lines[index])
        if fence is not None:
            end = closing_fence(lines, index, fence.group("fence"))
            body = lines[index + 1 : end]
            info = fence.group("info").lower()
            if info in PYTHON_INFO or (not info and any(PROMPT.match(line) for line in body)):
                add(blocks, document, index + 2, body, fence.group("indent"))
            index = end + 1
        elif directive is not None and directive.group(3).lower() in ("", *PYTHON_INFO):
            start, end = indented_body(lines, index, directive.group("indent"))
            add(blocks, document, start + 1, lines[start:end], None)
            index = end
        else:
            index += 1
    return blocks


def closing_fence(lines: list[str], start: int, fence: str) -> int:
    for index in range(start + 1, len(lines)):
        line = lines[index].strip()
        if line.startswith(fence[:3]) and line.strip(fence[0]) == "":
            return index
    return len(lines)


def indented_body(lines: list[str], start: int, indent: str) -> tuple[int, int]:
    """The lines of a reStructuredText directive's body: after its options and a blank
    line, those indented deeper than the directive."""
    index = start + 1
    while index < len(lines) and lines[index].strip().startswith(":"):
        index += 1  # the directive's options
    first = index
    while index < len(lines) and (
        not lines[index].strip() or len(lines[index]) - len(lines[index].lstrip()) > len(indent)
    ):
        index += 1
    return first, index


def add(blocks: list[Block], document: str, line: int, body: list[str], indent: str | None) -> None:
    code = as_code(body, indent)
    if code.strip():
        blocks.append(Block(document, line, code))


def as_code(body: list[str], indent: str | None) -> str:
    """A block's lines as a program: doctest prompts taken off (their outputs left out),
    the block's indentation taken off, IPython's `%` and `!` lines left out."""
    if any(line.lstrip().startswith(">>>") for line in body):
        code = [PROMPT.sub("", line, count=1) for line in body if PROMPT.match(line)]
        return "\n".join(line for line in code if not line.startswith(("%", "!"))) + "\n"
    if indent is None:  # a reStructuredText body: as indented as its first line
        depths = [len(line) - len(line.lstrip()) for line in body if line.strip()]
        cut = min(depths, default=0)
    else:
        cut = len(indent)
    kept = [line[cut:] if line[:cut].strip() == "" else line.lstrip() for line in body]
    return "\n".join(line for line in kept if not line.lstrip().startswith(("%", "!"))) + "\n"
