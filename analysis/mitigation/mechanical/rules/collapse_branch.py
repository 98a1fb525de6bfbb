"""A branch on the attribute collapsed to the branch the reference group takes.

`if age > 60: premium *= 1.2` goes; `bonus = 10 if sex == "male" else 0` becomes `bonus = 10`;
`match occupation:` keeps the case the reference group falls into, `np.where(df["SEX"] == 2,
a, b)` its side; a condition that decides
with the attribute beside other inputs keeps only its other part (`children >= 3 and sex ==
"female"` is false for the reference group: the branch goes; `years > 10 or sex == "male"`
is true for it: the branch stays, unconditionally). Where the reference group's branch
cannot be worked out, `prefer` says which branch to keep (the fixer tries both and keeps the
one that leaves the most tested outputs as they were).
"""

from __future__ import annotations

import ast
from typing import Literal, TypeGuard

from analysis.mitigation.mechanical.edits import ATOMS, Edit
from analysis.mitigation.mechanical.rules.base import Rule, register
from analysis.mitigation.mechanical.target import Target
from analysis.mitigation.mechanical.values import Undetermined

Prefer = Literal["reference", "body", "orelse"]
Settled = bool | str | None  # decided, a simpler test to write instead, or left as it is


@register
class CollapseBranch(Rule):
    name = "collapse-branch"
    does = "a branch on {attribute} collapsed to the one the reference group takes"

    def __init__(self, prefer: Prefer = "reference") -> None:
        self.prefer = prefer

    def edits(self, target: Target) -> list[Edit]:
        out: list[Edit] = []
        done: list[tuple[int, int]] = []
        for node in target.walk():
            if any(a <= getattr(node, "lineno", 0) <= b for a, b in done):
                continue  # inside a statement already rewritten in this pass
            edit = self.rewrite(target, node)
            if edit is not None:
                out.append(edit)
                if isinstance(node, ast.stmt):
                    done.append((node.lineno, node.end_lineno or node.lineno))
        return out

    def rewrite(self, target: Target, node: ast.AST) -> Edit | None:
        if isinstance(node, ast.If) and target.tainted(node.test):
            return self.statement(target, node)
        if isinstance(node, ast.IfExp) and target.tainted(node.test):
            return self.expression(target, node)
        if is_where(node) and target.tainted(node.args[0]):
            return self.where(target, node)
        if isinstance(node, ast.Match) and target.tainted(node.subject):
            return self.match(target, node)
        if isinstance(node, ast.Assert) and target.tainted(node.test):
            settled = settle(target, node.test)
            if settled is True:
                return target.removal(node)
            if isinstance(settled, str):
                return Edit(*target.source.span(node.test), settled)
        if isinstance(node, ast.comprehension):
            for i, clause in enumerate(node.ifs):
                if target.tainted(clause):
                    settled = settle(target, clause)
                    if settled is True:
                        return drop_clause(target, node, i)
                    if isinstance(settled, str):
                        return Edit(*target.source.span(clause), settled)
        return None

    def choice(self, target: Target, test: ast.expr) -> Settled:
        settled = settle(target, test)
        if settled is None and self.prefer != "reference":
            return self.prefer == "body"
        return settled

    def statement(self, target: Target, node: ast.If) -> Edit | None:
        settled = self.choice(target, node.test)
        if settled is None:
            return None
        if isinstance(settled, str):
            return Edit(*target.source.span(node.test), settled)
        source = target.source
        if is_elif(target, node):
            return collapse_elif(target, node, settled)
        indent = source.indent_of(node.lineno)
        if settled:
            lines = source.block(node.body, indent)
        elif not node.orelse:
            lines = ""
        elif is_elif(target, node.orelse[0]):
            inner = node.orelse[0]
            start, end = source.whole_lines(inner.lineno, node.end_lineno or node.lineno)
            text = source.text[start:end]
            lines = text.replace("elif", "if", 1)
        else:
            lines = source.block(node.orelse, indent)
        return None if lines is None else target.replacement(node, lines)

    def expression(self, target: Target, node: ast.IfExp) -> Edit | None:
        settled = self.choice(target, node.test)
        if settled is None:
            return None
        if isinstance(settled, str):
            return Edit(*target.source.span(node.test), settled)
        branch = node.body if settled else node.orelse
        text = target.source.segment(branch)
        if isinstance(branch, (ast.IfExp, ast.Lambda, ast.NamedExpr)):
            text = f"({text})"
        start, end = target.source.span(node)
        if isinstance(branch, ATOMS) and not isinstance(branch, ast.Tuple):
            start, end = target.grouped_span(node)
        return Edit(start, end, text)

    def where(self, target: Target, node: ast.Call) -> Edit | None:
        """`np.where(cond, a, b)`: a conditional expression over every row at once."""
        settled = self.choice(target, node.args[0])
        if not isinstance(settled, bool):
            return None
        return Edit(*target.source.span(node), target.source.atom(node.args[1 if settled else 2]))

    def match(self, target: Target, node: ast.Match) -> Edit | None:
        try:
            subject = target.scope.value(node.subject)
        except Undetermined:
            return None
        for case in node.cases:
            matched = matches(target, case, subject)
            if matched is None:
                return None  # a pattern we cannot judge comes first: leave the match
            if matched:
                lines = target.source.block(case.body, target.source.indent_of(node.lineno))
                return None if lines is None else target.replacement(node, lines)
        return target.removal(node)


def is_where(node: ast.AST) -> TypeGuard[ast.Call]:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "where"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("np", "numpy")
        and len(node.args) == 3
        and not node.keywords
    )


def settle(target: Target, test: ast.expr) -> Settled:
    """The test's truth for the reference group; or, when it also reads other inputs, the
    test without its parts that the reference group decides; None when neither."""
    truth = target.truth(test)
    if truth is not None:
        return truth
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = settle(target, test.operand)
        if isinstance(inner, bool):
            return not inner
        return None if inner is None else f"not ({inner})"
    if not isinstance(test, ast.BoolOp):
        return None
    conjunction = isinstance(test.op, ast.And)
    kept: list[str] = []
    changed = False
    for operand in test.values:
        settled = settle(target, operand) if target.tainted(operand) else None
        if settled is None:
            kept.append(operand_text(target, operand))
        elif isinstance(settled, str):
            kept.append(f"({settled})" if " and " in settled or " or " in settled else settled)
            changed = True
        elif settled is not conjunction:
            return settled  # `x and False`, `x or True`: decided whatever x is
        else:
            changed = True  # `x and True`, `x or False`: only x decides
    if not changed:
        return None
    if not kept:
        return conjunction
    return (" and " if conjunction else " or ").join(kept)


def operand_text(target: Target, node: ast.expr) -> str:
    text = target.source.segment(node)
    if isinstance(node, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)):
        return f"({text})"
    return text


def is_elif(target: Target, node: ast.stmt) -> bool:
    parent = target.parents.get(id(node))
    if not (isinstance(parent, ast.If) and parent.orelse == [node] and isinstance(node, ast.If)):
        return False
    return target.source.lines[node.lineno - 1].lstrip().startswith("elif")


def collapse_elif(target: Target, node: ast.If, settled: bool) -> Edit | None:
    """An `elif` decided for the reference group: `else:` when true, gone when false."""
    source = target.source
    if not all(source.own_lines(s) for s in [*node.body, *node.orelse]):
        return None
    indent = source.indent_of(node.lineno)
    start = source.starts[node.lineno - 1]
    end = source.starts[node.end_lineno or node.lineno]
    if settled:
        header_end = source.starts[node.body[0].lineno - 1]
        body_end = source.starts[node.body[-1].end_lineno or node.body[-1].lineno]
        return Edit(start, end, f"{indent}else:\n" + source.text[header_end:body_end])
    if not node.orelse:
        return Edit(start, end, "")
    if is_elif(target, node.orelse[0]):
        return Edit(start, source.starts[node.orelse[0].lineno - 1], "")
    else_line = else_keyword_line(target, node.orelse[0].lineno)
    return None if else_line is None else Edit(start, source.starts[else_line - 1], "")


def else_keyword_line(target: Target, before: int) -> int | None:
    for line in range(before - 1, 0, -1):
        text = target.source.lines[line - 1].strip()
        if text.startswith("else"):
            return line
        if text and not text.startswith("#"):
            return None
    return None


def drop_clause(target: Target, node: ast.comprehension, index: int) -> Edit:
    """` if <clause>` taken out of a comprehension."""
    source = target.source
    previous = node.ifs[index - 1] if index else node.iter
    gap_start = source.span(previous)[1]
    clause_start, clause_end = source.span(node.ifs[index])
    gap = source.text[gap_start:clause_start]
    keyword = gap.rfind("if")
    start = gap_start + len(gap[:keyword].rstrip())
    return Edit(start, clause_end, "")


def matches(target: Target, case: ast.match_case, subject: object) -> bool | None:
    if case.guard is not None:
        return None
    return pattern_matches(target, case.pattern, subject)


def pattern_matches(target: Target, pattern: ast.pattern, subject: object) -> bool | None:
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is None and pattern.name is None:
        return True  # `case _:`
    if isinstance(pattern, ast.MatchValue):
        try:
            return bool(subject == target.scope.value(pattern.value))
        except Undetermined:
            return None
    if isinstance(pattern, ast.MatchSingleton):
        return subject is pattern.value
    if isinstance(pattern, ast.MatchOr):
        found = [pattern_matches(target, p, subject) for p in pattern.patterns]
        if any(f is True for f in found):
            return True
        return None if any(f is None for f in found) else False
    return None
