"""What a Flask view reads from the request it answers: `data = request.get_json()` then
`data["age"]`, `request.form["sex"]`, `request.args.get("region")`. A view takes no
parameter for them: the person arrives in the global `request`. Each part of the request it
reads (its JSON body, its form, its query string) is an input of its own, a record of the
keys read (`<request.json>`...), which the harness sends as a test request of the module's
own app while the view runs (harness/runner.py `web_request`)."""

from __future__ import annotations

import ast

from analysis.caches import Cache
from analysis.execution.harness.runner import REQUEST_PARTS
from analysis.facts.fieldreads import FieldRead, Matcher, record_accesses
from analysis.facts.module import ModuleFacts
from analysis.source.functions import FunctionNode

__all__ = ["REQUEST_PARTS", "request_reads"]
# The frameworks whose `request` is a global proxy of the request being answered.
FRAMEWORKS = frozenset({"flask", "quart"})
# How a view reaches each part: `request.json`, `request.get_json()`...
PART_OF = {"json": "json", "get_json": "json", "form": "form", "values": "form", "args": "args"}
REQUEST_NAMES: Cache[None, frozenset[str]] = Cache("names of the framework's request")


def request_names(tree: ast.Module) -> frozenset[str]:
    """The names the module gives the framework's global request: `request` of `from flask
    import request`, or `flask.request` after `import flask`."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in FRAMEWORKS:
            found |= {a.asname or a.name for a in node.names if a.name == "request"}
        elif isinstance(node, ast.Import):
            found |= {f"{a.asname or a.name}.request" for a in node.names if a.name in FRAMEWORKS}
    return frozenset(found)


def request_reads(fn: FunctionNode, facts: ModuleFacts) -> dict[str, dict[str, FieldRead]]:
    """The keys `fn` reads of each part of the request (json, form, args)."""
    names = facts.caches.once(REQUEST_NAMES, lambda: request_names(facts.tree))
    if not names:
        return {}
    found: dict[str, dict[str, FieldRead]] = {}
    for part in dict.fromkeys(PART_OF.values()):

        def of_part(node: ast.AST, part: str = part) -> bool:
            return part_read(node, names) == part

        words = frozenset(n.rsplit(".", 1)[-1] for n in names)
        fields = record_accesses(fn, "", facts, Matcher(of_part, words))
        if fields:
            found[part] = fields
    return found


def part_read(node: ast.AST, names: frozenset[str]) -> str | None:
    """The part of the request `node` is: `request.form` "form", `request.get_json()`
    "json"; None for any other node."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "get_json":
            return "json" if ast.unparse(func.value) in names else None
        return None
    if isinstance(node, ast.Attribute) and node.attr in PART_OF and node.attr != "get_json":
        return PART_OF[node.attr] if ast.unparse(node.value) in names else None
    return None
