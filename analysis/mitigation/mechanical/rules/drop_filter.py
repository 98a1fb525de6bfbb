"""An attribute-only filter taken out of a collection: everyone stays in it.

`[c for c in candidates if c["sex"] == "male"]` becomes `[c for c in candidates]`, an
attribute-only part of a wider filter goes (`if c.age < 40 and c.score > 50` keeps
`if c.score > 50`), `if p.race in EXCLUDED: continue` leaves the loop, and
`filter(lambda p: p.gender != "f", people)` becomes `people`.
"""

from __future__ import annotations

import ast

from analysis.mitigation.mechanical.edits import Edit
from analysis.mitigation.mechanical.rules.base import NodeRule, register
from analysis.mitigation.mechanical.rules.collapse_branch import drop_clause, operand_text
from analysis.mitigation.mechanical.target import Target


@register
class DropFilter(NodeRule):
    name = "drop-filter"
    does = "a filter on {attribute} taken out of a collection"

    def rewrite(self, target: Target, node: ast.AST) -> Edit | None:
        if isinstance(node, ast.comprehension):
            for i, clause in enumerate(node.ifs):
                if target.only_attribute(clause):
                    return drop_clause(target, node, i)
                narrowed = without_attribute(target, clause)
                if narrowed is not None:
                    return Edit(*target.source.span(clause), narrowed)
        if isinstance(node, (ast.For, ast.AsyncFor)):
            for stmt in node.body:
                if (
                    isinstance(stmt, ast.If)
                    and not stmt.orelse
                    and len(stmt.body) == 1
                    and isinstance(stmt.body[0], ast.Continue)
                    and target.only_attribute(stmt.test)
                ):
                    return target.removal(stmt)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "filter"
            and len(node.args) == 2
            and not node.keywords
            and isinstance(node.args[0], ast.Lambda)
            and target.only_attribute(node.args[0].body)
        ):
            return Edit(*target.source.span(node), target.source.atom(node.args[1]))
        return None


def without_attribute(target: Target, clause: ast.expr) -> str | None:
    """A filter `a and b` without its attribute-only parts, when others remain."""
    if not (isinstance(clause, ast.BoolOp) and isinstance(clause.op, ast.And)):
        return None
    kept = [v for v in clause.values if not target.only_attribute(v)]
    if len(kept) == len(clause.values) or not kept:
        return None
    return " and ".join(operand_text(target, v) for v in kept)
