"""The harvest of one function: the constants its expressions are compared with, filed under
the leaf names they involve (see analysis/facts/module.py for how names are matched)."""

from __future__ import annotations

import ast
from datetime import date
from typing import Any, Protocol

from analysis.caches import Cache, Caches
from analysis.facts.annotations import Constants, annotated_bounds, annotation_kind
from analysis.facts.hint import Hint
from analysis.source.functions import (
    KEY_READERS,
    FunctionNode,
    all_args,
    call_bindings,
    called_function,
    constructor,
)
from analysis.source.reads_input import text_of
from analysis.values import MISSING, EnumMember, as_int, is_number


class HarvestFacts(Constants, Protocol):
    """What the harvest reads and fills of its module (`ModuleFacts` is one): the hint of
    every name, the module's functions, its numeric constructors and its per-module caches."""

    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    classes: dict[str, ast.ClassDef]
    caches: Caches
    enums: dict[str, list[str]]  # the members of each enum, by the name it is known by
    constants: dict[str, Any]

    def hint(self, name: str) -> Hint: ...

    def is_numeric_constructor(self, node: ast.expr) -> bool: ...


STR_METHODS = frozenset(
    "lower upper strip lstrip rstrip casefold title capitalize split replace startswith "
    "endswith isdigit isalpha isnumeric find index count format zfill".split()
)


WRAPPERS = frozenset("int float str bool abs round min max".split())


NUMERIC_WRAPPERS = frozenset("int float abs round".split())
# Calls whose first argument is a file's or a folder's path: that input is text
# (`Path(config.get("data_dir"))`), by name or through `os.path`, `os` or `pathlib`.
PATH_CALLS = frozenset("Path PurePath PosixPath open".split())
PATH_FUNCTIONS = frozenset(
    "join exists isfile isdir abspath expanduser basename dirname splitext listdir makedirs "
    "mkdir scandir Path PurePath PosixPath".split()
)
PATH_MODULES = frozenset({"os", "path", "os.path", "posixpath", "pathlib"})
ISO_FORMAT = "%Y-%m-%d"


# Builtins whose first argument is iterated: that input is a list.
ITERABLE_CALLS = frozenset(
    "len sum any all sorted enumerate set frozenset list tuple zip reversed".split()
)


class Harvester:
    """Files the constants of one function under the leaf names they are compared with."""

    def __init__(
        self,
        facts: HarvestFacts,
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
        # `for name, weight in WEIGHTS.items()`: the keys `params[name]` may be, by loop name.
        self.loop_keys: dict[str, list[str]] = {}
        self._assigned: set[str] | None = None
        self.params = {arg.arg for arg in all_args(fn)}

    def run(self) -> None:
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                self.assign(node.targets[0], node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self.assign(node.target, node.value)
            elif isinstance(node, ast.NamedExpr):
                self.assign(node.target, node.value)
            elif isinstance(node, (ast.For, ast.comprehension)):
                self.loop(node)
        self.loop_keys = looped_keys(self.fn, self.facts)
        for arg in all_args(self.fn):
            if arg.annotation is not None:
                self.annotate(arg.arg, arg.annotation)
        for node in ast.walk(self.fn):
            self.visit(node)

    def assigned(self) -> set[str]:
        """The names the function assigns (lower case, as hints are filed)."""
        if self._assigned is None:
            self._assigned = {
                node.id.lower()
                for node in ast.walk(self.fn)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
            }
        return self._assigned

    def loop(self, node: ast.For | ast.comprehension) -> None:
        """`for country in ["saudi", "uae"]: mask = df["country"] == country`: the loop's
        name takes each item."""
        items = self.facts.const(node.iter, self.local)
        if (
            isinstance(node.target, ast.Name)
            and isinstance(items, (list, tuple))
            and all(isinstance(i, (str, int, float)) for i in items)
        ):
            self.local_all.setdefault(node.target.id, []).extend(items)

    def assign(self, target: ast.expr, value: ast.expr) -> None:
        if not isinstance(target, ast.Name):
            return
        const = self.facts.const(value, self.local)
        if const is not MISSING:
            self.local[target.id] = const
            self.local_all.setdefault(target.id, []).append(const)
            return
        if isinstance(value, ast.IfExp):  # `cut = 27 if male else 16`: either threshold
            self.local_all.setdefault(target.id, []).extend(self.possible(value))
        if isinstance(value, ast.Call):  # `cut = self._threshold(sex)`: what it can return
            self.local_all.setdefault(target.id, []).extend(self.returned(value))
        solved = self.linear(value)
        if solved is not None and solved[1:] != (1, 0):
            self.affine[target.id] = solved
            return
        names = self.subjects(value)
        if len(names) == 1 and names[0] != target.id.lower():
            self.alias[target.id] = names[0]

    def returned(self, call: ast.Call) -> list[Any]:
        """The constants a helper of the project returns (`return 34.0 if sex == "male"
        else 16.0`): a threshold looked up by a person's attribute, compared here."""
        found = called_function(call, self.facts.functions)
        if found is None:
            return []
        values: list[Any] = []
        for node in ast.walk(found[0]):
            if isinstance(node, ast.Return) and node.value is not None:
                values += [v for v in self.possible(node.value) if is_number(v)]
        return values

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
        hint = self.facts.hint(name)
        kind = annotation_kind(annotation)
        if kind:
            hint.kinds.add(kind)
        keep_within(hint, annotated_bounds(annotation, self.facts))

    def subjects(self, node: ast.expr) -> list[str]:
        """Leaf names an expression is about: `int(p["age"]) - 5` is about "age"."""
        if isinstance(node, ast.Name):
            return [self.alias.get(node.id, node.id).lower()]
        if isinstance(node, ast.Attribute):
            if node.attr in ("str", "dt"):  # pandas' accessors: `df["sex"].str.lower()`
                return self.subjects(node.value)
            return [node.attr.lower()]
        if isinstance(node, ast.Subscript):
            return self.subscript_subjects(node)
        if isinstance(node, ast.Call):
            return self.call_subjects(node)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, (ast.Add, ast.Sub)):
                return self.subjects(node.left) + self.subjects(node.right)
            # `debts / income < 0.4`: the threshold belongs to the ratio, not to either name.
            return []
        if isinstance(node, ast.UnaryOp):
            return self.subjects(node.operand)
        return []

    def subscript_subjects(self, node: ast.Subscript) -> list[str]:
        """`p["age"]` is about "age"; `age[1]` about "age" and, apart, "age[1]"."""
        key = node.slice
        if isinstance(key, ast.Tuple) and key.elts:  # `df.loc[mask, "country"]`
            key = key.elts[-1]
        text = text_of(key)
        if text is not None:
            return [text.lower()]
        inner = self.subjects(node.value)
        if isinstance(key, ast.Constant) and type(key.value) is int:
            # `age[1] == "months"`: the unit of an (amount, unit) tuple, filed apart too
            return inner + [f"{name}[{key.value}]" for name in inner]
        return inner

    def call_subjects(self, node: ast.Call) -> list[str]:
        """A call is about the key or attribute it reads (`p.get("age")`, `getattr(p,
        "age")`, an accessor's `person("age", period)`), or about what it wraps
        (`int(age)`, `sex.lower()`, `Decimal(income)`)."""
        func = node.func
        if isinstance(func, ast.Attribute):
            read = self.method_subjects(node, func)
            if read is not None:
                return read
        if isinstance(func, ast.Name) and func.id in ("getattr",) and len(node.args) >= 2:
            attribute = text_of(node.args[1])
            if attribute is not None:
                return [attribute.lower()]
        if (isinstance(func, ast.Name) and func.id in WRAPPERS) or (
            self.facts.is_numeric_constructor(node)
        ):
            return [s for a in node.args for s in self.subjects(a)]
        first = text_of(node.args[0]) if node.args else None
        if first is not None and first.isidentifier():  # an accessor: `person("age", period)`
            return [first.lower()]
        return []

    def method_subjects(self, node: ast.Call, func: ast.Attribute) -> list[str] | None:
        """`p.get("age")` is about "age", `sex.lower()` about what `sex` is about; None for
        other methods."""
        first = node.args[0] if node.args else None
        if func.attr in KEY_READERS and isinstance(first, ast.Constant):
            name = first.value
            return [name.lower()] if isinstance(name, str) else []
        if func.attr in STR_METHODS:
            return self.subjects(func.value)
        return None

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
        if isinstance(value, EnumMember):
            # `sex is Sex.MALE`: each of its enum's members tells the input apart, not one.
            owner = value.cls.rsplit(".", 1)[-1]
            siblings = [EnumMember(value.cls, m) for m in self.facts.enums.get(owner, [])]
            value = [value, *(m for m in siblings if m != value)]
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
        """Dispatch on the node's type, as ast.NodeVisitor does; `run` walks the function
        breadth-first (ast.walk), because the order constants are found in is the order
        their values are tried."""
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is not None:
            method(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        items = [node.left, *node.comparators]
        for left, op, right in zip(items, node.ops, items[1:], strict=False):
            if isinstance(op, (ast.In, ast.NotIn)):
                self.membership(left, right)
            else:
                self.comparison(left, right)

    def membership(self, left: ast.expr, right: ast.expr) -> None:
        """`x in (...)` files the container's items under x; `"c" in x` says x holds "c"."""
        lc, rc = self.facts.const(left, self.local), self.facts.const(right, self.local)
        if rc is MISSING and isinstance(right, ast.Subscript):
            # `region in SCALES[sex]`: a key of one of the table's rows, whichever is picked
            table = self.facts.const(right.value, self.local)
            rows = list(table.values()) if isinstance(table, dict) else []
            if rows and all(isinstance(row, dict) for row in rows):
                rc = list(dict.fromkeys(k for row in rows for k in row))
        if rc is not MISSING and not isinstance(rc, str):
            self.file(self.subjects(left), rc)
        elif rc is MISSING:
            # `"c" in x`, or `dx in cc` for each `dx` of a list looped over: x holds them.
            held = [lc] if lc is not MISSING else self.possible(left)
            for name in self.subjects(right):
                hint = self.facts.hint(name)
                for value in held:  # lists among them (`[1, 2] in pairs`): no hashing
                    if value not in hint.contains:
                        hint.contains.append(value)
        elif rc is not MISSING and isinstance(rc, str):
            self.file(self.subjects(left), rc, "str")

    def intersection(self, node: ast.BinOp) -> None:
        """`CODES & cc_dct.keys()`, `CODES & set(codes)`: the input holds the codes looked
        for, as `dx in cc_dct` for each of them says."""
        for table, other in ((node.left, node.right), (node.right, node.left)):
            items = self.facts.const(table, self.local)
            if not isinstance(items, (set, frozenset, list, tuple)) or not items:
                continue
            if not all(isinstance(i, str) for i in items):
                continue
            held = collection_of(other)
            for name in self.subjects(held) if held is not None else []:
                hint = self.facts.hint(name)
                hint.contains += [i for i in sorted(items) if i not in hint.contains]
                if held is not other and isinstance(other, ast.Call):
                    hint.kinds.add("dict" if isinstance(other.func, ast.Attribute) else "list")

    def comparison(self, left: ast.expr, right: ast.expr) -> None:
        """`age > 65` files 65 under age (and under birth_year, solved through `age = ...`)."""
        for side, other in ((right, left), (left, right)):
            for value in self.possible(side):
                sized = sized_subjects(other, self)
                if sized and isinstance(value, int) and not isinstance(value, bool):
                    for name in sized:  # `len(hobbies) > 2`: lists around that size
                        self.facts.hint(name).lengths.append(value)
                    continue
                self.file(self.subjects(other), value)
                solved = self.linear(other)
                if solved is not None and solved[1:] != (1, 0) and is_number(value):
                    name, sign, offset = solved
                    self.file([name], as_int((value - offset) * sign))

    def visit_Subscript(self, node: ast.Subscript) -> None:
        table = self.facts.const(node.value, self.local)
        if isinstance(node.slice, ast.Name) and table is MISSING:
            keys = self.local_all.get(node.slice.id, [])
            if len(keys) > 1 and all(isinstance(k, str) for k in keys):
                # `cc_dct[dx]` for each code `dx` of a list: a mapping keyed by them
                for name in self.subjects(node.value):
                    self.facts.hint(name).kinds.add("dict")
        if isinstance(table, dict):  # RATES[region]: the table's keys are region's values
            self.file(self.subjects(node.slice), list(table))
        if table is MISSING or isinstance(table, dict):
            self.loaded_table(node.value, node.slice)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.BitAnd):
            self.intersection(node)
        for side in (node.left, node.right):
            if (
                isinstance(side, ast.Subscript)
                and isinstance(side.slice, ast.Name)
                and side.slice.id in self.loop_keys
            ):
                # `params[p] * w for p, w in WEIGHTS.items()`: every key holds a number
                for key in self.loop_keys[side.slice.id]:
                    self.facts.hint(key.lower()).kinds.add("num")
        for a, b in ((node.left, node.right), (node.right, node.left)):
            value = self.facts.const(b, self.local)
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            if numeric and isinstance(node.op, (ast.Add, ast.Sub)):
                # `age - 55` pivots at 55; a factor (`age * 0.5`) is no threshold.
                self.file(self.subjects(a), value, "num")
            elif numeric or not isinstance(node.op, ast.Add) and not isinstance(value, str):
                # Beside a text, `/` joins a path (`data_dir / "latest.json"`), `%` formats.
                for name in self.operands(a):
                    self.facts.hint(name).kinds.add("num")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in ("year", "month", "day", "toordinal"):
            # Not a local the function made a date (`dob = strptime(dob_str, ...)`, then
            # `dob.year`): another function's `dob` says nothing of it.
            made = self.assigned()
            for name in self.subjects(node.value):
                if name not in made:
                    self.facts.hint(name).kinds.add("dateobj")
        elif node.attr in ("days", "total_seconds") and isinstance(node.value, ast.BinOp):
            # `(measured - born).days`: both sides are dates; not a local the function made
            # one (`dob = strptime(self.dob, ...)`: the input `dob` is text).
            if isinstance(node.value.op, ast.Sub):
                made = self.assigned()
                for name in self.operands(node.value):
                    if name not in made:
                        self.facts.hint(name).kinds.add("dateobj")

    def visit_Match(self, node: ast.Match) -> None:
        subjects = self.subjects(node.subject)
        for case in node.cases:
            for value in pattern_values(case.pattern, self.facts):
                self.file(subjects, value)

    def visit_For(self, node: ast.For | ast.comprehension) -> None:
        for name in self.subjects(node.iter):
            self.facts.hint(name).kinds.add("list")

    visit_comprehension = visit_For

    def visit_If(self, node: ast.If | ast.While | ast.IfExp) -> None:
        if isinstance(node.test, (ast.Name, ast.Attribute, ast.Subscript)):
            for name in self.subjects(node.test):
                self.facts.hint(name).kinds.add("truthy")

        if isinstance(node, ast.If) and node.body and isinstance(node.body[0], ast.Raise):
            self.guard(node.test, holds=False)  # `if x is None: raise`: x is never None

    visit_While = visit_If
    visit_IfExp = visit_If

    def visit_Assert(self, node: ast.Assert) -> None:
        self.guard(node.test, holds=True)

    def guard(self, test: ast.expr, holds: bool) -> None:
        """Values the code refuses or only accepts, from a test that must hold (an assert)
        or must not (an `if` that raises): `x is not None`, `x not in (...)`, `x in [...]`."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            self.guard(test.operand, not holds)
            return
        if isinstance(test, ast.BoolOp):
            # Every part of `a and b` must hold; every part of `a or b` must not hold.
            if isinstance(test.op, ast.And) == holds:
                for part in test.values:
                    self.guard(part, holds)
            return
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return
        op, right = test.ops[0], test.comparators[0]
        value = self.facts.const(right, self.local)
        if value is MISSING:
            return
        if type(op) in BOUNDS and is_number(value):
            self.bound(test.left, op, value, holds)
            return
        positive = isinstance(op, (ast.In, ast.Eq, ast.Is))
        if not positive and not isinstance(op, (ast.NotIn, ast.NotEq, ast.IsNot)):
            return
        items = compared_values(op, value)
        if items is None:
            return
        for name in self.subjects(test.left):
            hint = self.facts.hint(name)
            kept = hint.accepted if positive == holds else hint.refused
            kept += [v for v in items if v not in kept]

    def bound(self, subject: ast.expr, op: ast.cmpop, value: Any, holds: bool) -> None:
        """A numeric limit the subject keeps to: `age >= 18` that must hold, or `age < 18`
        that must not (raises), is (">=", 18)."""
        held, broken = BOUNDS[type(op)]
        for name in self.subjects(subject):
            bound = (held if holds else broken, float(value))
            if bound not in self.facts.hint(name).bounds:
                self.facts.hint(name).bounds.append(bound)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called in ("fromisoformat", "strptime", "parse", "to_datetime") and node.args:
            for name in self.subjects(node.args[0]):
                self.facts.hint(name).kinds.add("isodate")
            written = self.facts.const(node.args[1], self.local) if len(node.args) > 1 else None
            if called == "strptime" and isinstance(written, str) and written != ISO_FORMAT:
                # `strptime(born, "%d/%m/%Y")`: a day as the code reads it.
                self.file(self.subjects(node.args[0]), date.today().strftime(written))
        if isinstance(func, ast.Name) and func.id in self.facts.enums and node.args:
            # `Sex(sex)`: the raw input is one of the enum's values.
            values = [self.facts.constants.get(f"{func.id}.{m}") for m in self.facts.enums[func.id]]
            self.file(self.subjects(node.args[0]), [v for v in values if v is not None])
        if isinstance(func, ast.Attribute):
            self.method_call(node, func)
        elif isinstance(func, ast.Name) and node.args:
            if func.id in ITERABLE_CALLS:
                for name in self.subjects(node.args[0]):
                    self.facts.hint(name).kinds.add("list")
            elif func.id in NUMERIC_WRAPPERS:
                for name in self.subjects(node.args[0]):
                    self.facts.hint(name).kinds.add("num")
        if node.args and takes_a_path(func):
            for name in self.subjects(node.args[0]):
                self.facts.hint(name).kinds.add("str")
        if self.facts.is_numeric_constructor(node) and node.args:
            for name in self.subjects(node.args[0]):
                self.facts.hint(name).kinds.add("num")
        if node.args and array_conversion(node, self.facts):
            # `np.asarray(income)`, `_ensure_array(income)`: numpy takes a number as well as
            # a list, and a number broadcasts against the other inputs' arrays.
            for name in self.subjects(node.args[0]):
                self.facts.hint(name).kinds.add("array")
        helper = called_function(node, self.facts.functions)
        if helper is not None:
            self.link(*helper, node)
        elif isinstance(func, ast.Name) and func.id in self.facts.classes:
            # `Visit(born, seen)`: its constructor's parameters are what the caller passes.
            init = constructor(self.facts.classes[func.id])
            if init is not None:
                self.link(init, True, node)

    def method_call(self, node: ast.Call, func: ast.Attribute) -> None:
        """A method says what its object is: a table looked up (`RATES.get(region)` files the
        table's keys under "region"), text (`sex.lower()`, `code.startswith("F")`), a list or
        a dict (`items.append`, `d.items()`)."""
        table = self.facts.const(func.value, self.local)
        if func.attr == "get" and node.args and (table is MISSING or isinstance(table, dict)):
            if isinstance(table, dict):
                self.file(self.subjects(node.args[0]), list(table))
            self.loaded_table(func.value, node.args[0])
        elif func.attr in TABLE_METHODS and len(node.args) == 1:
            # `df["sex"].map({1: 1.0, 2: 1.012})`: the mapping's keys are the column's values
            mapping = self.facts.const(node.args[0], self.local)
            if isinstance(mapping, dict):
                self.file(self.subjects(func.value), list(mapping))
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

    def loaded_table(self, table: ast.expr, key: ast.expr) -> None:
        """A table of the module looked up by `key` (`SABITLER.ENGELLILIK.get(degree)`,
        built from a JSON file at import; or written out, its keys Enum members): filed by
        its dotted path under the key's names, for the sandbox to read its keys as they are
        once the module has loaded. Only a global's: a local, a parameter or the instance
        holds a table of this call alone."""
        path = dotted_path(table)
        if path is None:
            return
        root = path.split(".", 1)[0]
        if root in ("self", "cls") or root.lower() in self.assigned() or root in self.params:
            return
        for name in self.subjects(key):
            loaded = self.facts.hint(name).loaded
            if path not in loaded and len(loaded) < MAX_LOADED:
                loaded.append(path)

    def link(self, callee: FunctionNode, bound: bool, call: ast.Call) -> None:
        for param, arg in call_bindings(callee, call, bound):
            value = self.facts.const(arg) if isinstance(arg, (ast.Constant, ast.Name)) else MISSING
            if isinstance(value, (str, int, float)):
                # What the project itself passes (`self.calc_lung_param('FEV1', ...)`) is a
                # value the helper's parameter takes: its table has no row for a stray 1.
                self.facts.hint(param).add(value)
            elif isinstance(value, (dict, list, tuple)) and 0 < len(value) <= MAX_GIVEN_ITEMS:
                given = self.facts.hint(param).given
                if len(given) < MAX_GIVEN and not any(value is g for g in given):
                    given.append(value)  # a table of the module, whole
            for subject in self.subjects(arg):
                if subject != param.lower():
                    self.links.append((param.lower(), subject))


# numpy's conversions of a number or a list to an array.
ARRAY_CONVERSIONS = frozenset(
    {"asarray", "array", "asanyarray", "atleast_1d", "asfarray", "ascontiguousarray"}
)
# module -> its helpers that return a numpy conversion of their first parameter.
ARRAY_HELPERS: Cache[None, frozenset[str]] = Cache("array helpers")


def collection_of(node: ast.expr) -> ast.expr | None:
    """The input a set is made of: `x` of `x.keys()`, `set(x)`, or `x` itself."""
    if isinstance(node, ast.Call) and len(node.args) <= 1:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "keys" and not node.args:
            return func.value
        if isinstance(func, ast.Name) and func.id in ("set", "frozenset") and node.args:
            return node.args[0]
        return None
    return node if isinstance(node, ast.Name) else None


def takes_a_path(func: ast.expr) -> bool:
    """Whether a call's first argument is a path: `Path(p)`, `open(p)`, `os.path.join(p, x)`,
    `os.makedirs(p)` (not `", ".join(items)`)."""
    if isinstance(func, ast.Name):
        return func.id in PATH_CALLS
    return (
        isinstance(func, ast.Attribute)
        and func.attr in PATH_FUNCTIONS
        and dotted_path(func.value) in PATH_MODULES
    )


def array_conversion(call: ast.Call, facts: HarvestFacts) -> bool:
    """Whether `call` makes a numpy array of its first argument: `np.asarray(x)`, or a
    helper of the module that returns one of its parameter (`_ensure_array(x)`)."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr in ARRAY_CONVERSIONS and isinstance(func.value, ast.Name)
    if not isinstance(func, ast.Name):
        return False
    return func.id in facts.caches.once(ARRAY_HELPERS, lambda: array_helpers(facts.functions))


def array_helpers(functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> frozenset[str]:
    found = set()
    for name, fn in functions.items():
        params = fn.args.posonlyargs + fn.args.args
        if not params:
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Return) and converts(node.value, params[0].arg):
                found.add(name)
    return frozenset(found)


def converts(node: ast.expr | None, param: str) -> bool:
    """Whether `node` is numpy's conversion of `param`, however nested
    (`np.atleast_1d(np.asarray(x, dtype=float))`)."""
    converted = False
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ARRAY_CONVERSIONS
        and node.args
    ):
        node, converted = node.args[0], True
    return converted and isinstance(node, ast.Name) and node.id == param


# Tables of the module built as it runs, per name: a few are enough to learn its codes.
MAX_LOADED = 4


def dotted_path(node: ast.expr) -> str | None:
    """`SABITLER.ENGELLILIK` for a chain of attributes on a name; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


# A Series' methods that look each value up in a mapping: its keys are the values.
TABLE_METHODS = frozenset({"map", "replace"})


def compared_values(op: ast.cmpop, value: Any) -> list[Any] | None:
    """The values `x == value` or `x in value` names; None for `x in "abc"`, `x in TABLE`:
    no list of values to rest on (nor `x in self.regions` where a base class says
    `regions = None`)."""
    if isinstance(op, (ast.In, ast.NotIn)):
        return list(value) if isinstance(value, (list, tuple, set, frozenset)) else None
    return [value]


def keep_within(hint: Hint, limits: list[tuple[str, float]]) -> None:
    """File declared limits: the values are kept within them, and the limit itself (or
    just inside it) is a value to try."""
    for op, limit in limits:
        if (op, limit) not in hint.bounds:
            hint.bounds.append((op, limit))
        hint.add(as_int(limit + (1 if op == ">" else -1 if op == "<" else 0)))


# Tables passed whole to a helper that become values of its parameter: how many, how big.
MAX_GIVEN = 4
# function -> the text keys each of its loop names takes from a table.
LOOPED_KEYS: Cache[int, dict[str, list[str]]] = Cache("looped keys")
MAX_GIVEN_ITEMS = 64


# An ordering test as the limit it sets: when it must hold, and when it must not (`if x < 45:
# raise` keeps x >= 45).
BOUNDS: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: ("<", ">="), ast.LtE: ("<=", ">"), ast.Gt: (">", "<="), ast.GtE: (">=", "<"),
}  # fmt: skip


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


def pattern_values(pattern: ast.pattern, facts: HarvestFacts) -> list[Any]:
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


def looped_keys(fn: ast.AST, facts: HarvestFacts) -> dict[str, list[str]]:
    """The text keys each loop name takes from a table: `for p, w in WEIGHTS.items()`,
    `for p in WEIGHTS`, `.keys()`, also through a local given one table or another
    (`weights = A_WEIGHTS if cardiac else dict(B_WEIGHTS)`). Once per function."""
    return facts.caches.value(LOOPED_KEYS, id(fn), lambda: tables_looped(fn, facts))


def tables_looped(fn: ast.AST, facts: HarvestFacts) -> dict[str, list[str]]:
    if not any(isinstance(node, (ast.For, ast.comprehension)) for node in ast.walk(fn)):
        return {}
    held = assigned_constants(fn, facts)
    found: dict[str, list[str]] = {}
    for node in ast.walk(fn):
        if not isinstance(node, (ast.For, ast.comprehension)):
            continue
        target, table = looped_table(node)
        if not isinstance(target, ast.Name):
            continue
        tables = held.get(table.id, []) if isinstance(table, ast.Name) else []
        tables = tables or [facts.const(table)]
        keys: list[str] = []
        for value in tables:
            if isinstance(value, dict) and all(isinstance(k, str) for k in value):
                keys += [k for k in value if k not in keys]
        if keys:
            found[target.id] = keys
    return found


def assigned_constants(fn: ast.AST, facts: HarvestFacts) -> dict[str, list[Any]]:
    """Every constant a local name is assigned in `fn` (both branches of `a if c else b`)."""
    held: dict[str, list[Any]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                branches = (
                    [node.value.body, node.value.orelse]
                    if isinstance(node.value, ast.IfExp)
                    else [node.value]
                )
                held.setdefault(target.id, []).extend(facts.const(b) for b in branches)
    return held


def looped_table(node: ast.For | ast.comprehension) -> tuple[ast.expr, ast.expr]:
    """The loop's target and the table it walks: `for k, v in TABLE.items()` walks TABLE
    with its keys in `k`."""
    target, table = node.target, node.iter
    if (
        isinstance(table, ast.Call)
        and isinstance(table.func, ast.Attribute)
        and table.func.attr in ("items", "keys")
        and not table.args
    ):
        table = table.func.value
        if isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]
    return target, table
