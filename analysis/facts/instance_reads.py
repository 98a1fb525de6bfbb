"""What a method reads of the objects its instance holds: `self.settings.age`, `s =
self.settings; s.age`, `self.patient.record.age`, in the method itself and in the methods and
properties of its class it reaches through the instance (`self.calculate_tax()`,
`self.total_deductions`), where the person often sits for the method asked about.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from analysis.caches import Cache
from analysis.facts.fieldreads import FieldRead, field_matcher, name_matcher, record_accesses
from analysis.facts.module import ModuleFacts
from analysis.source.functions import FunctionNode

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

# (method, its name for the instance, class, attribute) -> the fields read of the attribute.
HELD_READS: Cache[tuple[int, str, int, str], dict[str, FieldRead]] = Cache("held reads")


def held_reads(
    fn: FunctionNode, instance: str, cls: ast.ClassDef, attribute: str, facts: ModuleFacts
) -> dict[str, FieldRead]:
    """The fields read of `<instance>.<attribute>` by `fn` (whose `instance` is an object of
    `cls`) and by the methods of `cls` it reaches through it. A field read in several places
    keeps the first: `fn`'s own, then the reached methods' in the order they are reached."""

    def read() -> dict[str, FieldRead]:
        fields: dict[str, FieldRead] = {}
        for method, name in reached_methods(fn, instance, cls):
            base = field_matcher(name_matcher(name), attribute)
            for field, found in record_accesses(method, attribute, facts, base).items():
                fields.setdefault(field, found)
        return fields

    key = (id(fn), instance, id(cls), attribute)
    fields = facts.caches.value(HELD_READS, key, read)
    return dict(fields)


def reached_methods(
    fn: FunctionNode, instance: str, cls: ast.ClassDef
) -> list[tuple[FunctionNode, str]]:
    """`fn` with its name for the instance, then every method of `cls` reached from it
    through the instance (called, or read as a property), each with its own first
    parameter's name."""
    methods = {
        stmt.name: stmt
        for stmt in cls.body
        if isinstance(stmt, FUNCTIONS) and stmt.name != "__init__" and instance_name(stmt)
    }
    reached: list[tuple[FunctionNode, str]] = [(fn, instance)]
    seen = {id(fn)}
    for method, name in reached:
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == name
                and node.attr in methods
                and id(methods[node.attr]) not in seen
            ):
                target = methods[node.attr]
                seen.add(id(target))
                reached.append((target, instance_name(target)))
    return reached


def instance_name(method: FunctionNode) -> str:
    """The name a method gives its instance (its first parameter); "" for a static method
    or one without parameters."""
    if any(getattr(d, "id", "") == "staticmethod" for d in method.decorator_list):
        return ""
    positional = [*method.args.posonlyargs, *method.args.args]
    return positional[0].arg if positional else ""


MAX_STATE = 6  # attributes another method sets, taken as inputs of one method at most


def state_set_elsewhere(fn: FunctionNode, instance: str, cls: ast.ClassDef) -> list[str]:
    """Attributes of the instance that `fn` (or a method it reaches through it) reads and
    only another method of the class sets (`calculate()` keeps `self._current_sex` for the
    helpers it calls): a constructed instance lacks them, and every call that reads one
    raises. Not those the constructor (or a method it calls), the class body or `fn` itself
    sets, nor methods and properties."""
    members = {target.id for stmt in cls.body for target in assigned_names(stmt)} | {
        stmt.name for stmt in cls.body if isinstance(stmt, (*FUNCTIONS, ast.ClassDef))
    }
    init = next((s for s in cls.body if isinstance(s, FUNCTIONS) and s.name == "__init__"), None)
    if init is not None and (own := instance_name(init)):
        # What the constructor sets, itself or through the methods it calls (`__init__`
        # calling `self._load_risk_data()`), every instance has.
        members |= {a for m, n in reached_methods(init, own, cls) for a in attributes_set(m, n)}
    set_in: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, FUNCTIONS) and (own := instance_name(stmt)):
            set_in |= attributes_set(stmt, own)
    members |= attributes_set(fn, instance)  # what `fn` sets before its helpers read it
    read: list[str] = []
    for method, name in reached_methods(fn, instance, cls):
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == name
                and node.attr not in members
                and node.attr not in read
                and node.attr in set_in
            ):
                read.append(node.attr)
    return read[:MAX_STATE]


def state_set_outside(
    fn: FunctionNode,
    instance: str,
    family: list[ast.ClassDef],
    protected: Callable[[str], bool],
    known_bases: bool = True,
) -> list[str]:
    """Attributes of the instance that `fn` (or a method it reaches through it) reads and no
    method of its class or of the project's classes it derives from (`family`, the class
    first) sets: what a caller, a loader or an ORM puts there (`self.__dict__.update(record)`,
    `setattr(self, k, v)`, `age = Column(Integer)` in the class body); when one of them is
    `protected` by its name (else an attribute so read is as often one the class lacks by
    mistake). A class deriving from one outside the project (`known_bases` False) may get
    the others from it: then only the protected ones."""
    set_in: set[str] = set()
    for cls in family:
        for stmt in cls.body:
            if isinstance(stmt, FUNCTIONS) and (own := instance_name(stmt)):
                set_in |= attributes_set(stmt, own)
    read = [attr for attr in instance_inputs(fn, instance, family) if attr not in set_in]
    if not known_bases:
        read = [attr for attr in read if protected(attr)]
    # One protected attribute so set says the class takes its fields from outside: the
    # others read beside it come the same way (`self.age >= 18 and self.income > 1000`).
    return read[:MAX_STATE] if any(map(protected, read)) else []


def instance_inputs(fn: FunctionNode, instance: str, family: list[ast.ClassDef]) -> list[str]:
    """The attributes of its instance `fn` (or a method it reaches through it) reads, in
    order: not methods, properties, nested classes of its class or of the project's classes
    it derives from (`family`, the class first), nor their class bodies' plain constants
    (`age = Column(...)` in a class body is a column, read as an instance's value), nor what
    `fn` sets itself, nor what it calls (`self.helper()`: a method it gets elsewhere)."""
    members: set[str] = set()
    for cls in family:
        members |= {s.name for s in cls.body if isinstance(s, (*FUNCTIONS, ast.ClassDef))}
        for stmt in cls.body:
            value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
            if value is not None and not isinstance(value, ast.Call):
                members |= {target.id for target in assigned_names(stmt)}
    members |= attributes_set(fn, instance)  # what `fn` sets before its helpers read it
    read: list[str] = []
    for method, name in reached_methods(fn, instance, family[0]):
        members |= methods_called(method, name)
        read += sorted(instance_attributes(method, name, ast.Load) - members)
    return [attr for attr in dict.fromkeys(read) if attr not in members]


def branched_on(fn: FunctionNode, instance: str, cls: ast.ClassDef) -> set[str]:
    """The attributes of its instance that `fn` (or a method it reaches through it) branches
    on: `if self._method == Method.CALCULATED:`, `x if self.strict else y`. A mode the
    constructor keeps from a parameter with a default decides which code runs."""
    found: set[str] = set()
    for method, name in reached_methods(fn, instance, cls):
        for node in ast.walk(method):
            if isinstance(node, (ast.If, ast.IfExp, ast.While)):
                tests = [node.test]
            elif isinstance(node, ast.Match):
                tests = [node.subject]
            else:
                continue
            found |= {
                n.attr
                for test in tests
                for n in ast.walk(test)
                if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name)
                and n.value.id == name
            }
    return found


def methods_called(method: FunctionNode, instance: str) -> set[str]:
    """The attributes of `instance` that `method` calls (`self.helper(...)`, `table.npx(x)`)."""
    return {
        node.func.attr
        for node in ast.walk(method)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == instance
    }


def assigned_names(stmt: ast.stmt) -> list[ast.Name]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else []
    if isinstance(stmt, ast.AnnAssign):
        targets = [stmt.target]
    return [t for t in targets if isinstance(t, ast.Name)]


def attributes_set(method: FunctionNode, instance: str) -> set[str]:
    """The attributes `method` sets on its instance (`self.x = ...`, `self.x += ...`)."""
    return instance_attributes(method, instance, ast.Store)


def instance_attributes(
    method: FunctionNode, instance: str, context: type[ast.expr_context]
) -> set[str]:
    """The attributes `method` reads (`ast.Load`) or sets (`ast.Store`) of its instance."""
    return {
        node.attr
        for node in ast.walk(method)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, context)
        and isinstance(node.value, ast.Name)
        and node.value.id == instance
    }
