"""What the code itself says about each name: the constants it is compared with, its kind.

A module is read once. Every comparison, `in` test, `match` case, lookup-table subscript and
arithmetic with a constant, anywhere in the module, is filed under the *leaf name* of the
expression it involves: `applicant["age"] > 65`, `p.age > 65`, `age > 65` and
`years_old = applicant["age"]; years_old > 65` all file 65 under "age". Helpers count too:
calling `bonus(a=applicant["age"])` links bonus's parameter `a` to "age". Matching by name
keeps the analysis simple and lets values flow across helper functions and aliases.

`ModuleFacts` holds what is learnt once per module (classes, enums, constants, helpers, and
the `Hint` of every name); `analysis.facts.harvest.Harvester` reads one function into it.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Iterator
from typing import Any

from analysis.caches import Cache, Caches
from analysis.facts.annotations import annotated_bounds, call_bounds
from analysis.facts.components import component_methods
from analysis.facts.exports import Exports
from analysis.facts.harvest import Harvester, keep_within
from analysis.facts.hint import Hint
from analysis.source.functions import (
    KEY_READERS,
    call_bindings,
    functional_records,
    instance_assignment,
    record_class_kind,
)
from analysis.source.functions import lineage as lineage_of
from analysis.values import MISSING, Choices, EnumMember

# Every `x.name(...)` call written in a method, by `name`, with the method's class.
MethodCalls = dict[str, list[tuple[ast.ClassDef, ast.Call]]]
METHOD_CALLS: Cache[None, MethodCalls] = Cache("calls written in methods")
# (method, parameter) -> the class whose instance every call passes it, if one.
GIVEN_SELF: Cache[tuple[int, str], ast.ClassDef | None] = Cache("instances passed as self")


class ModuleFacts:
    """Everything the engine learns from a module's syntax, computed once per module."""

    def __init__(self, tree: ast.Module, imported: Exports | None = None, harvest: bool = True):
        """`imported`: what the module takes from its project (analysis.facts.imports); without
        `harvest`, only the module's constants are worked out."""
        self.tree = tree
        self.classes: dict[str, ast.ClassDef] = {}
        self.class_names: dict[int, str] = qualified_class_names(tree)
        # Results of analyses that every function of a class repeats (its constructor's
        # inputs), each in its own typed cache (analysis/caches.py).
        self.caches = Caches()
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.constants: dict[str, Any] = {}
        self.enums: dict[str, list[str]] = {}
        # Names that build a number from a number or its text: `Decimal`, `D` after
        # `from decimal import Decimal as D` (found in the walk below).
        self.numeric_names: set[str] = set()
        # The words of the project modules it imports from (Exports.imported_words).
        self.imported_words = imported.imported_words if imported is not None else {}
        if imported is not None:
            # Defined here or imported, a name means the same; the module's own win.
            self.constants.update(imported.constants)
            self.add_classes(imported.classes)
        for cls in functional_records(tree.body):
            self.classes[cls.name] = cls
        every_function = self.read_definitions(tree)
        if imported is not None:
            # The module's own `Sex` is the one it means.
            fields = imported.field_classes.items()
            self.add_classes({name: cls for name, cls in fields if name not in self.classes})
        self.index_functions(tree, every_function, imported)
        for stmt in tree.body:
            for name, value in literal_assignments(stmt, self):
                self.constants[name] = value
        if imported is not None:
            for name, value in imported.context.items():
                self.constants.setdefault(name, value)
        for name, cls in self.classes.items():  # `class Sex(LabelledEnum)`: an enum too
            if name not in self.enums and self.record_kind(cls) == "enum":
                self.enums[name] = enum_members(cls)
        self.read_class_constants(tree)
        fold_key_names(tree, self.constants, set(self.enums), self.classes)
        self.hints: dict[str, Hint] = {}
        if not harvest:
            return
        if imported is not None:
            every_function += imported_functions_named(tree, imported, every_function)
        self.field_limits()
        self.harvest(every_function)

    def record_kind(self, cls: ast.ClassDef) -> str | None:
        """The record kind of `cls` (source/functions.py), by its bases of the project too."""
        return record_class_kind(cls, self.classes)

    def add_classes(self, classes: dict[str, ast.ClassDef]) -> None:
        """Classes of other modules, known here by the names given (enums with members)."""
        for name, cls in classes.items():
            self.classes[name] = cls
            known = self.class_names.get(id(cls))
            if known is None or ("." in known and "." not in name):
                # `AgeBand` over `ded.AgeBand` (through a module that imports it): how the
                # module names it, and how a counterexample shows its members
                self.class_names[id(cls)] = name
            if record_class_kind(cls) == "enum":
                self.enums[name] = enum_members(cls)

    def read_definitions(self, tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The module's classes (and enums), numeric constructors, and every function it
        defines (returned), at any depth."""
        every_function: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.classes.setdefault(node.name, node)
                if record_class_kind(node) == "enum":
                    self.enums[node.name] = enum_members(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                every_function.append(node)
            elif isinstance(node, ast.ImportFrom) and node.module in NUMERIC_TYPES.values():
                self.numeric_names |= numeric_constructors(node)
        return every_function

    def index_functions(
        self,
        tree: ast.Module,
        every_function: list[ast.FunctionDef | ast.AsyncFunctionDef],
        imported: Exports | None,
    ) -> None:
        """Helpers by name: module-level definitions win over methods, and both over the
        functions imported."""
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[stmt.name] = stmt
        for fn in every_function:
            self.functions.setdefault(fn.name, fn)
        self.functions.update(component_methods(tree, self.classes))
        if imported is not None:
            for name, fn in imported.functions.items():
                self.functions.setdefault(name, fn)
            for helpers in imported.helpers.values():
                for fn in helpers:
                    self.functions.setdefault(fn.name, fn)

    def read_class_constants(self, tree: ast.Module) -> None:
        """Constants the classes set, as `Class.name` and `self.name`: a class of this module
        says what `self.x` is here, over a base class imported from elsewhere
        (`supported_regions = None` in the base, the real list in the model)."""
        own = {id(node) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
        said: set[str] = set()
        for cls in self.classes.values():
            for stmt in cls.body:
                for name, value in literal_assignments(stmt, self):
                    for key in (f"{cls.name}.{name}", f"self.{name}"):
                        if id(cls) in own and key not in said:
                            self.constants[key] = value
                            said.add(key)
                        else:
                            self.constants.setdefault(key, value)
            self.read_instance_tables(cls)

    def read_instance_tables(self, cls: ast.ClassDef) -> None:
        """Tables an instance sets up for itself (`self.surcharge = {"miner": 40}`), under
        `self.name` and its class's `Cls.name`: two classes of a module may keep different
        ones under one attribute."""
        for node in ast.walk(cls):
            assigned = instance_assignment(node)
            if assigned is None:
                continue
            target, value = assigned
            if not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                continue
            constant = self.const(value)
            if constant is not MISSING:
                for key in (f"{cls.name}.{target.attr}", f"self.{target.attr}"):
                    self.constants.setdefault(key, constant)

    def harvest(self, every_function: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> None:
        """The hints of every name, from every function; then shared between each helper's
        parameters and what its callers pass."""
        links: list[tuple[str, str]] = []
        for fn in every_function:
            try:
                Harvester(self, fn, links).run()
            except RecursionError:
                continue  # an expression too deep to read: its values stay unknown
        self.share_links(links)

    def share_links(self, links: list[tuple[str, str]]) -> None:
        """A helper's parameter shares what is known of the names passed to it, both ways:
        the caller's input learns what the helper compares with (through helpers of
        helpers), the helper's parameter what its callers hold, each from the other's own
        facts only. Merged back and forth, one helper called with an age and with a sex
        (`check(value)`) would give every age the sex's values and the sex the age's."""
        unique = list(dict.fromkeys(links))  # a helper called 300 times: one link
        # The items of what is passed are the items of the parameter: `convert(p["age"])`
        # reading `value[1] == "months"` says what `age[1]` holds.
        items = [k for k in self.hints if "[" in k]  # few: the scan stays linear
        for param, subject in list(unique):
            for key in items:
                if key.startswith(f"{param}["):
                    unique.append((key, subject + key[len(param) :]))
        before = {name: self.hint(name).copy() for pair in unique for name in pair}
        learnt = {name: hint.copy() for name, hint in before.items()}
        for _ in range(2):
            for param, subject in unique:
                learnt[subject].merge(learnt[param])
        for param, subject in unique:
            learnt[param].merge(before[subject])
        for name, hint in learnt.items():
            self.hints[name] = hint

    def field_limits(self) -> None:
        """The limits record classes declare for their fields, filed under the field's name:
        `age: Annotated[int, ValueRange(18, 110)]`, `age: int = Field(..., ge=18, le=120)`.
        Their validators refuse every other value, so a record is built within them."""
        for cls in self.classes.values():
            if self.record_kind(cls) not in ("dataclass", "pydantic", "typeddict", "namedtuple"):
                continue
            for stmt in cls.body:
                if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                    continue
                limits = annotated_bounds(stmt.annotation, self)
                if isinstance(stmt.value, ast.Call):
                    limits += call_bounds(stmt.value, self)
                keep_within(self.hint(stmt.target.id), limits)

    def domain_of(self, values: list[Any]) -> list[Any]:
        """The other members of a constant list that holds two or more of these values: code
        that tests `method == WEIGHT or method == BMI` of MEASUREMENT_METHODS = [HEIGHT,
        WEIGHT, BMI] treats HEIGHT otherwise, so HEIGHT is worth a try."""
        texts = {v for v in values if isinstance(v, str)}
        if len(texts) < 2:
            return []
        found: list[Any] = []
        for constant in self.constants.values():
            if not isinstance(constant, (list, tuple)) or len(constant) > MAX_DOMAIN:
                continue
            members = [m for m in constant if isinstance(m, str)]
            if len(members) == len(constant) and len(texts.intersection(members)) >= 2:
                found += [m for m in members if m not in texts and m not in found]
        return found

    def given_self(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str
    ) -> ast.ClassDef | None:
        """The class whose instance every call of method `fn` in this module passes as
        `param`, when one does: `obs.get_zscores(self)` written in `Calculator` makes the
        `growth` of `get_zscores(self, growth)` a Calculator."""
        return self.caches.value(GIVEN_SELF, (id(fn), param), lambda: self._given_self(fn, param))

    def _given_self(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str
    ) -> ast.ClassDef | None:
        owners: set[int] = set()
        found: ast.ClassDef | None = None
        for cls, call in self.method_calls().get(fn.name, []):
            for name, arg in call_bindings(fn, call, bound=True):
                if name != param:
                    continue
                if not (isinstance(arg, ast.Name) and arg.id == "self"):
                    return None  # some call passes something else
                owners.add(id(cls))
                found = cls
        return found if len(owners) == 1 else None

    def method_calls(self) -> MethodCalls:
        """Every `x.name(...)` call written in a method, by `name`, with its class: read
        once per module (a module of a thousand methods asks for it a thousand times)."""
        return self.caches.once(METHOD_CALLS, self._method_calls)

    def _method_calls(self) -> MethodCalls:
        calls: MethodCalls = {}
        for cls in self.classes.values():
            for method in cls.body:
                if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(method):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                        calls.setdefault(node.func.attr, []).append((cls, node))
        return calls

    def qualname(self, cls: ast.ClassDef) -> str:
        """The dotted name a class is reached by from its module: "League.Rules"."""
        return self.class_names.get(id(cls), cls.name)

    def hint(self, name: str) -> Hint:
        return self.hints.setdefault(name.lower(), Hint())

    def const(self, node: ast.expr, local: dict[str, Any] | None = None) -> Any:
        """The constant value of `node`, resolving names and enum members; MISSING if none."""
        try:
            return self._const(node, local)
        except RecursionError:
            return MISSING  # 1,500 terms deep: not a constant worth knowing

    def _const(self, node: ast.expr, local: dict[str, Any] | None = None) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return negated(self._const(node.operand, local))
        if isinstance(node, ast.BinOp):
            return fold(node.op, self._const(node.left, local), self._const(node.right, local))
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self._named(node, local)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = [self._const(e, local) for e in node.elts]
            if any(i is MISSING for i in items):
                return MISSING
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            return self._table(node, local)
        if isinstance(node, ast.Call):
            return self._called(node, local)
        if isinstance(node, ast.Subscript) and literal_type(node.value):
            values = self._const(node.slice, local)
            if values is MISSING:
                return MISSING
            return Choices(values if isinstance(values, tuple) else (values,))
        return MISSING

    def _named(self, node: ast.Name | ast.Attribute, local: dict[str, Any] | None) -> Any:
        """A name's value (a local's first), an enum member, or a constant reached through a
        name (`Limits.AGE`, `self.rate`)."""
        if isinstance(node, ast.Name):
            if local and node.id in local:
                return local[node.id]
            return self.constants.get(node.id, MISSING)
        if isinstance(node.value, ast.Name):
            owner = node.value.id
        elif isinstance(node.value, ast.Attribute):
            owner = ast.unparse(node.value)  # `kinds.Sex.FEMALE`, through its module
        else:
            return MISSING
        if owner in self.enums and node.attr in self.enums[owner]:
            return EnumMember(self.qualname(self.classes[owner]), node.attr)
        return self.constants.get(f"{owner}.{node.attr}", MISSING)

    def _table(self, node: ast.Dict, local: dict[str, Any] | None) -> Any:
        """A dict display whose keys are all constants (a value not known reads None)."""
        keys = [self._const(k, local) if k is not None else MISSING for k in node.keys]
        if any(k is MISSING for k in keys):
            return MISSING
        values = [self._const(v, local) for v in node.values]
        try:
            return {k: (None if v is MISSING else v) for k, v in zip(keys, values, strict=True)}
        except TypeError:
            return MISSING  # `{TABLE: 1}` where TABLE is itself a dict: no key

    def _called(self, node: ast.Call, local: dict[str, Any] | None) -> Any:
        """Calls that make a constant of a constant: a copy (`tuple(X)`, `sorted(X)`), a
        table's keys or values, a number from its text (`Decimal("0.5")`)."""
        func = node.func
        if isinstance(func, ast.Name) and func.id in COPIES and len(node.args) == 1:
            return copied(func.id, self._const(node.args[0], local))
        if isinstance(func, ast.Attribute) and func.attr in ("keys", "values") and not node.args:
            # `list(_SMART2_REGIONAL_RATIOS.keys())`: the regions a model supports
            table = self._const(func.value, local)
            if isinstance(table, dict):
                return list(table) if func.attr == "keys" else list(table.values())
        if self.is_numeric_constructor(node) and len(node.args) == 1:
            return as_number(self._const(node.args[0], local))
        return MISSING

    def is_numeric_constructor(self, node: ast.expr) -> bool:
        """`Decimal("0.5")`, `D(45)`, `decimal.Decimal(x)`: a number made from its argument."""
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Name):
            return func.id in self.numeric_names
        return isinstance(func, ast.Attribute) and func.attr in NUMERIC_TYPES


ARITHMETIC: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}  # fmt: skip


# Builtins that copy a constant into another container (a dict's keys, but for `dict`).
COPIES = frozenset({"set", "frozenset", "tuple", "list", "sorted", "dict"})


def copied(builtin: str, inner: Any) -> Any:
    """What `builtin(inner)` gives, for one of COPIES: `dict(MODEL_B_WEIGHTS)` a copy to
    change, `list(TABLE)` its keys, `sorted(...)` sorted (MISSING if it cannot be)."""
    if builtin == "dict":
        return inner if isinstance(inner, dict) else MISSING
    if isinstance(inner, dict):
        inner = list(inner)  # a dict's keys
    if builtin == "sorted" and isinstance(inner, (list, tuple)):
        try:
            return sorted(inner)
        except TypeError:
            return MISSING
    return inner


def negated(value: Any) -> Any:
    """`-x` of a constant number; MISSING for anything else."""
    return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else MISSING


def fold(op: ast.operator, left: Any, right: Any) -> Any:
    """`(23 * 7 - 40 * 7) / 365.25` as the number it is; MISSING for anything else (no `**`,
    no strings: a constant too big to hold is not worth knowing)."""
    numbers = all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e15
        for v in (left, right)
    )
    if not numbers or type(op) not in ARITHMETIC:
        return MISSING
    try:
        return ARITHMETIC[type(op)](left, right)
    except ArithmeticError:
        return MISSING


# Constant lists longer than this are tables of data, not the values an input may take.
MAX_DOMAIN = 30

# Number types whose constructor takes a number or its text, by the modules defining them.
NUMERIC_TYPES = {"Decimal": "decimal", "Fraction": "fractions"}


def numeric_constructors(node: ast.ImportFrom) -> set[str]:
    """The names an import gives number constructors: `Decimal`, or its `as` alias."""
    return {
        alias.asname or alias.name
        for alias in node.names
        if NUMERIC_TYPES.get(alias.name) == node.module
    }


def as_number(value: Any) -> Any:
    """A constant given to a number constructor as the number it makes: "0.5" -> 0.5."""
    if isinstance(value, bool):
        return MISSING
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return MISSING
        if not math.isfinite(number):
            return MISSING
        return int(number) if number.is_integer() and "." not in value else number
    return MISSING


def tree_words(tree: ast.Module) -> set[str]:
    """The identifiers, attributes, parameters and short strings of a module."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 40
        ):
            found.add(node.value)
    return found


def referenced_names(tree: ast.Module) -> set[str]:
    """Names a module uses: `helper` and `rating.helper`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            names.add(f"{node.value.id}.{node.attr}")
    return names


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


def fold_key_names(
    tree: ast.Module,
    constants: dict[str, Any],
    enums: set[str],
    classes: dict[str, ast.ClassDef] | None = None,
) -> None:
    """Keys and attributes named by a constant of the module written as that text, where a
    field is read (`person.get(COL_SEX)`, `df[AGE]`, `getattr(p, Cols.AGE)`): every reader
    of fields then sees the name, as it sees `person.get("sex")`. A name the function binds
    itself (`for key in KEYS: p[key]`) and an enum's member are left as they are. `self.x`
    in a method is what its class (or a base class of the module) sets: two classes of one
    module may keep different column names under one attribute."""
    classes = classes or {}

    def folded(node: ast.expr, bound: set[str], lineage: tuple[str, ...]) -> ast.expr:
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return node
        written = ast.unparse(node)
        owner, _, rest = written.partition(".")
        value = constants.get(written)
        if owner == "self" and rest:
            value = next(
                (constants[f"{c}.{rest}"] for c in lineage if f"{c}.{rest}" in constants), value
            )
        if not isinstance(value, str) or owner in enums:
            return node
        if owner in bound and owner != "self":  # `self.x`: what the class sets, in a method
            return node
        return ast.copy_location(ast.Constant(value), node)

    def fold(node: ast.AST, bound: set[str], lineage: tuple[str, ...]) -> None:
        if isinstance(node, ast.ClassDef):
            lineage = tuple(c.name for c in lineage_of(node, classes))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            bound = bound | bound_names(node)
        if isinstance(node, ast.Subscript):
            node.slice = folded(node.slice, bound, lineage)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in (*KEY_READERS, "pop"):
                node.args[0] = folded(node.args[0], bound, lineage)
            elif isinstance(func, ast.Name) and func.id in ("getattr", "hasattr"):
                if len(node.args) >= 2:
                    node.args[1] = folded(node.args[1], bound, lineage)
        for child in ast.iter_child_nodes(node):
            fold(child, bound, lineage)

    try:
        fold(tree, set(), ())
    except RecursionError:
        pass  # a module nested past the interpreter's depth: its keys stay names


def bound_names(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names a function binds: its parameters and what it assigns."""
    args = fn.args
    bound = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    stored = [n for n in ast.walk(fn) if isinstance(n, ast.Name)]
    return bound | {n.id for n in stored if isinstance(n.ctx, ast.Store)}


def literal_type(node: ast.expr) -> bool:
    """Whether `node` names `typing.Literal`."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name == "Literal"


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


def imported_functions_named(
    tree: ast.Module,
    imported: Exports,
    every_function: list[ast.FunctionDef | ast.AsyncFunctionDef],
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Functions of other modules worth harvesting here. Helpers this module calls: what they
    compare with is what the callers' inputs need (`territory_factor(driver)` in rating.py);
    only those named here (`import networkx as nx` brings thousands), with the helpers of
    their own module they call (`Exports.helpers`). And the methods of the
    classes it names: a `Patient` dataclass validating `weight_kg` in `__post_init__` says
    which weights build one."""
    own = {id(f) for f in every_function}
    named = referenced_names(tree)
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for name, function in imported.functions.items():
        if name not in named:
            continue
        for fn in [function, *imported.helpers.get(name, [])]:
            if id(fn) not in own:
                own.add(id(fn))
                found.append(fn)
    for name, cls in imported.classes.items():
        if name not in named:
            continue
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if id(stmt) not in own:
                    own.add(id(stmt))
                    found.append(stmt)
    return found
