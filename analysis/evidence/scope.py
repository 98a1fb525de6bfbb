"""Which functions a recording run records: those the search needs the project's own calls
for. A function with protected inputs (its calls build the person as the project does);
one whose inputs the builder cannot see into (a record read by keys held elsewhere, a
parameter of no known kind, nothing in the code says what it holds), since a person may
sit inside. Never a test, never a function without parameters.
"""

from __future__ import annotations

import ast

from analysis.evidence.calls import FunctionKey
from analysis.evidence.recording import RecordingTarget
from analysis.functions import FunctionInfo
from analysis.inputs import InputModel, Param
from analysis.missing_fields import has_opaque_record

# Annotations that say a parameter holds a plain value: no person inside.
PLAIN_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "bytes", "complex", "None"})


def wanted(info: FunctionInfo, model: InputModel) -> bool:
    """Whether calls of `info` (whose synthesised model is `model`) are worth recording."""
    if not model.params:
        return False
    if model.protected or has_opaque_record(model):
        return True
    annotations = {arg.arg: arg.annotation for arg in all_arguments(info.node)}
    return any(opaque(param, annotations.get(param.name)) for param in model.params)


def opaque(param: Param, annotation: ast.expr | None) -> bool:
    """A parameter the builder knows nothing of: a bare leaf whose pool owes nothing to the
    code, not annotated as a plain value."""
    leaf = param.shape.leaf
    if param.shape.kind != "leaf" or leaf is None or leaf.from_code:
        return False
    if isinstance(annotation, ast.Name) and annotation.id in PLAIN_ANNOTATIONS:
        return False
    return not (isinstance(annotation, ast.Constant) and annotation.value is None)


def all_arguments(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    args = fn.args
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def recording_target(file: str, info: FunctionInfo) -> RecordingTarget:
    """How the child knows the function: its code's name and first line."""
    lines = tuple(sorted({info.first_line, info.line}))
    return RecordingTarget(FunctionKey(file, info.qualname), info.name, lines)
