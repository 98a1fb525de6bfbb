"""The set-up a function's callers run before calling it: `setup_tables()` fills the module's
growth charts, then `z_score_calculation(box)` reads them. Called alone, such a function
raises for every input (the charts are empty); its callers in the module show what must run
first, and the harness runs it once, when the module is loaded.
"""

from __future__ import annotations

import ast

from analysis.source.functions import FunctionNode, list_functions, required_parameters

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def prepared_by_callers(fn: FunctionNode, tree: ast.Module) -> tuple[str, ...]:
    """The module's own functions that take nothing which its callers call before `fn`."""
    if fn not in tree.body:
        return ()  # a method: its callers set up its object, not the module
    setups = {
        stmt.name
        for stmt in tree.body
        if isinstance(stmt, ast.FunctionDef) and stmt is not fn and not required_parameters(stmt)
    }
    found: list[str] = []
    for caller in list_functions(tree):
        calls = [
            node
            for node in ast.walk(caller.node)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        ]
        first = min(
            ((c.lineno, c.col_offset) for c in calls if c.func.id == fn.name),  # type: ignore[attr-defined]
            default=None,
        )
        if first is None or caller.node is fn:
            continue
        found += [
            c.func.id  # type: ignore[attr-defined]
            for c in calls
            if c.func.id in setups  # type: ignore[attr-defined]
            and not c.args
            and not c.keywords
            and (c.lineno, c.col_offset) < first
        ]
    return tuple(dict.fromkeys(found))
