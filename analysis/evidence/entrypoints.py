"""Which of the project's own programs to run while recording: its tests and its demos.

Read from the files, never imported. Found with no configuration:

- the pytest files (`test_*.py`, `*_test.py`) that import a module under test, directly, or
  through a package whose `__init__` imports it, or whose folder's `conftest.py` does: one
  pytest run over all of them;
- the modules under test that have an `if __name__ == "__main__":` demo, run as `__main__`;
- the programs under `examples/`, `scripts/`, `demo/`... and any other file of the project
  with a `__main__` block, that import a module under test;
- an OpenFisca country package's YAML tests (openfisca.py): the formulas of its `Variable`
  classes are called by the framework alone, so its own test runner is what calls them;
- the code examples of its README and `docs/` pages that name a module under test
  (examples.py), one entry per document.

The policy's `evidence.run` replaces them with the commands it names (`pytest -q tests/unit`,
`python examples/demo.py`, `python -m pkg.demo`, `openfisca test tests/`): pytest, python
and `openfisca test` commands only.

The project's data files are entry points too (datafiles.py): a `data` entry calls the
functions that read a file's columns with its rows, after the tests and demos. Last, a
`made` entry (madecalls.py): codebias calls the functions with protected inputs that call
a function recorded for, with made-up inputs, so that the helpers get the values their
callers build.
"""

from __future__ import annotations

import ast
import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from analysis.evidence.examples import Block, documentation_examples
from analysis.evidence.madecalls import MadeCall
from analysis.evidence.openfisca import YamlTests, find_yaml_tests, openfisca_command
from analysis.scan.project import SKIP_DIRS, Project, imported_modules, module_files

EntryKind = Literal["pytest", "script", "module", "data", "openfisca", "examples", "made"]
DEMO_DIRS = frozenset(
    {"examples", "example", "demo", "demos", "scripts", "samples", "sample", "tutorial",
     "tutorials", "notebooks", "usage", "bin"}
)  # fmt: skip
# Files that run tools rather than the project: never a demo.
NOT_DEMOS = frozenset(
    {"setup.py", "conftest.py", "noxfile.py", "tasks.py", "fabfile.py", "manage.py",
     "__main__.py", "conf.py", "versioneer.py", "_version.py"}
)  # fmt: skip
# A program's own switch for its demonstration (`--demo`, `--example`, Portuguese `--exemplo`):
# without it, it asks its user for a person on stdin, which is closed.
DEMO_SWITCHES = frozenset(
    {"demo", "example", "examples", "sample", "exemplo", "ejemplo", "exemple", "beispiel"}
)
MAX_TEST_FILES = 300
MAX_PROGRAMS = 20
MAX_FILE_BYTES = 1_000_000
MAX_FILES = 20_000  # files of a project looked at, at most
PACKAGE_DEPTH = 3  # `__init__` files followed to see what importing a package imports


@dataclass(frozen=True)
class Drive:
    """A function a data entry calls with the rows of its file: the module to import, the
    function's qualified name, the parameter that takes the rows."""

    module: str
    qualname: str
    param: str


@dataclass(frozen=True)
class EntryPoint:
    kind: EntryKind
    label: str  # what a finding names as its call's source (a program's); "pytest" for tests
    args: tuple[str, ...] = ()  # pytest's arguments (an OpenFisca run's: its YAML paths)
    path: str = ""  # a script or a data file, relative to the project
    module: str = ""  # a module run as `python -m`; an OpenFisca country package
    argv: tuple[str, ...] = ()
    data_format: str = ""  # a data file's: csv, tsv, json, jsonl
    drives: tuple[Drive, ...] = ()  # a data file's: the functions called with its rows
    delimiter: str = ""  # a table's
    blocks: tuple[Block, ...] = ()  # a document's code examples (examples.py)
    packages: tuple[str, ...] = ()  # examples': what they may use without importing it
    calls: tuple[MadeCall, ...] = ()  # codebias's own calls of the callers (madecalls.py)

    def wire(self, repo_view: str) -> dict[str, object]:
        """As the recorder takes it (harness/recorder.py), paths as the child sees them."""
        if self.kind == "examples":
            blocks = [{"label": b.label, "code": b.code} for b in self.blocks]
            return {"kind": "examples", "blocks": blocks, "packages": list(self.packages),
                    "label": self.label}  # fmt: skip
        if self.kind == "made":
            return {"kind": "made", "calls": [c.wire() for c in self.calls], "label": self.label}
        if self.kind == "pytest":
            return {"kind": "pytest", "args": list(self.args), "label": self.label}
        if self.kind == "openfisca":
            return {"kind": "openfisca", "args": list(self.args), "country": self.module,
                    "label": self.label}  # fmt: skip
        if self.kind == "module":
            return {"kind": "module", "name": self.module, "argv": list(self.argv),
                    "label": self.label}  # fmt: skip
        path = f"{repo_view.rstrip('/')}/{self.path}"
        if self.kind == "data":
            drives = [
                {"module": d.module, "qualname": d.qualname, "param": d.param}
                for d in self.drives
            ]  # fmt: skip
            return {"kind": "data", "path": path, "format": self.data_format,
                    "delimiter": self.delimiter, "label": self.label,
                    "drives": drives}  # fmt: skip
        return {"kind": "script", "path": path, "argv": list(self.argv), "label": self.label}


@dataclass
class Discovery:
    entries: list[EntryPoint] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def entry_points(
    project: Project, modules: Iterable[str], run: Iterable[str] = (), functions: Iterable[str] = ()
) -> Discovery:
    """What to run to record calls of `modules` (dotted names of the modules under test),
    whose `functions` (names) are recorded."""
    commands = list(run)
    if commands:
        return from_commands(project, commands)
    files = ProjectFiles(project)
    wanted = set(modules)
    found = Discovery()
    tests = files.tests_reaching(wanted)
    if tests:
        found.entries.append(
            EntryPoint("pytest", f"pytest ({len(tests)} test files)", args=tuple(tests))
        )
    cases = find_yaml_tests(project, files, wanted)
    if cases is not None:
        found.entries.append(yaml_entry(cases))
    found.entries += files.programs_reaching(wanted)[:MAX_PROGRAMS]
    found.entries += examples_entries(project, wanted, set(functions))
    return found


def examples_entries(project: Project, wanted: set[str], functions: set[str]) -> list[EntryPoint]:
    """One entry per document whose code examples name a module or function under test."""
    packages = tuple(sorted({module.split(".")[0] for module in wanted}))
    by_document: dict[str, list[Block]] = {}
    for block in documentation_examples(project, wanted, functions):
        by_document.setdefault(block.document, []).append(block)
    return [
        EntryPoint("examples", f"{document} examples", blocks=tuple(blocks), packages=packages)
        for document, blocks in by_document.items()
    ]


def from_commands(project: Project, commands: list[str]) -> Discovery:
    found = Discovery()
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError as exc:
            found.warnings.append(f"evidence.run: cannot read {command!r} ({exc})")
            continue
        entry = command_entry(project, words)
        if entry is None:
            found.warnings.append(
                f"evidence.run: {command!r} is left out: only `pytest ...`, `python FILE ...`, "
                "`python -m MODULE ...` and `openfisca test PATHS` within the repository run "
                "while recording"
            )
        else:
            found.entries.append(entry)
    return found


def command_entry(project: Project, words: list[str]) -> EntryPoint | None:
    if not words:
        return None
    head, rest = Path(words[0]).name, words[1:]
    if head == "openfisca":
        cases = openfisca_command(rest)
        return yaml_entry(cases) if cases is not None else None
    if head in ("pytest", "py.test"):
        return EntryPoint("pytest", "pytest", args=tuple(rest))
    if not head.startswith("python"):
        return None
    if rest[:2] == ["-m", "pytest"]:
        return EntryPoint("pytest", "pytest", args=tuple(rest[2:]))
    if len(rest) >= 2 and rest[0] == "-m":
        module, argv = rest[1], tuple(rest[2:])
        if not all(part.isidentifier() for part in module.split(".")):
            return None
        return EntryPoint("module", f"python -m {module}", module=module, argv=argv)
    if rest and rest[0].endswith(".py"):
        script = (project.root / rest[0]).resolve()
        relative = project.relative(script)
        if relative is None or not script.is_file():
            return None
        return EntryPoint("script", f"{relative} __main__", path=relative, argv=tuple(rest[1:]))
    return None


class ProjectFiles:
    """The project's Python files, parsed on demand and once."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.texts: dict[str, bytes] = {}
        self.trees: dict[str, ast.Module | None] = {}
        self.files = list(python_files(project.root))

    def text(self, relative: str) -> bytes:
        if relative not in self.texts:
            path = self.project.root / relative
            try:
                small = path.stat().st_size <= MAX_FILE_BYTES
                self.texts[relative] = path.read_bytes() if small else b""
            except OSError:
                self.texts[relative] = b""
        return self.texts[relative]

    def tree(self, relative: str) -> ast.Module | None:
        if relative not in self.trees:
            try:
                self.trees[relative] = ast.parse(self.text(relative), relative)
            except (ValueError, SyntaxError, RecursionError, MemoryError):
                self.trees[relative] = None
        return self.trees[relative]

    def mentions(self, relative: str, wanted: set[str]) -> bool:
        """Whether the file's text names a part of one of the modules at all: only then is
        it parsed to see what it imports (most files of a large repository do not)."""
        words = {part.encode() for name in wanted for part in name.split(".")}
        text = self.text(relative)
        return any(word in text for word in words)

    def imports(self, relative: str) -> list[str]:
        tree = self.tree(relative)
        if tree is None:
            return []
        location = self.project.locate(self.project.root / relative)
        name = location.name if location is not None else Path(relative).stem
        names = imported_modules(tree, name, location.is_package if location else False)
        return list(dict.fromkeys([*names, *map(self.unrooted, names)]))

    def unrooted(self, name: str) -> str:
        """`src.pkg.mod`, as a test run from the repository's top imports it, is the module
        `pkg.mod` of the source root `src`: the same file."""
        for root in self.project.roots:
            dotted = root.replace("/", ".")
            if dotted and name.startswith(dotted + "."):
                return name[len(dotted) + 1 :]
        return name

    def reaches(self, relative: str, wanted: set[str]) -> bool:
        if not self.mentions(relative, wanted):
            return False
        return any(
            self.name_reaches(name, wanted, PACKAGE_DEPTH) for name in self.imports(relative)
        )

    def name_reaches(self, name: str, wanted: set[str], depth: int) -> bool:
        """Whether importing `name` imports one of `wanted`: it is one (or an attribute or
        submodule of one), or a package whose `__init__` imports one."""
        if any(name == m or name.startswith(m + ".") for m in wanted):
            return True
        below = {m for m in wanted if m.startswith(name + ".")}
        if not below or depth == 0:
            return False
        init = next(
            (
                f
                for f in module_files(name, self.project.roots)
                if f.endswith("__init__.py") and (self.project.root / f).is_file()
            ),
            None,
        )
        if init is None:
            return False
        return any(self.name_reaches(n, below, depth - 1) for n in self.imports(init))

    def tests_reaching(self, wanted: set[str]) -> list[str]:
        conftests = {
            str(Path(f).parent) for f in self.files if Path(f).name == "conftest.py"
            if self.reaches(f, wanted)
        }  # fmt: skip
        chosen = []
        for relative in self.files:
            if not is_test_file(relative):
                continue
            folders = {str(p) for p in Path(relative).parents}
            if folders & conftests or self.reaches(relative, wanted):
                chosen.append(relative)
        return chosen[:MAX_TEST_FILES]

    def programs_reaching(self, wanted: set[str]) -> list[EntryPoint]:
        """Demos: modules under test with a `__main__` block first, then programs in demo
        folders, then other files with a `__main__` block, each importing a module tested."""
        own: list[EntryPoint] = []
        demos: list[EntryPoint] = []
        others: list[EntryPoint] = []
        for relative in self.files:
            path = Path(relative)
            if is_test_file(relative) or path.name in NOT_DEMOS:
                continue
            in_demos = any(part in DEMO_DIRS for part in path.parts[:-1])
            if not (in_demos or b"__main__" in self.text(relative)):
                continue
            location = self.project.locate(self.project.root / relative)
            tree = self.tree(relative)
            if tree is None:
                continue
            # A module of a package runs by `-m` (its relative imports work); a loose file
            # by its path, as `python examples/demo.py` runs it.
            in_package = (self.project.root / relative).parent.joinpath("__init__.py").is_file()
            module = location.name if location is not None and in_package else ""
            switch = demo_switch(tree)
            if location is not None and location.name in wanted:
                if has_main_block(tree):
                    own.append(program(relative, module, switch))
                continue
            if not (in_demos or has_main_block(tree)) or not self.reaches(relative, wanted):
                continue
            (demos if in_demos else others).append(program(relative, module, switch))
        return own + demos + others


def yaml_entry(cases: YamlTests) -> EntryPoint:
    return EntryPoint("openfisca", cases.label, args=cases.paths, module=cases.country)


def program(relative: str, module: str, switch: str | None = None) -> EntryPoint:
    """A program, by `-m` when it has a dotted `module` name, else by its path; given its
    demonstration `switch` when it has one."""
    argv = (switch,) if switch else ()
    label = f"{relative} __main__" + (f" {switch}" if switch else "")
    if module:
        return EntryPoint("module", label, module=module, argv=argv)
    return EntryPoint("script", label, path=relative, argv=argv)


def demo_switch(tree: ast.Module) -> str | None:
    """The word on its command line that runs the program's demonstration: a switch it
    declares (`add_argument("--demo", action="store_true")`), a sub-command
    (`add_parser("demo")`), or a word it looks for in `sys.argv` (`"--example" in sys.argv`,
    `sys.argv[1] == "demo"`), named for a demonstration."""
    for node in ast.walk(tree):
        words: list[ast.expr] = []
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            if any(
                k.arg == "action"
                and isinstance(k.value, ast.Constant)
                and k.value.value in ("store_true", "store_const", "count")
                for k in node.keywords
            ):
                words = list(node.args)  # a switch, not an option that takes a value
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_parser":
            words = list(node.args[:1])  # a sub-command: `demo`
        elif isinstance(node, ast.Compare) and any(
            is_argv(side) or (isinstance(side, ast.Subscript) and is_argv(side.value))
            for side in [node.left, *node.comparators]
        ):
            words = [node.left, *node.comparators]  # `"--example" in sys.argv`, `argv[1] == ...`
        for word in words:
            if isinstance(word, ast.Constant) and isinstance(word.value, str):
                if word.value.strip("-").lower() in DEMO_SWITCHES:
                    return word.value
    return None


def is_argv(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "argv"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def python_files(root: Path) -> Iterable[str]:
    """The project's Python files, relative, in order; tools' folders and links left out."""
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if not name.endswith(".py") or path.is_symlink() or not path.is_file():
                continue
            count += 1
            if count > MAX_FILES:
                return
            yield path.relative_to(root).as_posix()


def is_test_file(relative: str) -> bool:
    name = Path(relative).name
    return name.startswith("test_") or name.endswith("_test.py")


def has_main_block(tree: ast.Module) -> bool:
    """`if __name__ == "__main__":` at the top level."""
    for stmt in tree.body:
        if not isinstance(stmt, ast.If) or not isinstance(stmt.test, ast.Compare):
            continue
        sides = [stmt.test.left, *stmt.test.comparators]
        names = any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
        main = any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)
        if names and main:
            return True
    return False
