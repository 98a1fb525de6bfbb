"""A lookup or multiplier keyed by the attribute replaced by its neutral entry.

`RATES.get(region, 1.0)` becomes `1.0` (the entry everyone not listed gets), and a lookup
without a default (`FACTORS[sex]`, `weights.get(degree)`) reads the reference group's entry
(`FACTORS["male"]`).
"""

from __future__ import annotations

import ast

from analysis.mitigation.mechanical.edits import Edit
from analysis.mitigation.mechanical.rules.base import NodeRule, register
from analysis.mitigation.mechanical.target import Target


def selects_rows(node: ast.Subscript) -> bool:
    """`df[df["AGEP"] >= 65]`: a mask over the container itself, not a lookup in a table."""
    root = node.value.value if isinstance(node.value, ast.Attribute) else node.value
    if not isinstance(root, ast.Name):
        return False
    return any(isinstance(n, ast.Name) and n.id == root.id for n in ast.walk(node.slice))


@register
class NeutralEntry(NodeRule):
    name = "neutral-entry"
    does = "a lookup keyed by {attribute} replaced by its neutral entry"

    def rewrite(self, target: Target, node: ast.AST) -> Edit | None:
        source = target.source
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and not node.keywords
            and node.args
            and target.only_attribute(node.args[0])
            and not target.tainted(node.func.value)
        ):
            if len(node.args) == 2:
                return Edit(*source.span(node), source.atom(node.args[1]))
            key = target.value_text(node.args[0])
            if key is not None and key != source.segment(node.args[0]):
                return Edit(*source.span(node.args[0]), key)
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and not isinstance(node.slice, ast.Slice)
            and target.only_attribute(node.slice)
            and not target.tainted(node.value)
            and not selects_rows(node)
        ):
            key = target.value_text(node.slice)
            if key is not None and key != source.segment(node.slice):
                return Edit(*source.span(node.slice), key)
        return None
