"""What is left of the attribute's use worked out for the reference group.

Where the attribute enters a computation rather than a branch (`cost += age * 250`,
`max(0, applicant_age - 55)`, `_adjust(region)`, `return age >= 40`), the part of the
expression that depends on it alone is replaced by its value for the reference group
(`cost += 30 * 250`, `max(0, 30 - 55)`, `_adjust('urban')`, `return False`). Reads that
only show the value (returned, stored in a record, formatted, printed) are left as they are:
a record keeps the person's own age.
"""

from __future__ import annotations

import ast

from analysis.mitigation.mechanical.edits import Edit
from analysis.mitigation.mechanical.rules.base import Rule, register
from analysis.mitigation.mechanical.target import Target


@register
class PinReference(Rule):
    name = "pin-reference"
    does = "{attribute} worked out for the reference group where it enters a computation"

    def edits(self, target: Target) -> list[Edit]:
        out: list[Edit] = []
        covered: list[tuple[int, int]] = []
        for read in target.reads:
            if target.shown(read) or target.value_text(read) is None or names_known(target, read):
                continue
            if id(read) in target.columns:
                continue  # a column holds every row's value: no one value stands for it
            top = widest(target, read)
            text = target.value_text(top)
            if text is None or text == target.source.segment(top):
                continue
            edit = in_condition(target, top) or Edit(*target.source.span(top), text)
            if any(a <= edit.start and edit.end <= b for a, b in covered):
                continue
            if any(edit.start < b and a < edit.end for a, b in covered):
                continue  # overlaps another edit of this pass: the next pass sees it anew
            covered.append((edit.start, edit.end))
            out.append(edit)
        return out


def names_known(target: Target, read: ast.expr) -> bool:
    """`age = p.get("age")` where `age` holds one known value: its uses are what is replaced
    (and the assignment goes once none is left)."""
    parent = target.parents.get(id(read))
    return (
        isinstance(parent, ast.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
        and parent.targets[0].id in target.scope.locals
    )


def in_condition(target: Target, top: ast.expr) -> Edit | None:
    """A decided operand of `a or b` / `a and b` whose operands are all true or false:
    dropped when it cannot change the result, or the whole condition when it decides it
    (`reports > 3 or False` is `reports > 3`; `x is y and False` is `False`)."""
    parent = target.parents.get(id(top))
    if not isinstance(parent, ast.BoolOp) or not all(boolean(v) for v in parent.values):
        return None
    truth = target.truth(top)
    if truth is None:
        return None
    source = target.source
    if truth is not isinstance(parent.op, ast.And):
        return Edit(*source.span(parent), repr(truth))
    at = next(i for i, v in enumerate(parent.values) if v is top)
    start, end = target.grouped_span(top)
    if at:
        return Edit(target.grouped_span(parent.values[at - 1])[1], end, "")
    return Edit(start, target.grouped_span(parent.values[1])[0], "")


def boolean(node: ast.expr) -> bool:
    """Whether an expression is always True or False (so `x or False` is `x`)."""
    if isinstance(node, ast.Compare) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    ):
        return True
    if isinstance(node, ast.BoolOp):
        return all(boolean(v) for v in node.values)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("bool", "isinstance", "all", "any", "callable", "hasattr")
    )


def widest(target: Target, read: ast.expr) -> ast.expr:
    """The largest expression around `read` that the reference group decides alone, never
    taking in an operand the author wrote beside it (`2000 + age * 250` keeps its 250:
    `2000 + 30 * 250`), except into a comparison, whose truth is what is decided."""
    node: ast.expr = read
    while True:
        parent = target.parents.get(id(node))
        grand = target.parents.get(id(parent))
        if isinstance(grand, ast.Call) and grand.func is parent:
            parent = grand  # `education.lower()`: the method's call, not the bound method
        if not isinstance(parent, ast.expr) or not climbs(target, parent, node):
            return node
        if is_test(target, parent, node):
            return node
        if not target.scope.decided(parent) or target.value_text(parent) is None:
            return node
        node = parent


def climbs(target: Target, parent: ast.expr, node: ast.expr) -> bool:
    """Whether the value of `parent` is the attribute's alone once `node` is known."""
    if isinstance(parent, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
        return True
    if isinstance(parent, ast.Subscript):
        return parent.value is node  # `postcode[:2]`, not `TABLE[region]`
    if isinstance(parent, ast.BinOp):
        other = parent.right if parent.left is node else parent.left
        return target.tainted(other)
    if isinstance(parent, ast.Call):
        if isinstance(parent.func, ast.Attribute):
            return parent.func.value is node  # `sex.lower()`, not `LEVELS.index(sex)`
        others = [a for a in parent.args if a is not node]
        return builtin(parent) and all(target.tainted(a) for a in others)
    return False


def is_test(target: Target, parent: ast.AST, node: ast.AST) -> bool:
    """Whether `node` would become a whole test if climbing went on to `parent`."""
    grand = target.parents.get(id(parent))
    for holder, child in ((parent, node), (grand, parent)):
        if isinstance(holder, (ast.If, ast.While, ast.IfExp, ast.Assert)) and holder.test is child:
            return True
        if isinstance(holder, ast.comprehension) and any(c is child for c in holder.ifs):
            return True
    return False


def builtin(call: ast.Call) -> bool:
    func = call.func
    names = ("len", "min", "max", "abs", "round", "int", "float", "str", "bool")
    return isinstance(func, ast.Name) and func.id in names and not call.keywords
