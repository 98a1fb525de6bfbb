"""What a function's docstring says each parameter is: `x: the age as integer number`.

Actuarial and scientific code names parameters by notation (`qx(mt, x)`, `d`, `v`) and says
in the docstring what they hold. The first clause of a parameter's description, in the styles
Python code uses (Google `x (int): ...`, Sphinx `:param x: ...`, numpy `x : int` with the
description indented below, `x -- ...`), is read like a name: "the age as integer number"
carries the age category as `applicant_age` would.
"""

from __future__ import annotations

import ast
import re

from analysis.caches import Cache
from analysis.source.functions import parameter_defaults

# A description's first clause, and at most this many words of it.
MAX_WORDS = 8
MAX_LINE = 400
CLAUSE_END = re.compile(r"[.;,(]|\s-\s")


def param_descriptions(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Each documented parameter's description (its first clause), by parameter name. Prose
    that calls a parameter an age ("survivors at age x", "a life aged x") describes it too."""
    declared = declared_descriptions(fn)
    doc = ast.get_docstring(fn, clean=True)
    if not doc:
        return declared
    args = fn.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    lines = doc.splitlines()
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        for name in names - set(found):
            text = described(name, line, lines[i + 1] if i + 1 < len(lines) else "")
            if text:
                found[name] = first_clause(text)
    for name in names - set(found):
        if re.search(rf"\b(?:age|aged)\s+{re.escape(name)}\b", doc, flags=re.IGNORECASE):
            found[name] = "age"
    return {**declared, **{name: text for name, text in found.items() if text}}


# Keywords of a parameter's declared metadata that describe it: typer's and click's `help=`,
# pydantic's and FastAPI's `description=` and `title=`.
DESCRIBING = ("help", "description", "title")


def declared_descriptions(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """What a parameter's declaration says it is, beside its type: `s: Annotated[str,
    typer.Option("--sex", help="the patient's sex")]`, `x: int = Query(description="age in
    years")`, `Field(title=...)`. The option's own name (`--sex`) describes it when no
    help does."""
    args = fn.args
    defaults = {arg.arg: default for arg, default in parameter_defaults(fn)}
    found: dict[str, str] = {}
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        calls = [*metadata_calls(arg.annotation), *metadata_calls(defaults.get(arg.arg))]
        for call in calls:
            text = described_by(call)
            if text:
                found[arg.arg] = first_clause(text)
                break
    return found


def metadata_calls(node: ast.expr | None) -> list[ast.Call]:
    """The calls declaring a parameter: the default itself, or the metadata of `Annotated`."""
    if isinstance(node, ast.Call):
        return [node]
    if (
        isinstance(node, ast.Subscript)
        and (getattr(node.value, "id", None) or getattr(node.value, "attr", None)) == "Annotated"
        and isinstance(node.slice, ast.Tuple)
    ):
        return [m for m in node.slice.elts[1:] if isinstance(m, ast.Call)]
    return []


def described_by(call: ast.Call) -> str | None:
    """The description a declaring call gives (its `help=`, ...), else its option's long name
    (`"--sex"`: "sex")."""
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg in DESCRIBING and isinstance(value, ast.Constant):
            if isinstance(value.value, str) and len(value.value) <= MAX_LINE:
                return value.value
    flags = [
        a.value
        for a in call.args
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")
    ]
    return flags[0][2:].replace("-", " ") if flags else None


def module_descriptions(tree: ast.Module) -> dict[str, str]:
    """What the module's docstrings say each parameter name holds, wherever it is documented:
    `x` documented as "the age" in one function of an actuarial module is the age in all."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for name, text in param_descriptions(node).items():
                found.setdefault(name, text)
    return found


# A parameter documented as a yes/no value: `- is_male (bool): ...`, `:type x: bool`,
# numpy's `x : bool, optional`.
DOCUMENTED_BOOL = re.compile(
    r"\s*(?:[-*•]\s+)?\**(\w+)\s*\(\s*bool(?:ean)?\b[^)]*\)\s*:"
    r"|\s*:type\s+(\w+)\s*:\s*bool(?:ean)?\b"
    r"|\s*(\w+)\s*:\s*bool(?:ean)?\s*(?:,\s*optional)?\s*$"
)

# The module's `documented_flags`, kept by the builder for its leaves.
DOCUMENTED_FLAGS: Cache[None, set[str]] = Cache("documented flags")


def documented_flags(tree: ast.Module) -> set[str]:
    """Parameter names the module's docstrings document as booleans: `is_north_american
    (bool)` is a flag, whatever the code compares it with."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=True) or ""
            for line in doc.splitlines():
                match = DOCUMENTED_BOOL.match(line) if len(line) <= MAX_LINE else None
                if match:
                    found.add(next(g for g in match.groups() if g))
    return found


def described(name: str, line: str, following: str) -> str | None:
    """The description `line` gives parameter `name`, if it documents it."""
    if len(line) > MAX_LINE or len(following) > MAX_LINE:
        return None  # no parameter is documented so; and a hostile line costs nothing
    escaped = re.escape(name)
    sphinx = re.match(rf"\s*:param\s+(?:[\w\[\], .|]+\s+)?{escaped}\s*:\s*(.*)$", line)
    if sphinx:
        return sphinx[1]
    google = re.match(
        rf"\s*(?:[-*•]\s+)?\**{escaped}\s*(?:\([^)]*\)\s*)?(?::|--|—|-|=)\s*(.*)$", line
    )  # `x (int): ...`, also as a bullet: `- x (int): ...`
    if google:
        text = google[1].strip()
        # numpy style: `x : int` alone, the description indented below it
        if NUMPY_TYPE.fullmatch(text) and indent(following) > indent(line):
            return following.strip()
        return text
    return None


NUMPY_TYPE = re.compile(r"([\w\[\].|]+(\s+or\s+[\w\[\].|]+)*(,\s*optional)?)?")


def indent(line: str) -> int:
    return len(line) - len(line.lstrip()) if line.strip() else -1


def first_clause(text: str) -> str:
    clause = CLAUSE_END.split(text.strip(), maxsplit=1)[0]
    return " ".join(clause.split()[:MAX_WORDS])
