"""The objects a class keeps on `self` and whose methods it calls: its components.

`self.scorer = Scorer()` in `__init__` (or `self.scorer = scorer` of a parameter annotated
`Scorer`, or a class-level `scorer: Scorer`) makes `self.scorer.score(applicant)` a call of
`Scorer.score`: a service that hands the applicant to its scorer hands it the fields the
scorer reads, as `self._score(applicant)` would. Each is indexed among the module's
functions as `self.scorer.score` (analysis/source/functions.py called_function).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from analysis.source.functions import FunctionNode, lineage


def class_named(
    annotation: ast.expr | None, classes: dict[str, ast.ClassDef]
) -> ast.ClassDef | None:
    """The class of the project an annotation names: `Applicant`, `"Applicant"`,
    `models.Applicant`, `Applicant | None`, `Optional[Applicant]`, `"Optional[models.Sex]"`."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        text = annotation.value.strip().strip("'\"")
        try:
            quoted = ast.parse(text, mode="eval").body
        except SyntaxError:
            quoted = None
        if isinstance(quoted, (ast.Name, ast.Attribute, ast.BinOp, ast.Subscript)):
            found = class_named(quoted, classes)
            if found is not None:
                return found
        return classes.get(text.split(".")[-1])
    if isinstance(annotation, ast.Name):
        return classes.get(annotation.id)
    if isinstance(annotation, ast.Attribute):  # `League.Level`, `models.Applicant`
        # Through its module (`from . import models`) first: the same name may be another
        # class here.
        return classes.get(ast.unparse(annotation)) or classes.get(annotation.attr)
    if isinstance(annotation, ast.BinOp):
        return class_named(annotation.left, classes) or class_named(annotation.right, classes)
    if isinstance(annotation, ast.Subscript):
        base = getattr(annotation.value, "id", "")
        if base == "Optional":
            return class_named(annotation.slice, classes)
    return None


def component_methods(
    tree: ast.Module, classes: dict[str, ast.ClassDef]
) -> dict[str, FunctionNode]:
    """`self.<attribute>.<method>` -> the method, for every component of the module's classes
    whose class the project defines (an attribute set to two classes is left out), and
    `<name>.<method>` for the names bound to an instance (`instances`)."""
    found: dict[str, FunctionNode] = {}
    for name, cls in instances(tree, classes).items():
        for method in methods(cls, classes):
            found.setdefault(f"{name}.{method.name}", method)
    for owner in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        kept: dict[str, set[int]] = {}
        parts: dict[str, ast.ClassDef] = {}
        for attribute, cls in components(owner, classes):
            kept.setdefault(attribute, set()).add(id(cls))
            parts[attribute] = cls
        for attribute, cls in parts.items():
            if len(kept[attribute]) != 1:
                continue
            for method in methods(cls, classes):
                found.setdefault(f"self.{attribute}.{method.name}", method)
    return found


def instances(tree: ast.Module, classes: dict[str, ast.ClassDef]) -> dict[str, ast.ClassDef]:
    """Names the module binds to an instance of one project class, at its top or in a
    function (`SCORER = Scorer()`, `scorer = Scorer(weights)`): `scorer.score(applicant)`
    calls `Scorer.score`. A name bound to two classes is left out."""
    bound: dict[str, set[int]] = {}
    kept: dict[str, ast.ClassDef] = {}
    for node in ast.walk(tree):
        target, value = assigned(node)
        if isinstance(target, ast.Name) and isinstance(value, ast.Call):
            cls = class_named(value.func, classes)
            if cls is not None:
                bound.setdefault(target.id, set()).add(id(cls))
                kept[target.id] = cls
    return {name: cls for name, cls in kept.items() if len(bound[name]) == 1}


def components(
    owner: ast.ClassDef, classes: dict[str, ast.ClassDef]
) -> Iterator[tuple[str, ast.ClassDef]]:
    """The attributes of `owner` that hold an instance of a project class, with the class."""
    for stmt in owner.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            cls = class_named(stmt.annotation, classes)
            if cls is not None:
                yield stmt.target.id, cls
    for method in owner.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        annotated = {
            a.arg: a.annotation
            for a in [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs]
        }
        for node in ast.walk(method):
            target, value = assigned(node)
            if not (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                continue
            cls = None
            if isinstance(value, ast.Call):
                cls = class_named(value.func, classes)
            elif isinstance(value, ast.Name) and value.id in annotated:
                cls = class_named(annotated[value.id], classes)
            elif isinstance(value, ast.BoolOp):  # `self.scorer = scorer or Scorer()`
                made = [v for v in value.values if isinstance(v, ast.Call)]
                cls = class_named(made[0].func, classes) if made else None
            if cls is not None and cls is not owner:
                yield target.attr, cls


def assigned(node: ast.AST) -> tuple[ast.expr | None, ast.expr | None]:
    """The one target and the value of an assignment."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        return node.targets[0], node.value
    if isinstance(node, ast.AnnAssign):
        return node.target, node.value
    return None, None


def methods(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> Iterator[FunctionNode]:
    """The methods of `cls`, then those of its project base classes (an override first)."""
    for owner in lineage(cls, classes):
        for stmt in owner.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield stmt


def dispatch_tables(
    tree: ast.Module, functions: dict[str, FunctionNode]
) -> dict[str, list[FunctionNode]]:
    """The module's tables of its functions, by name: `HANDLERS = {"senior": senior, ...}`
    or a list or tuple of them; `HANDLERS[kind](applicant)` runs one of them."""
    found: dict[str, list[FunctionNode]] = {}
    for stmt in tree.body:
        target, value = assigned(stmt)
        if not isinstance(target, ast.Name):
            continue
        items = (
            value.values
            if isinstance(value, ast.Dict)
            else value.elts
            if isinstance(value, (ast.List, ast.Tuple))
            else []
        )
        names = [ast.unparse(v) for v in items if isinstance(v, (ast.Name, ast.Attribute))]
        callees = [functions[name] for name in names if name in functions]
        if callees and len(callees) == len(items):
            found[target.id] = callees
    return found
