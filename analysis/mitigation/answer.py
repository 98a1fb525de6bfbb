"""Reading a model's answer: the new function, or a clear reason why there is none.

An answer is usable when it holds Python that parses, defines the function under the same
name with the same parameters (names, kinds, order, defaults) and decorators, and adds
nothing at module level but imports (restating the module's own code is tolerated).
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field

from analysis.errors import CodebiasError
from analysis.source.functions import FunctionInfo
from analysis.source.reading import extract_code, fenced_blocks, repair_code

PYTHON_FENCES = ("", "python", "py", "python3")
IGNORE_MARK = re.compile(r"#\s*codebias:\s*ignore", re.IGNORECASE)


class AnswerRejected(CodebiasError):
    """The answer cannot be used; `reason` says why in words the model can act on."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Candidate:
    function_source: str  # the definition, decorators included, at column 0
    imports: list[str] = field(default_factory=list)  # import statements to add to the module


def extract_function(
    answer: str, original: FunctionInfo, module: ast.Module, original_source: str = ""
) -> Candidate:
    """The replacement for `original` (whose text is `original_source`) that `answer`
    proposes; AnswerRejected otherwise."""
    name = original.name
    code = _code_of(answer, name)
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        # Read as a person would (a def name written as a path, a doubled bracket...), but
        # only whole: a fix that lost a line is not the fix the model proposed.
        repaired = repair_code(code)
        if repaired is None:
            raise AnswerRejected(
                f"the code does not parse (line {exc.lineno}: {exc.msg})"
            ) from None
        code, tree = repaired, ast.parse(repaired)
    node = _find_definition(tree, original)
    _check_signature(node, original)
    imports = _extra_statements(tree, node, original, module)
    source = _definition_source(code, node)
    if IGNORE_MARK.search(source) and not IGNORE_MARK.search(original_source):
        # Accepting a finding is a reviewer's decision, never the model's.
        raise AnswerRejected(
            "the answer adds a `codebias: ignore` comment; remove the bias instead"
        )
    if not node.decorator_list and original.node.decorator_list:
        # A method quoted without its @staticmethod/@property is still the same method.
        decorators = "".join(f"@{ast.unparse(d)}\n" for d in original.node.decorator_list)
        source = decorators + source
    return Candidate(source, imports)


def _code_of(answer: str, name: str) -> str:
    blocks = [body for lang, body in fenced_blocks(answer) if lang in PYTHON_FENCES]
    # Several blocks (a sketch, then the function; or the function, then a usage example):
    # the last one that parses and defines the function is the answer.
    for body in reversed(blocks):
        if _defines(body, name):
            return body
    if blocks:
        return blocks[-1]
    code = extract_code(answer)
    starts = ("def ", "async def ", "class ", "@")
    if code is answer or not any(line.lstrip().startswith(starts) for line in code.splitlines()):
        raise AnswerRejected("the answer holds no code, only prose")
    if not _defines(code, name):
        # Unfenced code followed by prose: the longest run of lines that defines the function.
        lines = code.splitlines()
        for end in range(len(lines) - 1, 0, -1):
            head = "\n".join(lines[:end]) + "\n"
            if _defines(head, name):
                return head
    return code


def _defines(code: str, name: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
        for n in ast.walk(tree)
    )


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _find_definition(tree: ast.Module, original: FunctionInfo) -> FunctionNode:
    name = original.name
    owner = original.owner.name if original.owner is not None else None
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
    if owner is not None:
        # The whole class quoted back: take the method out of it.
        for stmt in tree.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == owner:
                for inner in stmt.body:
                    if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        if inner.name == name:
                            return inner
    defined = [
        n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    if defined:
        raise AnswerRejected(
            f"the answer defines {', '.join(f'`{d}`' for d in defined)} but not `{name}`"
        )
    raise AnswerRejected(f"the answer does not define the function `{name}`")


def signature_text(node: FunctionNode) -> str:
    """Parameters as callers see them: names, kinds, order and defaults (not annotations)."""
    args = node.args
    parts: list[str] = []
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += list(args.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        parts.append(arg.arg if default is None else f"{arg.arg}={ast.unparse(default)}")
        if args.posonlyargs and i == len(args.posonlyargs) - 1:
            parts.append("/")
    if args.vararg is not None:
        parts.append(f"*{args.vararg.arg}")
    elif args.kwonlyargs:
        parts.append("*")
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        parts.append(arg.arg if kw_default is None else f"{arg.arg}={ast.unparse(kw_default)}")
    if args.kwarg is not None:
        parts.append(f"**{args.kwarg.arg}")
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{prefix} {node.name}({', '.join(parts)})"


def _check_signature(node: FunctionNode, original: FunctionInfo) -> None:
    before, after = signature_text(original.node), signature_text(node)
    if before != after:
        raise AnswerRejected(f"the signature changed from `{before}` to `{after}`")
    if node.decorator_list:
        old = [ast.unparse(d) for d in original.node.decorator_list]
        new = [ast.unparse(d) for d in node.decorator_list]
        if old != new:
            raise AnswerRejected(
                f"the decorators changed from {old or 'none'} to {new}; keep them as they were"
            )


def _extra_statements(
    tree: ast.Module, node: FunctionNode, original: FunctionInfo, module: ast.Module
) -> list[str]:
    """Imports the answer adds; anything else new at module level is refused."""
    known = {ast.dump(stmt) for stmt in module.body}
    imports: list[str] = []
    owner = original.owner.name if original.owner is not None else None
    for stmt in tree.body:
        if stmt is node:
            continue
        if isinstance(stmt, ast.ClassDef) and stmt.name == owner and node in stmt.body:
            continue  # the class the method was quoted in; only the method is taken
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if ast.dump(stmt) not in known and not _is_future(stmt):
                imports.append(ast.unparse(stmt))
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a stray string or docstring
        if ast.dump(stmt) in known:
            continue  # the module's own code quoted back unchanged
        what = _describe(stmt)
        raise AnswerRejected(
            f"the answer adds {what} outside `{original.name}`; keep every change inside it"
        )
    return imports


def _is_future(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"


def _describe(stmt: ast.stmt) -> str:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return f"`{stmt.name}`"
    first = ast.unparse(stmt).splitlines()[0]
    return f"`{first[:60]}`"


def _definition_source(code: str, node: FunctionNode) -> str:
    lines = code.splitlines()
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    return textwrap.dedent("\n".join(lines[first - 1 : end])) + "\n"
