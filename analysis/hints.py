"""What the code itself says about each name: the constants it is compared with, its kind.

A module is read once. Every comparison, `in` test, `match` case, lookup-table subscript and
arithmetic with a constant, anywhere in the module, is filed under the *leaf name* of the
expression it involves: `applicant["age"] > 65`, `p.age > 65`, `age > 65` and
`years_old = applicant["age"]; years_old > 65` all file 65 under "age". Helpers count too:
calling `bonus(a=applicant["age"])` links bonus's parameter `a` to "age". Matching by name
keeps the analysis simple and lets values flow across helper functions and aliases.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from analysis.functions import record_class_kind

STR_METHODS = frozenset(
    "lower upper strip lstrip rstrip casefold title capitalize split replace startswith "
    "endswith isdigit isalpha isnumeric find index count format zfill".split()
)
WRAPPERS = frozenset("int float str bool abs round min max".split())
NUMERIC_WRAPPERS = frozenset("int float abs round".split())
MISSING = object()


@dataclass(frozen=True)
class EnumMember:
    """A member of an Enum class of the module under test, by name."""

    cls: str
    member: str

    def __repr__(self) -> str:
        return f"{self.cls}.{self.member}"


@dataclass(frozen=True)
class DateValue:
    """A calendar date, built as datetime.date inside the sandbox."""

    iso: str

    def __repr__(self) -> str:
        return f"date({self.iso})"


@dataclass
class Hint:
    constants: list[Any] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)  # num, int, float, str, bool, list, dict
    contains: list[Any] = field(default_factory=list)  # `c in name`: name holds c
    lengths: list[int] = field(default_factory=list)  # `len(name) > 2`: sizes that matter

    def add(self, value: Any) -> None:
        if isinstance(value, (list, tuple, set, frozenset, dict)):
            return
        key = (type(value), value)
        if all((type(v), v) != key for v in self.constants):
            self.constants.append(value)
        self.kinds.add(kind_of(value))

    def merge(self, other: Hint) -> None:
        for value in other.constants:
            self.add(value)
        self.kinds |= other.kinds
        for value in other.contains:
            if value not in self.contains:
                self.contains.append(value)
        self.lengths += [n for n in other.lengths if n not in self.lengths]


def kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, EnumMember):
        return "enum"
    return "other"


class ModuleFacts:
    """Everything the engine learns from a module's syntax, computed once per module."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.classes: dict[str, ast.ClassDef] = {}
        self.class_names: dict[int, str] = qualified_class_names(tree)
        # Results of analyses that every function of a class repeats (its constructor's
        # inputs), keyed by node identity; shared by the threads testing this module.
        self.memo: dict[Any, Any] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        every_function: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.constants: dict[str, Any] = {}
        self.enums: dict[str, list[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.classes.setdefault(node.name, node)
                if record_class_kind(node) == "enum":
                    self.enums[node.name] = enum_members(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                every_function.append(node)
        # Helpers are looked up by name: module-level definitions win over methods.
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[stmt.name] = stmt
        for fn in every_function:
            self.functions.setdefault(fn.name, fn)
        for stmt in tree.body:
            for name, value in literal_assignments(stmt, self):
                self.constants[name] = value
        for cls in self.classes.values():
            for stmt in cls.body:
                for name, value in literal_assignments(stmt, self):
                    self.constants.setdefault(f"{cls.name}.{name}", value)
                    self.constants.setdefault(f"self.{name}", value)
            # Tables an instance sets up for itself: `self.surcharge = {"miner": 40}`.
            for node in ast.walk(cls):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        value = self.const(node.value)
                        if value is not MISSING:
                            self.constants.setdefault(f"self.{target.attr}", value)
        self.hints: dict[str, Hint] = {}
        links: list[tuple[str, str]] = []
        for fn in every_function:
            Harvester(self, fn, links).run()
        # A helper's parameter shares what is known of the names passed to it, both ways.
        for _ in range(2):
            for param, subject in links:
                a, b = self.hint(param), self.hint(subject)
                a.merge(b)
                b.merge(a)

    def qualname(self, cls: ast.ClassDef) -> str:
        """The dotted name a class is reached by from its module: "League.Rules"."""
        return self.class_names.get(id(cls), cls.name)

    def hint(self, name: str) -> Hint:
        return self.hints.setdefault(name.lower(), Hint())

    def const(self, node: ast.expr, local: dict[str, Any] | None = None) -> Any:
        """The constant value of `node`, resolving names and enum members; MISSING if none."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.const(node.operand, local)
            return (
                -inner
                if isinstance(inner, (int, float)) and not isinstance(inner, bool)
                else MISSING
            )
        if isinstance(node, ast.Name):
            if local and node.id in local:
                return local[node.id]
            return self.constants.get(node.id, MISSING)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = node.value.id
            if owner in self.enums and node.attr in self.enums[owner]:
                return EnumMember(self.qualname(self.classes[owner]), node.attr)
            return self.constants.get(f"{owner}.{node.attr}", MISSING)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = [self.const(e, local) for e in node.elts]
            if any(i is MISSING for i in items):
                return MISSING
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            keys = [self.const(k, local) if k is not None else MISSING for k in node.keys]
            if any(k is MISSING for k in keys):
                return MISSING
            values = [self.const(v, local) for v in node.values]
            return {k: (None if v is MISSING else v) for k, v in zip(keys, values, strict=True)}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("set", "frozenset", "tuple", "list") and len(node.args) == 1:
                return self.const(node.args[0], local)
        return MISSING


def qualified_class_names(tree: ast.Module) -> dict[int, str]:
    names: dict[int, str] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                names[id(stmt)] = prefix + stmt.name
                visit(stmt.body, f"{prefix}{stmt.name}.")
            elif isinstance(stmt, (ast.If, ast.Try)):
                for block in (stmt.body, stmt.orelse, getattr(stmt, "finalbody", [])):
                    visit(block, prefix)

    visit(tree.body, "")
    return names


def enum_members(cls: ast.ClassDef) -> list[str]:
    members = []
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign):
            members += [
                t.id for t in stmt.targets if isinstance(t, ast.Name) and not t.id.startswith("_")
            ]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
            members.append(stmt.target.id)
    return members


def literal_assignments(stmt: ast.stmt, facts: ModuleFacts) -> Iterator[tuple[str, Any]]:
    if isinstance(stmt, ast.Assign):
        value = facts.const(stmt.value)
        if value is not MISSING:
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    yield target.id, value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        value = facts.const(stmt.value)
        if value is not MISSING and isinstance(stmt.target, ast.Name):
            yield stmt.target.id, value


class Harvester:
    """Files the constants of one function under the leaf names they are compared with."""

    def __init__(
        self,
        facts: ModuleFacts,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        links: list[tuple[str, str]],
    ) -> None:
        self.facts = facts
        self.fn = fn
        self.links = links
        self.alias: dict[str, str] = {}
        self.local: dict[str, Any] = {}
        # Every constant a local is ever given: `limit = 13.5` in one branch, 12.0 in another.
        self.local_all: dict[str, list[Any]] = {}
        # `age = 2024 - birth_year`: age == sign * birth_year + offset, so a threshold on
        # age is also one on birth_year (2024 - 75 = 1949).
        self.affine: dict[str, tuple[str, int, float]] = {}

    def run(self) -> None:
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                self.assign(node.targets[0], node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self.assign(node.target, node.value)
            elif isinstance(node, ast.NamedExpr):
                self.assign(node.target, node.value)
        for arg in all_args(self.fn):
            if arg.annotation is not None:
                self.annotate(arg.arg, arg.annotation)
        for node in ast.walk(self.fn):
            self.visit(node)

    def assign(self, target: ast.expr, value: ast.expr) -> None:
        if not isinstance(target, ast.Name):
            return
        const = self.facts.const(value, self.local)
        if const is not MISSING:
            self.local[target.id] = const
            self.local_all.setdefault(target.id, []).append(const)
            return
        solved = self.linear(value)
        if solved is not None and solved[1:] != (1, 0):
            self.affine[target.id] = solved
            return
        names = self.subjects(value)
        if len(names) == 1 and names[0] != target.id.lower():
            self.alias[target.id] = names[0]

    def linear(self, node: ast.expr) -> tuple[str, int, float] | None:
        """(name, sign, offset) when node == sign * name + offset, for one plain name."""
        if isinstance(node, ast.Name):
            if node.id in self.affine:
                return self.affine[node.id]
            return (self.alias.get(node.id, node.id).lower(), 1, 0)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            left_c = self.facts.const(node.left, self.local)
            right_c = self.facts.const(node.right, self.local)
            if is_number(right_c):
                inner = self.linear(node.left)
                if inner is not None:
                    delta = right_c if isinstance(node.op, ast.Add) else -right_c
                    return (inner[0], inner[1], inner[2] + delta)
            if is_number(left_c):
                inner = self.linear(node.right)
                if inner is not None:
                    sign = 1 if isinstance(node.op, ast.Add) else -1
                    return (inner[0], sign * inner[1], left_c + sign * inner[2])
        return None

    def annotate(self, name: str, annotation: ast.expr) -> None:
        kind = annotation_kind(annotation)
        if kind:
            self.facts.hint(name).kinds.add(kind)

    def subjects(self, node: ast.expr) -> list[str]:
        """Leaf names an expression is about: `int(p["age"]) - 5` is about "age"."""
        if isinstance(node, ast.Name):
            return [self.alias.get(node.id, node.id).lower()]
        if isinstance(node, ast.Attribute):
            return [node.attr.lower()]
        if isinstance(node, ast.Subscript):
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return [key.value.lower()]
            return self.subjects(node.value)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                if func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant):
                    name = node.args[0].value
                    return [name.lower()] if isinstance(name, str) else []
                if func.attr in STR_METHODS:
                    return self.subjects(func.value)
            if isinstance(func, ast.Name) and func.id in ("getattr",) and len(node.args) >= 2:
                key = node.args[1]
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    return [key.value.lower()]
            if isinstance(func, ast.Name) and func.id in WRAPPERS:
                return [s for a in node.args for s in self.subjects(a)]
            return []
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, (ast.Add, ast.Sub)):
                return self.subjects(node.left) + self.subjects(node.right)
            # `debts / income < 0.4`: the threshold belongs to the ratio, not to either name.
            return []
        if isinstance(node, ast.UnaryOp):
            return self.subjects(node.operand)
        return []

    def possible(self, node: ast.expr) -> list[Any]:
        """Constants an expression can take: itself, or either branch of `a if c else b`."""
        if isinstance(node, ast.IfExp):
            return self.possible(node.body) + self.possible(node.orelse)
        if isinstance(node, ast.Name) and len(self.local_all.get(node.id, [])) > 1:
            return list(self.local_all[node.id])
        value = self.facts.const(node, self.local)
        return [] if value is MISSING else [value]

    def operands(self, node: ast.expr) -> list[str]:
        """Every name an arithmetic expression reads, for kinds (not for thresholds)."""
        if isinstance(node, ast.BinOp):
            return self.operands(node.left) + self.operands(node.right)
        return self.subjects(node)

    def file(self, subjects: list[str], value: Any, kind: str | None = None) -> None:
        for name in subjects:
            hint = self.facts.hint(name)
            if isinstance(value, (list, tuple, set, frozenset)):
                for item in value:
                    hint.add(item)
            elif isinstance(value, dict):
                for item in value:
                    hint.add(item)
            else:
                hint.add(value)
            if kind:
                hint.kinds.add(kind)

    def visit(self, node: ast.AST) -> None:
        const = self.facts.const
        if isinstance(node, ast.Compare):
            items = [node.left, *node.comparators]
            for left, op, right in zip(items, node.ops, items[1:], strict=False):
                lc, rc = const(left, self.local), const(right, self.local)
                if isinstance(op, (ast.In, ast.NotIn)):
                    if rc is not MISSING and not isinstance(rc, str):
                        self.file(self.subjects(left), rc)
                    elif lc is not MISSING and rc is MISSING:
                        for name in self.subjects(right):
                            hint = self.facts.hint(name)
                            if lc not in hint.contains:
                                hint.contains.append(lc)
                    elif rc is not MISSING and isinstance(rc, str):
                        self.file(self.subjects(left), rc, "str")
                    continue
                for side, other in ((right, left), (left, right)):
                    for value in self.possible(side):
                        sized = sized_subjects(other, self)
                        if sized and isinstance(value, int) and not isinstance(value, bool):
                            for name in sized:  # `len(hobbies) > 2`: lists around that size
                                self.facts.hint(name).lengths.append(value)
                        else:
                            self.file(self.subjects(other), value)
                            solved = self.linear(other)
                            if solved is not None and solved[1:] != (1, 0) and is_number(value):
                                name, sign, offset = solved
                                self.file([name], as_int((value - offset) * sign))
        elif isinstance(node, ast.Subscript):
            table = const(node.value, self.local)
            if isinstance(table, dict):
                self.file(self.subjects(node.slice), list(table))
        elif isinstance(node, ast.Call):
            self.visit_call(node)
        elif isinstance(node, ast.BinOp):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                value = const(b, self.local)
                numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
                if numeric and isinstance(node.op, (ast.Add, ast.Sub)):
                    # `age - 55` pivots at 55; a factor (`age * 0.5`) is no threshold.
                    self.file(self.subjects(a), value, "num")
                elif numeric or not isinstance(node.op, ast.Add):
                    for name in self.operands(a):
                        self.facts.hint(name).kinds.add("num")
        elif isinstance(node, ast.Attribute) and node.attr in ("year", "month", "day", "toordinal"):
            for name in self.subjects(node.value):
                self.facts.hint(name).kinds.add("dateobj")
        elif isinstance(node, ast.Match):
            subjects = self.subjects(node.subject)
            for case in node.cases:
                for value in pattern_values(case.pattern, self.facts):
                    self.file(subjects, value)
        elif isinstance(node, (ast.For, ast.comprehension)):
            for name in self.subjects(node.iter):
                self.facts.hint(name).kinds.add("list")
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)) and isinstance(
            node.test, (ast.Name, ast.Attribute, ast.Subscript)
        ):
            for name in self.subjects(node.test):
                self.facts.hint(name).kinds.add("truthy")

    def visit_call(self, node: ast.Call) -> None:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called in ("fromisoformat", "strptime", "parse", "to_datetime") and node.args:
            for name in self.subjects(node.args[0]):
                self.facts.hint(name).kinds.add("isodate")
        if isinstance(func, ast.Attribute):
            table = self.facts.const(func.value, self.local)
            if func.attr == "get" and isinstance(table, dict) and node.args:
                self.file(self.subjects(node.args[0]), list(table))
            elif func.attr in STR_METHODS:
                for name in self.subjects(func.value):
                    self.facts.hint(name).kinds.add("str")
                if func.attr in ("startswith", "endswith") and node.args:
                    value = self.facts.const(node.args[0], self.local)
                    if value is not MISSING:
                        self.file(self.subjects(func.value), value, "str")
            elif func.attr in ("append", "extend", "items", "keys", "values"):
                for name in self.subjects(func.value):
                    self.facts.hint(name).kinds.add(
                        "list" if func.attr in ("append", "extend") else "dict"
                    )
        elif isinstance(func, ast.Name):
            iterables = (
                "len",
                "sum",
                "any",
                "all",
                "sorted",
                "enumerate",
                "set",
                "frozenset",
                "list",
                "tuple",
                "zip",
                "reversed",
            )
            if func.id in iterables and node.args:
                for name in self.subjects(node.args[0]):
                    self.facts.hint(name).kinds.add("list")
            elif func.id in NUMERIC_WRAPPERS and node.args:
                for name in self.subjects(node.args[0]):
                    self.facts.hint(name).kinds.add("num")
            callee = self.facts.functions.get(func.id)
            if callee is not None:
                self.link(callee, node)

    def link(self, callee: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> None:
        params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args)]
        pairs = list(zip(params, call.args, strict=False))
        pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
        for param, arg in pairs:
            for subject in self.subjects(arg):
                if subject != param.lower():
                    self.links.append((param.lower(), subject))


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_int(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def sized_subjects(node: ast.expr, harvester: Harvester) -> list[str]:
    """`len(x)` -> the names of x."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
    ):
        return harvester.subjects(node.args[0])
    return []


def all_args(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def pattern_values(pattern: ast.pattern, facts: ModuleFacts) -> list[Any]:
    if isinstance(pattern, ast.MatchValue):
        value = facts.const(pattern.value)
        return [] if value is MISSING else [value]
    if isinstance(pattern, ast.MatchSingleton):
        return [pattern.value]
    if isinstance(pattern, ast.MatchOr):
        return [v for p in pattern.patterns for v in pattern_values(p, facts)]
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
        return pattern_values(pattern.pattern, facts)
    return []


def annotation_kind(annotation: ast.expr) -> str | None:
    """The kind an annotation names, looking through Optional[...] and `X | None`."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        for side in (annotation.left, annotation.right):
            if not (isinstance(side, ast.Constant) and side.value is None):
                return annotation_kind(side)
    if isinstance(annotation, ast.Subscript):
        base = annotation.value
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name == "Optional":
            return annotation_kind(annotation.slice)
        if name in ("list", "List", "Sequence", "Iterable", "tuple", "Tuple", "set", "Set"):
            return "list"
        if name in ("dict", "Dict", "Mapping"):
            return "dict"
        if name == "Literal":
            return "literal"
        return None
    name = (
        annotation.attr if isinstance(annotation, ast.Attribute) else getattr(annotation, "id", "")
    )
    return {
        "int": "int",
        "float": "float",
        "str": "str",
        "bool": "bool",
        "list": "list",
        "dict": "dict",
        "Decimal": "float",
        "date": "dateobj",
        "datetime": "dateobj",
    }.get(name)


def literal_choices(annotation: ast.expr, facts: ModuleFacts) -> list[Any]:
    """The values of a `Literal[...]` annotation (looking through Optional)."""
    if isinstance(annotation, ast.Subscript):
        base = annotation.value
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name == "Literal":
            value = facts.const(annotation.slice)
            if isinstance(value, tuple):
                return list(value)
            return [] if value is MISSING else [value]
        if name == "Optional":
            return literal_choices(annotation.slice, facts)
    if isinstance(annotation, ast.BinOp):
        return literal_choices(annotation.left, facts) + literal_choices(annotation.right, facts)
    return []


def neighbours(value: Any) -> list[Any]:
    """A numeric threshold and the values on either side of it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return [value]
    if isinstance(value, int):
        return [value - 1, value, value + 1]
    if not math.isfinite(value):
        return [value]
    step = 10 ** (math.floor(math.log10(abs(value))) - 2) if value else 0.01
    return [round(value - step, 10), value, round(value + step, 10)]
