"""What a module takes from the other modules of its project, read from their source.

`from .constants import *`, `from .limits import RETIREMENT_AGE`, `from .models import
Applicant` and `import pkg.codes as codes` (then `codes.MALE`) give the engine the constants
a function compares with, the record classes it is annotated with and the helpers it passes
people to, as if they were written in the module itself. Only the project's own files are
read, never imported (nothing of the project runs outside the sandbox); each once per
engine, import cycles cut.
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path

from analysis.errors import SourceError
from analysis.facts.exports import Exports
from analysis.facts.module import ModuleFacts, tree_words
from analysis.scan.project import ModuleLocation, Project, module_files
from analysis.source.functions import functional_records
from analysis.source.reading import read_source

MAX_IMPORT_BYTES = 512 * 1024  # a generated table of that size holds no rule worth reading
MAX_DEPTH = 8  # modules re-exporting modules re-exporting...


class ImportedNames:
    """Resolves the project imports of the modules of one project; thread-safe."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._done: dict[str, Exports] = {}
        self._lock = threading.RLock()

    def of(self, tree: ast.Module, location: ModuleLocation) -> Exports:
        """What `tree`, the module at `location`, imports from its project."""
        with self._lock:
            roots = (*location.paths, *location.last_paths)
            return self._imports(tree, location.name, location.is_package, roots, 0)

    def _imports(
        self, tree: ast.Module, module: str, is_package: bool, roots: tuple[str, ...], depth: int
    ) -> Exports:
        found = Exports()
        package = module if is_package else module.rpartition(".")[0]
        for stmt in top_level(tree.body):
            if isinstance(stmt, ast.ImportFrom):
                base = absolute(stmt, package)
                if base is None:
                    continue
                if len(stmt.names) == 1 and stmt.names[0].name == "*":
                    source = self._exports(base, roots, depth)
                    if source is not None:
                        found.update(source)
                        found.imported_from(base, source)
                    continue
                source = self._exports(base, roots, depth)
                if source is not None:
                    found.imported_from(base, source)
                for alias in stmt.names:
                    ours = alias.asname or alias.name
                    if source is not None:
                        found.update(source, {alias.name: ours})
                    # `from . import constants`: a submodule, reached as `constants.NAME`.
                    sub = self._exports(f"{base}.{alias.name}", roots, depth)
                    if sub is not None:
                        found.prefixed(sub, ours)
                        found.imported_from(f"{base}.{alias.name}", sub)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    source = self._exports(alias.name, roots, depth)
                    if source is not None:
                        found.prefixed(source, alias.asname or alias.name)
                        found.imported_from(alias.name, source)
        return found

    def _exports(self, name: str, roots: tuple[str, ...], depth: int) -> Exports | None:
        """The top-level names of project module `name`; None when it is not in the project."""
        if name in self._done:
            return self._done[name]
        if depth >= MAX_DEPTH:
            return None
        file = self._file(name, roots)
        if file is None:
            return None
        self._done[name] = Exports()  # a cycle back here sees nothing, as Python would
        try:
            tree = ast.parse(read_source(file, MAX_IMPORT_BYTES), filename=str(file))
        except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
            return self._done[name]
        exports = self._imports(tree, name, file.name == "__init__.py", roots, depth + 1)
        define(tree, exports)
        exports.words = frozenset(tree_words(tree))
        self._done[name] = exports
        return exports

    def _file(self, name: str, roots: tuple[str, ...]) -> Path | None:
        for rel in module_files(name, roots):
            path = self.project.root / rel
            if path.is_file():
                return path
        return None


def define(tree: ast.Module, exports: Exports) -> None:
    """Add a module's own top-level constants, classes and functions to `exports` (seeded
    with what it imports, so `LIMIT = BASE + 5` folds)."""
    facts = ModuleFacts(tree, exports, harvest=False)
    for cls in functional_records(top_level(tree.body)):
        exports.classes[cls.name] = cls
    for stmt in top_level(tree.body):
        if isinstance(stmt, ast.ClassDef):
            exports.classes[stmt.name] = stmt
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            exports.functions[stmt.name] = stmt
    exports.constants.update(
        (k, v)
        for k, v in facts.constants.items()
        if "." not in k or k.split(".")[0] in exports.classes  # not `self.x`
    )
    public = facts.constants.get("__all__")
    if isinstance(public, (list, tuple)) and all(isinstance(n, str) for n in public):
        exports.public = list(public)


def top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements that run at import, through `if`/`try` blocks (`try: from .c import *`)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, (ast.If, ast.Try)):
            for block in (stmt.body, stmt.orelse, getattr(stmt, "finalbody", [])):
                out += top_level(block)
            for handler in getattr(stmt, "handlers", []):
                out += top_level(handler.body)
        else:
            out.append(stmt)
    return out


def absolute(stmt: ast.ImportFrom, package: str) -> str | None:
    """The dotted module a `from ... import` names, relative levels resolved."""
    if not stmt.level:
        return stmt.module
    parts = package.split(".") if package else []
    if stmt.level - 1 > len(parts):
        return None
    head = ".".join(parts[: len(parts) - (stmt.level - 1)])
    return f"{head}.{stmt.module}".strip(".") if stmt.module else head or None
