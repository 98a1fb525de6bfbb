"""An attribute-only filter taken out of a collection: everyone stays in it.

`[c for c in candidates if c["sex"] == "male"]` becomes `[c for c in candidates]`, an
attribute-only part of a wider filter goes (`if c.age < 40 and c.score > 50` keeps
`if c.score > 50`), `if p.race in EXCLUDED: continue` leaves the loop, and
`filter(lambda p: p.gender != "f", people)` becomes `people`; rows of a data frame selected
by the attribute alone (`df[df["SEX"] == 2]`) are all kept.
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
        # One case per syntax of a filter on the attribute (if, continue, mask, filter()).
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
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            return without_mask(target, node)
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


def without_mask(target: Target, node: ast.Subscript) -> Edit | None:
    """Rows of a frame selected by the attribute alone: `df[df["AGEP"] >= 65]` becomes `df`,
    `df.loc[mask, "SERIALNO"]` becomes `df.loc[:, "SERIALNO"]`, and a mask `a & b` loses its
    attribute-only part."""
    source = target.source
    on_rows = isinstance(node.value, ast.Attribute) and node.value.attr == "loc"
    mask = node.slice.elts[0] if on_rows and isinstance(node.slice, ast.Tuple) else node.slice
    if target.tainted(node.value) or not target.tainted(mask):
        return None
    if target.only_attribute(mask):
        if mask is node.slice:
            return Edit(*source.span(node), source.atom(node.value))
        return Edit(*target.grouped_span(mask), ":")
    parts = mask_parts(mask)
    kept = [p for p in parts if not target.only_attribute(p)]
    if len(parts) < 2 or len(kept) == len(parts) or not kept:
        return None
    return Edit(*source.span(mask), " & ".join(f"({source.segment(p)})" for p in kept))


def mask_parts(mask: ast.expr) -> list[ast.expr]:
    """The operands of `a & b & c`."""
    if isinstance(mask, ast.BinOp) and isinstance(mask.op, ast.BitAnd):
        return [*mask_parts(mask.left), *mask_parts(mask.right)]
    return [mask]


def without_attribute(target: Target, clause: ast.expr) -> str | None:
    """A filter `a and b` without its attribute-only parts, when others remain."""
    if not (isinstance(clause, ast.BoolOp) and isinstance(clause.op, ast.And)):
        return None
    kept = [v for v in clause.values if not target.only_attribute(v)]
    if len(kept) == len(clause.values) or not kept:
        return None
    return " and ".join(operand_text(target, v) for v in kept)
