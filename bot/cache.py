"""Results cache: a function tested once is not tested again until something that can change
its verdict changes.

The key is (hash of the function's source and of what it depends on in its module, the
policy's fingerprint, the engine version). "What it depends on": the module's top-level
statements that are not definitions (imports, constants), and the source of every top-level
function or class whose name the function mentions, followed transitively. A push that edits
an unrelated function in the same file therefore keeps the cached verdict; one that edits a
helper it calls does not. Only settled verdicts are kept (`FunctionReport.is_settled`: biased,
clean, and skipped for having no protected input): an `unverified` result may succeed next
time. Values are `FunctionReport.to_dict()` as JSON.
"""

from __future__ import annotations

import ast
import hashlib
import threading
from collections import OrderedDict
from typing import Protocol

from redis import Redis


def source_key(source: str, qualname: str) -> str | None:
    """Hash of the function and its module-level dependencies; None if it cannot be found."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.splitlines(keepends=True)

    def text(node: ast.stmt) -> str:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        return "".join(lines[start - 1 : node.end_lineno])

    defs: dict[str, ast.stmt] = {}
    context: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs[stmt.name] = stmt
        else:
            context.append(text(stmt))
    head = qualname.split(".")[0]
    if head not in defs:
        return None
    seen: list[str] = []
    todo = [head]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        mentioned = {n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name)}
        todo.extend(sorted(m for m in mentioned if m in defs and m not in seen))
    digest = hashlib.sha256()
    digest.update(qualname.encode() + b"\0")
    for chunk in [*context, *(text(defs[n]) for n in sorted(seen))]:
        digest.update(chunk.encode() + b"\0")
    return digest.hexdigest()


def cache_key(
    source: str,
    qualname: str,
    policy_fingerprint: str,
    engine_version: str,
    context: str = "",
) -> str | None:
    """The verdict's key; `context` names whatever else it depends on (the repository, and the
    other files of the checkout the module was imported from)."""
    key = source_key(source, qualname)
    if key is None:
        return None
    scope = hashlib.sha256(context.encode()).hexdigest()[:16] if context else "-"
    return f"{engine_version}:{policy_fingerprint}:{scope}:{key}"


class ResultsCache(Protocol):
    def get(self, key: str) -> str | None: ...

    def put(self, key: str, value: str) -> None: ...


class MemoryResultsCache:
    def __init__(self, max_entries: int = 10_000) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: str, value: str) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)


class RedisResultsCache:
    def __init__(
        self, redis: Redis, ttl: int = 30 * 24 * 3600, prefix: str = "codebias:result:"
    ) -> None:
        self.redis = redis
        self.ttl = ttl
        self.prefix = prefix

    def get(self, key: str) -> str | None:
        value: bytes | None = self.redis.get(self.prefix + key)  # type: ignore[assignment]
        return None if value is None else value.decode()

    def put(self, key: str, value: str) -> None:
        self.redis.set(self.prefix + key, value.encode(), ex=self.ttl)
