"""The set-up a function's callers run before calling it: `setup_tables()` fills the module's
growth charts, then `z_score_calculation(box)` reads them. Called alone, such a function
raises for every input (the charts are empty); its callers in the module show what must run
first, and the harness runs it once, when the module is loaded.
"""

from __future__ import annotations

import ast

from analysis.caches import Cache
from analysis.facts.module import ModuleFacts
from analysis.source.functions import FunctionNode, list_functions, required_parameters

# Per module, once: each function's name -> the set-up functions its callers run before it.
PREPARED: Cache[None, dict[str, tuple[str, ...]]] = Cache("set-up run before each function")


def prepared_by_callers(fn: FunctionNode, facts: ModuleFacts) -> tuple[str, ...]:
    """The module's own functions that take nothing which its callers call before `fn`."""
    if fn not in facts.tree.body:
        return ()  # a method: its callers set up its object, not the module
    return facts.caches.once(PREPARED, lambda: preparations(facts.tree)).get(fn.name, ())


def preparations(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """For each name a module-level function calls, the set-up functions (of the module,
    taking nothing) it calls before its first call of that name; in one walk per caller."""
    setups = {
        stmt.name
        for stmt in tree.body
        if isinstance(stmt, ast.FunctionDef) and not required_parameters(stmt)
    }
    found: dict[str, list[str]] = {}
    for caller in list_functions(tree):
        calls = sorted(
            (
                (node.lineno, node.col_offset, node)
                for node in ast.walk(caller.node)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            ),
            key=lambda c: (c[0], c[1]),
        )
        ran: list[str] = []  # the set-up called so far
        called: set[str] = set()
        for _, _, call in calls:
            name = call.func.id  # type: ignore[attr-defined]
            if name != caller.name and name not in called:  # its first call here
                found.setdefault(name, []).extend(s for s in ran if s != name)
            called.add(name)
            if name in setups and not call.args and not call.keywords:
                ran.append(name)
    return {name: tuple(dict.fromkeys(names)) for name, names in found.items()}
