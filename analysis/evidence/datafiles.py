"""Data entry points: the project's own tables and records as the inputs of its functions.

Many repositories ship the inputs their functions take as data, not as calls: a
`datasets/test.csv` whose columns are exactly what `make_prediction(input_data=...)` reads.
Found here, read on the host only as far as their header (the column names, or the keys of
the records): CSV and TSV files, JSON holding a list of objects or one object, JSON Lines;
under the project, tools' and hidden folders left out, files over MAX_DATA_BYTES too.

A function is called with a file's rows when one of its parameters reads fields of the file
(keys, columns, attributes: those the builder found, and the string constants the function,
or a helper it passes the parameter on to, reads the parameter or what it derives from it
with) — at least two in common, or one of a protected category — and its other parameters
have defaults (a method's instance is built bare, when its class's `__init__` needs nothing).
One `data` entry per file runs in the recorder after the tests and demos (harness/recorder.py:
it reads the file and calls each function with a row, a DataFrame of rows or a list of rows,
as the parameter's annotation says or whichever returns first), and each call is recorded as
any other, its source the file (`datasets/test.csv row 0`). A data file that cannot be read
as one (binary, ragged rows, broken JSON) is left out and named in a warning.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from analysis.caches import Cache
from analysis.evidence.entrypoints import Discovery, Drive, EntryPoint
from analysis.execution.harness.datarows import names_a_file
from analysis.scan.project import SKIP_DIRS, Project
from analysis.shapes import VARARGS, CollectionShape, FieldsShape, InputModel, Shape
from analysis.source.functions import (
    KEY_READERS,
    FunctionInfo,
    FunctionNode,
    all_arguments,
    call_bindings,
    required_parameters,
)
from analysis.source.reads_input import mentions_input, rooted_at_input
from config.policy import Policy

FORMATS = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
MAX_DATA_BYTES = 5 << 20  # a larger file is a data set to train on, not inputs to try
MAX_JSON_BYTES = 1 << 20  # a JSON file is parsed whole to read its keys
MAX_DATA_FILES = 20  # files driven, at most
MAX_LOOKED = 200  # data files looked at, at most
MAX_WALKED = 20_000  # files of the project walked past, at most
MAX_READ_BYTES = 16 << 20  # of all the data files looked at, read on the host
HEAD_BYTES = 256 << 10  # of a CSV, read to check its header and first rows
HEAD_ROWS = 50  # rows checked (and the most the recorder reads)
HELPER_DEPTH = 2  # helpers a parameter is passed on to, followed
NESTED_DEPTH = 4  # levels of a JSON file whose keys a function handed its path may read
MAX_KEYS = 500
DELIMITERS = (",", ";", "\t", "|")


class MalformedData(ValueError):
    """A data file that cannot be read as one: named in a warning, left out."""


@dataclass(frozen=True)
class DataFile:
    path: str  # relative to the project
    format: str
    columns: frozenset[str]  # of its rows: a table's, or the keys of its plain records
    delimiter: str = ""  # a table's
    # The names anywhere in it (a JSON object's keys at any depth): what a function handed
    # the file's path reads from it (harness/namedfiles.py).
    keys: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Reader:
    """A function of the project that may be called with a data file's rows: its module, and
    the names each of its parameters reads."""

    module: str
    qualname: str
    reads: dict[str, frozenset[str]]
    # The recording's scope wants it (evidence/scope.py); else only a file of people (one
    # of its columns protected) is driven through it.
    wanted: bool = True


@dataclass(frozen=True)
class DataFiles:
    """A project's data files, and a warning for each left out."""

    files: list[DataFile]
    warnings: list[str]


def data_entries(data_files: DataFiles, readers: list[Reader], policy: Policy) -> Discovery:
    """One `data` entry per data file whose fields a reader's parameter reads."""
    found = Discovery(warnings=list(data_files.warnings))
    for data in data_files.files:
        drives = tuple(
            Drive(reader.module, reader.qualname, param)
            for reader in readers
            for param, names in reader.reads.items()
            if matches(reader, param, names, data, policy)
        )
        if drives:
            entry = EntryPoint(
                "data", data.path, path=data.path, data_format=data.format, drives=drives,
                delimiter=data.delimiter,
            )  # fmt: skip
            found.entries.append(entry)
        if len(found.entries) >= MAX_DATA_FILES:
            break
    return found


def matches(
    reader: Reader, param: str, names: frozenset[str], data: DataFile, policy: Policy
) -> bool:
    """Whether `param` of `reader` reads the file's rows, or the file by its path (the
    parameter names a file: `profile_json`)."""
    fields = data.keys | data.columns if names_a_file(param) else data.columns
    people = any(policy.canonical_category(c) is not None for c in fields)
    return (reader.wanted or people) and overlaps(names, fields, policy)


def overlaps(names: frozenset[str], columns: frozenset[str], policy: Policy) -> bool:
    """Two fields in common, or one of a protected category."""
    common = names & columns
    return len(common) >= 2 or any(policy.canonical_category(n) is not None for n in common)


# -- the files -------------------------------------------------------------------------------
def data_files(project: Project) -> DataFiles:
    """The project's data files with their fields."""
    root = project.root
    files: list[DataFile] = []
    warnings: list[str] = []
    for relative, data_format in candidate_files(root):
        try:
            columns, delimiter, keys = read_fields(root / relative, data_format)
        except MalformedData as exc:
            warnings.append(f"evidence: data file {relative} is left out: {exc}")
            continue
        if columns or keys:
            files.append(DataFile(relative, data_format, columns, delimiter, keys))
    return DataFiles(files, warnings)


def candidate_files(root: Path) -> Iterable[tuple[str, str]]:
    """The data files to read, in order, until MAX_LOOKED of them or MAX_READ_BYTES read (a
    library shipping thousands of JSON service models is not parsed whole)."""
    walked = looked = read = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(names):
            walked += 1
            if walked > MAX_WALKED or looked >= MAX_LOOKED:
                return
            data_format = FORMATS.get(Path(name).suffix.lower())
            path = Path(folder) / name
            if data_format is None or name.startswith(".") or path.is_symlink():
                continue
            try:
                size = path.stat().st_size if path.is_file() else MAX_DATA_BYTES + 1
            except OSError:
                continue
            if size > MAX_DATA_BYTES:
                continue
            read += min(size, MAX_JSON_BYTES if data_format == "json" else HEAD_BYTES)
            if read > MAX_READ_BYTES:
                return
            looked += 1
            yield path.relative_to(root).as_posix(), data_format


def read_fields(path: Path, data_format: str) -> tuple[frozenset[str], str, frozenset[str]]:
    """The column names and the delimiter of a table, or the keys of the records (no names
    for a file that holds no records: a table without a header, JSON of numbers); and the
    names anywhere in it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(MAX_JSON_BYTES + 1 if data_format == "json" else HEAD_BYTES)
    except OSError as exc:
        raise MalformedData(f"cannot be read ({exc.strerror})") from None
    if b"\0" in head:
        raise MalformedData("it is not text")
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # A read cut inside a character is no fault of the file's.
        if exc.start < len(head) - 4:
            raise MalformedData("it is not UTF-8 text") from None
        text = head[: exc.start].decode("utf-8-sig")
    if data_format in ("csv", "tsv"):
        delimiter = "\t" if data_format == "tsv" else sniff(text)
        header = table_header(text, delimiter, len(head) < HEAD_BYTES)
        return header, delimiter, header
    if data_format == "jsonl":
        keys = record_keys(json_lines(text, len(head) < HEAD_BYTES))
        return keys, "", keys
    if len(head) > MAX_JSON_BYTES:
        return frozenset(), "", frozenset()  # too large to read its keys: left alone
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise MalformedData("it is not valid JSON") from None
    keys = frozenset(nested_keys(value, set(), 0))
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        return frozenset(), "", keys  # JSON, but not records
    return record_keys(value[:HEAD_ROWS]), "", keys


def nested_keys(value: object, found: set[str], depth: int) -> set[str]:
    """The keys of a JSON value's objects, NESTED_DEPTH deep, at most MAX_KEYS of them."""
    if depth > NESTED_DEPTH or len(found) >= MAX_KEYS:
        return found
    if isinstance(value, dict):
        found.update(k for k in value if isinstance(k, str))
        items = list(value.values())
    else:
        items = value[:HEAD_ROWS] if isinstance(value, list) else []
    for item in items:
        nested_keys(item, found, depth + 1)
    return found


def sniff(text: str) -> str:
    """A CSV's delimiter: of `,;|` and tab, the one its first line holds most of."""
    first = text.splitlines()[0] if text else ""
    return max(DELIMITERS, key=first.count)


def table_header(text: str, delimiter: str, whole: bool) -> frozenset[str]:
    """A table's column names, its first rows checked: each as long as the header. A first
    row that is no header (a name missing or repeated, numbers) names nothing."""
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        rows = [row for row in reader if row]
    except csv.Error as exc:
        raise MalformedData(f"it is not a valid table ({exc})") from None
    if not whole:
        rows = rows[:-1]  # the last row read may be cut short
    if not rows:
        return frozenset()
    header = [name.strip() for name in rows[0]]
    numbers = sum(is_number(name) for name in header)
    if len(header) < 2 or "" in header or len(set(header)) < len(header):
        return frozenset()
    if 2 * numbers > len(header):
        return frozenset()
    for number, row in enumerate(rows[1 : HEAD_ROWS + 1], start=1):
        if len(row) != len(header):
            raise MalformedData(f"row {number} has {len(row)} fields, its header {len(header)}")
    return frozenset(header)


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def json_lines(text: str, whole: bool) -> list[object]:
    lines = [line for line in text.splitlines() if line.strip()]
    if not whole:
        lines = lines[:-1]
    values = []
    for number, line in enumerate(lines[:HEAD_ROWS], start=1):
        try:
            values.append(json.loads(line))
        except (ValueError, RecursionError):
            raise MalformedData(f"line {number} is not valid JSON") from None
    return values


def record_keys(values: list[object]) -> frozenset[str]:
    """The keys of records: objects most of whose values are plain (a table of lookups,
    `{"Gender": {"Female": -15}}`, is configuration, not a person)."""
    if not values or not all(isinstance(v, dict) and plain_record(v) for v in values):
        return frozenset()
    return frozenset(k for v in values if isinstance(v, dict) for k in v if isinstance(k, str))


def plain_record(value: dict[object, object]) -> bool:
    plain = sum(isinstance(v, (str, int, float, bool)) or v is None for v in value.values())
    return bool(value) and 2 * plain >= len(value)


# -- the functions ---------------------------------------------------------------------------
def reader(
    module: str,
    info: FunctionInfo,
    model: InputModel,
    functions: dict[str, FunctionNode],
    wanted: bool = True,
    memo: dict[tuple[int, str, int], set[str]] | None = None,
) -> Reader | None:
    """What `info`'s parameters read, when it can be called with only one of them given
    (`functions`: the module's own and those it imports from the project, by name; `memo`:
    what helpers read, kept across the functions of a module)."""
    read = NamesRead(functions, {} if memo is None else memo)
    if "<locals>" in info.qualname:
        return None
    required = set(required_parameters(info.node)) - option_defaults(info.node)
    bound: set[str] = set()  # `self` or `cls`: given by the call
    if info.owner is not None and "staticmethod" not in info.decorators:
        if "classmethod" not in info.decorators and not built_bare(info.owner):
            return None  # its instance needs arguments: recorded from the tests that make one
        bound = {bound_name(info.node)}
        required -= bound
    shapes = {param.name: param.shape for param in model.params}
    reads: dict[str, frozenset[str]] = {}
    spread = {a.arg for a in (info.node.args.vararg, info.node.args.kwarg) if a is not None}
    for arg in all_arguments(info.node):
        if arg.arg in spread | bound or required - {arg.arg}:
            continue  # another parameter has no default: nothing to give it
        names = set(read.of(info.node, arg.arg))
        shape = shapes.get(arg.arg)
        if shape is not None:
            names |= field_names(shape)
        if names:
            reads[arg.arg] = frozenset(names)
    if not reads:
        return None
    return Reader(module, info.qualname, reads, wanted)


def built_bare(cls: ast.ClassDef) -> bool:
    """A class whose own `__init__`, if it has one, needs no argument: the recorder builds
    it bare to call its method (one inherited is tried there)."""
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__":
            return set(required_parameters(stmt)) <= {bound_name(stmt)}
    return True


def bound_name(fn: FunctionNode) -> str:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    return positional[0].arg if positional else ""


def option_defaults(fn: FunctionNode) -> set[str]:
    """The parameters a command-line option gives a default, which the command keeps, not
    the function (`@click.option("--top", default=5)`, a flag): the recorder gives them."""
    found: set[str] = set()
    for decorator in fn.decorator_list:
        if not (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "option"
            and any(k.arg in ("default", "is_flag") for k in decorator.keywords)
        ):
            continue
        names = [a.value for a in decorator.args if isinstance(a, ast.Constant)]
        texts = [n for n in names if isinstance(n, str)]
        plain = [n for n in texts if not n.startswith("-")]
        long = [n[2:] for n in texts if n.startswith("--")]
        short = [n[1:] for n in texts if n.startswith("-") and not n.startswith("--")]
        chosen = (plain or long or short or [""])[0].split("/")[0]
        if chosen:
            found.add(chosen.replace("-", "_").lower())
    return found


def field_names(shape: Shape) -> set[str]:
    """The fields the builder found under a parameter, at any depth."""
    if isinstance(shape, CollectionShape):
        return field_names(shape.item)
    if not isinstance(shape, FieldsShape):
        return set()
    names = {name for name in shape.fields if name != VARARGS}
    for sub in shape.fields.values():
        names |= field_names(sub)
    return names


# (function, parameter, helper depth) -> the names it reads the parameter with.
NAMES_READ: Cache[tuple[int, str, int], set[str]] = Cache("names read")


class NamesRead:
    """The string constants a function reads a parameter with, or what it derives from it
    (`data = pd.DataFrame(param)`, `for row in param`): `x["k"]`, `x[["k", "j"]]`,
    `x.get("k")`, `x.k`, `getattr(x, "k")`, `"k" in x`; and, HELPER_DEPTH helpers deep, what
    a function of the module (`functions`: its own and those it imports, by name) reads the
    parameter it is passed it with. `memo`: kept across the functions of one module."""

    def __init__(
        self, functions: dict[str, FunctionNode], memo: dict[tuple[int, str, int], set[str]]
    ) -> None:
        self.functions = functions
        self.memo = memo

    def of(self, fn: FunctionNode, param: str, depth: int = HELPER_DEPTH) -> set[str]:
        key = (id(fn), param, depth)
        if key not in self.memo:
            self.memo[key] = set()  # a helper calling itself reads nothing more
            self.memo[key] = self.read(fn, param, depth)
        return self.memo[key]

    def read(self, fn: FunctionNode, param: str, depth: int) -> set[str]:
        derived = derived_names(fn, param)
        called = {id(n.func) for n in ast.walk(fn) if isinstance(n, ast.Call)}
        found: set[str] = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Subscript) and rooted_at_input(node.value, derived):
                found |= strings(node.slice)
            elif isinstance(node, ast.Attribute) and rooted_at_input(node.value, derived):
                if id(node) not in called:
                    found.add(node.attr)
            elif isinstance(node, ast.Compare) and any(
                isinstance(op, (ast.In, ast.NotIn)) for op in node.ops
            ):
                if any(rooted_at_input(side, derived) for side in node.comparators):
                    found |= strings(node.left)
            elif isinstance(node, ast.Call):
                found |= self.call(node, derived, depth)
        return found

    def call(self, call: ast.Call, derived: set[str], depth: int) -> set[str]:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in KEY_READERS and call.args:
            if rooted_at_input(func.value, derived):
                return strings(call.args[0])
        if isinstance(func, ast.Name) and func.id == "getattr" and len(call.args) >= 2:
            if rooted_at_input(call.args[0], derived):
                return strings(call.args[1])
        if depth and isinstance(func, ast.Name) and func.id in self.functions:
            callee = self.functions[func.id]
            found: set[str] = set()
            for name, value in call_bindings(callee, call, False):
                if mentions_input(value, derived):
                    found |= self.of(callee, name, depth - 1)
            return found
        return set()


def derived_names(fn: FunctionNode, param: str) -> set[str]:
    """`param` and the local names assigned from an expression that mentions it (or one of
    them), loop targets over one and what a `with` over one binds included."""
    derived = {param}
    while True:
        before = len(derived)
        for node in ast.walk(fn):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                value = node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                value, targets = node.iter, [node.target]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                value, targets = node.context_expr, [node.optional_vars]  # `open(path) as f`
            else:
                continue
            if value is not None and mentions_input(value, derived):
                derived |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if len(derived) == before:
            return derived




def strings(node: ast.AST) -> set[str]:
    """A string constant, or those of a list or tuple of them (`df[["age", "sex"]]`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return set().union(*(strings(e) for e in node.elts if isinstance(e, ast.Constant)))
    return set()
