"""Where a file lives in its project: its import roots and its dotted module name.

Python tools find import roots in a few well-known ways, and so do we: the folder above the
topmost `__init__.py` of a package; a `src/` layout; the package folders that pyproject.toml
(setuptools, hatch, poetry, flit, pdm, maturin), setup.cfg or setup.py declare; the folder a
loose script sits in (Python puts it first on sys.path when the script runs); and extra roots
from the policy (`python.paths`). A module is then imported by its dotted name, so relative
imports, sibling modules and the package's `__init__` behave as in the project's own tests.
"""

from __future__ import annotations

import ast
import configparser
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.execution.interpreter import Interpreter

# Folders that hold no source of the project (tools, environments, caches, build output).
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", ".tox", ".nox",
     "build", "dist", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs"}
)  # fmt: skip
SETUP_PY_PACKAGE_DIR = re.compile(r"""package_dir\s*=\s*\{\s*['"]{2}\s*:\s*['"]([\w./-]+)['"]""")


@dataclass(frozen=True)
class ModuleLocation:
    """A file as an importable module: `name` under the import root `root` (relative to the
    project, "" for the project itself), and the roots to put on sys.path, in order."""

    name: str
    file: str  # relative to the project
    root: str
    paths: tuple[str, ...]
    is_package: bool = False  # an `__init__.py`: its folder is the package's __path__
    # Searched after everything else: a package module's own folder, for the sibling it
    # imports by bare name as a script would (`from body_scales import bodyScales`); last,
    # so that its `types.py` or `logging.py` never hides the standard library's.
    last_paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Placement:
    """Where a file on disk is run: as `location` in `project`, or on its own (both None,
    or no location when its name cannot be imported)."""

    project: Project | None
    location: ModuleLocation | None


@dataclass(frozen=True)
class Project:
    """A checkout on disk (`root`) and its import roots, relative to it."""

    root: Path
    roots: tuple[str, ...] = ("",)

    @classmethod
    def discover(cls, root: Path, extra: Sequence[str] = ()) -> Project:
        root = root.resolve()
        found = [p.strip("/") for p in extra] + declared_roots(root)
        if not found and (root / "src").is_dir() and not (root / "src" / "__init__.py").exists():
            found.append("src")
        roots = [r for r in dict.fromkeys(found) if r and (root / r).is_dir()]
        return cls(root, (*roots, ""))

    def missing(self, modules: Iterable[str], interpreter: Interpreter) -> list[str]:
        """Which of `modules` (top-level names) neither the project nor `interpreter`, the
        one its code runs with, holds.

        Only looked up, never imported: nothing of the project runs outside the sandbox."""
        roots = [str(self.root / r) if r else str(self.root) for r in self.roots]
        return [m for m in modules if not interpreter.finds(m, roots)]

    def relative(self, file: Path) -> str | None:
        try:
            return file.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None

    def locate(self, file: Path) -> ModuleLocation | None:
        """The module a file is imported as; None when it lies outside the project or its
        name cannot be imported (`my-script.py`)."""
        rel = self.relative(file)
        if rel is None or not rel.endswith(".py"):
            return None
        parts = rel[: -len(".py")].split("/")
        folder = parts[:-1]
        # Inside a regular package: the import root is the folder above its topmost __init__.
        top = len(folder)
        while top > 0 and (self.root.joinpath(*folder[:top]) / "__init__.py").is_file():
            top -= 1
        if top < len(folder):
            root = "/".join(folder[:top])
            extra: tuple[str, ...] = ()
        else:
            # A loose module: under the deepest declared root that holds it, and its own
            # folder on the path too, as when it runs as a script.
            root = max(
                (r for r in self.roots if r == "" or rel.startswith(r + "/")), key=len, default=""
            )
            extra = ("/".join(folder),)
        dotted = parts[len(root.split("/")) if root else 0 :]
        is_package = dotted[-1] == "__init__"
        if is_package:
            dotted = dotted[:-1]
        if not dotted or not all(p.isidentifier() for p in dotted):
            return None
        paths = tuple(dict.fromkeys([*extra, root, *self.roots]))
        last = () if extra or "/".join(folder) in paths else ("/".join(folder),)
        return ModuleLocation(".".join(dotted), rel, root, paths, is_package, last)


def package_root(file: Path) -> Path | None:
    """The folder above the topmost package holding `file`; None for a loose file."""
    folder = file.resolve().parent
    if not (folder / "__init__.py").is_file():
        return None
    while (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    return folder.parent


def declared_roots(root: Path) -> list[str]:
    """Package folders the project's build configuration names, relative to `root`."""
    roots: list[str] = []
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace"))
        except tomllib.TOMLDecodeError:
            data = {}
        roots += pyproject_roots(data, root)
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(setup_cfg.read_text(encoding="utf-8", errors="replace"))
        except configparser.Error:
            parser = configparser.ConfigParser()
        package_dir = parser.get("options", "package_dir", fallback="")
        roots += [v.strip() for k, _, v in _pairs(package_dir) if k.strip() == ""]
        roots += parser.get("options.packages.find", "where", fallback="").split()
    setup_py = root / "setup.py"
    if setup_py.is_file():
        text = setup_py.read_text(encoding="utf-8", errors="replace")
        roots += SETUP_PY_PACKAGE_DIR.findall(text)
    return [r.strip().strip("/").removeprefix("./") for r in roots if r.strip() not in ("", ".")]


def pyproject_roots(data: dict[str, Any], root: Path) -> list[str]:
    tool = _table(data, "tool")
    roots: list[str] = []
    setuptools = _table(tool, "setuptools")
    package_dir = _table(setuptools, "package-dir")
    if isinstance(package_dir.get(""), str):
        roots.append(package_dir[""])
    find = _table(_table(setuptools, "packages"), "find")
    roots += [w for w in _strings(find.get("where"))]
    wheel = _table(_table(_table(_table(tool, "hatch"), "build"), "targets"), "wheel")
    roots += [str(Path(p).parent) for p in _strings(wheel.get("packages"))]
    for entry in _table(tool, "poetry").get("packages") or []:
        if isinstance(entry, dict) and isinstance(entry.get("from"), str):
            roots.append(entry["from"])
    pdm_dir = _table(_table(tool, "pdm"), "build").get("package-dir")
    if isinstance(pdm_dir, str):
        roots.append(pdm_dir)
    maturin = _table(tool, "maturin").get("python-source")
    if isinstance(maturin, str):
        roots.append(maturin)
    flit = _table(_table(tool, "flit"), "module").get("name") or _table(data, "project").get("name")
    if isinstance(flit, str) and (root / "src" / flit.replace("-", "_")).is_dir():
        roots.append("src")
    return roots


def _table(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _pairs(text: str) -> Iterable[tuple[str, str, str]]:
    """`= src` / `pkg = lib/pkg` lines of a setup.cfg mapping."""
    for line in text.splitlines():
        if "=" in line:
            yield line.partition("=")


def imported_modules(tree: ast.Module, module: str, is_package: bool = False) -> list[str]:
    """Dotted names a module may import, in order (`from a import b` gives `a` and `a.b`, since
    b may be a submodule), relative imports resolved against `module`."""
    package = module if is_package else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    continue  # beyond the top package: Python would refuse it too
                head = ".".join(parts[: len(parts) - (node.level - 1)])
                base = f"{head}.{base}".strip(".") if base else head
            if base:
                names.append(base)
                names += [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]
    return list(dict.fromkeys(names))


def module_files(name: str, roots: Sequence[str]) -> list[str]:
    """Where module `name` may live, relative to the project, for each root in order."""
    rel = name.replace(".", "/")
    out: list[str] = []
    for root in roots:
        prefix = f"{root}/" if root else ""
        out += [f"{prefix}{rel}.py", f"{prefix}{rel}/__init__.py"]
    return out
