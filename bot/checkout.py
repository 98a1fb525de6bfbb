"""The part of a repository a review needs, on disk: the changed modules and what they import.

A function runs as a module of its package (see analysis/scan/project.py), so the sandbox needs the
package's `__init__` files, the repository modules it imports (transitively), their data files
next to them, and the build configuration that says where packages live. Not the whole
repository: a review fetches only that, within a budget.

Why the trees and blobs endpoints: one `GET /git/trees/{sha}?recursive=1` lists every path
with its size and blob sha, so imports are resolved and the budget is applied before anything
is downloaded; blobs are content-addressed, so a blob fetched for one push or pull request is
never fetched again (cached by sha). The contents endpoint needs a call per path with no
listing to resolve imports against, and the tarball endpoint downloads the whole repository
(hundreds of MB for some) to use a few files of it.
"""

from __future__ import annotations

import ast
import json
import logging
import posixpath
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from analysis.scan.project import Project, imported_modules, module_files
from bot.cache import ResultsCache
from bot.github import Json, RepoClient

log = logging.getLogger(__name__)

CONFIG_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
DATA_SUFFIXES = (".json", ".yaml", ".yml", ".csv", ".toml", ".txt", ".ini", ".cfg", ".tsv")


@dataclass(frozen=True)
class Budget:
    files: int = 400
    bytes: int = 8_000_000
    data_file_bytes: int = 200_000  # a data file beside a module is fetched up to this size


@dataclass
class Checkout:
    """What was written for one commit, and what the budget left out."""

    project: Project
    files: dict[str, str] = field(default_factory=dict)  # path -> blob sha, as written
    left_out: list[str] = field(default_factory=list)
    listing_truncated: bool = False
    # path -> the files written because that module needs them (imports, __init__, data)
    needs: dict[str, list[str]] = field(default_factory=dict)

    def dependencies(self, path: str) -> str:
        """A digest of what the module at `path` may depend on: every file written (for the
        verdict cache: a change to any of them may change the verdict)."""
        return json.dumps(sorted(self.files.items()))

    def imported_by(self, path: str) -> str:
        """A digest of the module at `path` and the files it needs, transitively, as written
        (for the fix cache: the files a fix for one of its functions was made with)."""
        seen: set[str] = set()
        todo = [path]
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(self.needs.get(current, ()))
        return json.dumps(sorted((p, self.files.get(p, "")) for p in seen))


class Fetcher:
    """Writes the needed files of commit `sha` into a folder."""

    def __init__(
        self,
        client: RepoClient,
        sha: str,
        cache: ResultsCache | None = None,
        budget: Budget = Budget(),
    ) -> None:
        self.client = client
        self.sha = sha
        self.cache = cache
        self.budget = budget

    @contextmanager
    def checkout(self, changed: dict[str, str]) -> Iterator[Checkout]:
        """A folder holding `changed` (path -> text, already read) and what it needs."""
        folder = Path(tempfile.mkdtemp(prefix="codebias-checkout-"))
        try:
            yield self.fill(folder, changed)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def fill(self, folder: Path, changed: dict[str, str]) -> Checkout:
        entries, truncated = self.listing()
        blobs = {str(e["path"]): e for e in entries if e.get("type") == "blob"}
        for path in blobs:
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
        for name in CONFIG_FILES:
            if name in blobs:
                self.write(folder, name, blobs[name])
        project = Project.discover(folder)
        checkout = Checkout(project, listing_truncated=truncated)
        spent = [0, 0]  # files, bytes

        def want(path: str) -> bool:
            entry = blobs.get(path)
            if entry is None or path in checkout.files:
                return False
            size = int(entry.get("size") or 0)
            if spent[0] + 1 > self.budget.files or spent[1] + size > self.budget.bytes:
                checkout.left_out.append(path)
                return False
            spent[0] += 1
            spent[1] += size
            checkout.files[path] = str(entry.get("sha"))
            return True

        queue: list[tuple[str, str]] = []  # (path, text) of modules whose imports to follow
        for path, text in changed.items():
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            checkout.files[path] = str((blobs.get(path) or {}).get("sha") or "changed")
            queue.append((path, text))
        while queue:
            path, text = queue.pop(0)
            for needed in self.needs(project, path, text, blobs):
                if needed in checkout.files:
                    checkout.needs.setdefault(path, []).append(needed)
                elif want(needed):  # else over the budget: it runs as a stub
                    checkout.needs.setdefault(path, []).append(needed)
                    data = self.write(folder, needed, blobs[needed])
                    if needed.endswith(".py"):
                        queue.append((needed, data.decode("utf-8", errors="replace")))
        return checkout

    def needs(self, project: Project, path: str, text: str, blobs: dict[str, Json]) -> list[str]:
        """Files the module at `path` needs: its packages' __init__ files, the repository
        modules it imports (and theirs, as the queue goes on), data files beside it."""
        out = package_inits(path, blobs)
        folder = posixpath.dirname(path)
        out += [
            p
            for p, e in blobs.items()
            if posixpath.dirname(p) == folder
            and p.endswith(DATA_SUFFIXES)
            and int(e.get("size") or 0) <= self.budget.data_file_bytes
        ]
        location = project.locate(project.root / path)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return out
        name = location.name if location is not None else posixpath.basename(path)[:-3]
        package = location.is_package if location is not None else False
        roots = location.paths if location is not None else project.roots
        for dotted in imported_modules(tree, name, package):
            for candidate in module_files(dotted, roots):
                if candidate in blobs:
                    out += [candidate, *package_inits(candidate, blobs)]
                    break
        return list(dict.fromkeys(out))

    def listing(self) -> tuple[list[Json], bool]:
        key = f"tree:{self.client.owner}/{self.client.name}:{self.sha}"
        cached = self.cache.get(key) if self.cache is not None else None
        if cached is not None:
            data = json.loads(cached)
            return list(data["entries"]), bool(data["truncated"])
        entries, truncated = self.client.tree(self.sha)
        slim = [{k: e.get(k) for k in ("path", "type", "sha", "size")} for e in entries]
        if self.cache is not None:
            self.cache.put(key, json.dumps({"entries": slim, "truncated": truncated}))
        return slim, truncated

    def write(self, folder: Path, path: str, entry: Json) -> bytes:
        sha = str(entry.get("sha"))
        key = f"blob:{sha}"
        cached = self.cache.get(key) if self.cache is not None else None
        data = bytes.fromhex(cached) if cached is not None else self.client.blob(sha)
        if cached is None and self.cache is not None:
            self.cache.put(key, data.hex())
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return data


def package_inits(path: str, blobs: dict[str, Json]) -> list[str]:
    """The `__init__.py` files of every folder above `path` that has one, outermost first."""
    parts = path.split("/")[:-1]
    inits = ["/".join([*parts[:i], "__init__.py"]) for i in range(1, len(parts) + 1)]
    return [p for p in inits if p in blobs]
