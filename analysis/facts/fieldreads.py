"""Field-read discovery: which keys and attributes a function reads from a record.

`applicant["age"]`, `applicant.get("age", 0)`, `applicant.setdefault("age", 0)`,
`applicant.age`, `getattr(applicant, "age", 0)`, accessors (`person("age", period)`, and
`parameters(period).general` read from what the call gives back), through local aliases
(`p = applicant`), nested records (`driver.profile.age`), items of a list parameter (`for c
in candidates: c["age"]`, `max(candidates, key=lambda c: c.score)`, `candidates[0].age`) and
helpers the record is passed to. A key read with a default is an input like any other: a
record that holds it is read by it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analysis.caches import Cache
from analysis.facts.harvest import looped_keys
from analysis.facts.module import ModuleFacts
from analysis.source.functions import (
    KEY_READERS,
    FunctionNode,
    call_bindings,
    called_function,
    function_defaults,
)
from analysis.source.mentions import mentions


@dataclass(frozen=True)
class Matcher:
    """Which nodes stand for a record: `applicant`, its alias `p`, `driver.profile`.

    Every node `test` accepts mentions one of `words` (a name, a key, an attribute): a walk
    for the record reads only the nodes around those mentions (analysis.source.mentions), so that
    a function reading thousands of keys is read once per key, not once per key per key."""

    test: Callable[[ast.AST], bool]
    words: frozenset[str]

    def __call__(self, node: ast.AST) -> bool:
        return self.test(node)

    def nodes(self, fn: ast.AST) -> list[ast.AST]:
        """The nodes of `fn` that may read the record, in `ast.walk` order."""
        return mentions(fn).around(self.words)


@dataclass(frozen=True)
class FieldRead:
    """Where a field of a record is read and how: in `where` (the function, or the helper
    the record is passed to), by `step` ("key" or "attr"); `matcher` stands for the field
    itself, to follow reads of its own fields (`driver.profile.age`). `via_helper`: read by
    a helper through a key its caller names (`get_value(p, "age")`)."""

    where: ast.AST
    matcher: Matcher
    step: str
    via_helper: bool = False


# (function, record's name, helper depth) -> the fields read, for a record not nested.
FIELDS_READ: Cache[tuple[int, str, int], dict[str, FieldRead]] = Cache("fields read")
# (function, record's name, helper depth) -> the attributes it must have.
REQUIRED_ATTRIBUTES: Cache[tuple[int, str, int], set[str]] = Cache("required attributes")


def name_matcher(name: str) -> Matcher:
    return Matcher(lambda node: isinstance(node, ast.Name) and node.id == name, frozenset({name}))


def field_read(node: ast.AST, base: Matcher, method_calls: set[int]) -> tuple[str, str] | None:
    """(field, "key" or "attr") when `node` reads a field of an object `base` matches:
    b["k"], b.get("k", d), b.setdefault("k", d), b.k, getattr(b, "k", d), b("k", ...)."""
    if isinstance(node, ast.Call):
        return call_read(node, base)
    if isinstance(node, ast.Subscript) and base(node.value):
        key = text_of(node.slice)
        return (key, "key") if key is not None else None
    if isinstance(node, ast.Attribute) and base(node.value):
        if id(node) not in method_calls and not node.attr.startswith("__"):
            return node.attr, "attr"
    return None


def call_read(node: ast.Call, base: Matcher) -> tuple[str, str] | None:
    """The field a call reads of an object `base` matches: an accessor's `b("k", ...)`,
    `b.get("k", d)` and the other KEY_READERS, `getattr(b, "k", d)`."""
    accessed = text_of(node.args[0]) if base(node.func) and node.args else None
    if accessed is not None and accessed.isidentifier():  # an accessor: `person("age", period)`
        return accessed, "key"
    func = node.func
    if isinstance(func, ast.Attribute):
        if base(func.value) and func.attr in KEY_READERS and node.args:
            key = text_of(node.args[0])
            return (key, "key") if key is not None else None
        return None
    if isinstance(func, ast.Name) and func.id == "getattr":
        if len(node.args) >= 2 and base(node.args[0]):
            attribute = text_of(node.args[1])
            return (attribute, "attr") if attribute is not None else None
    return None


def text_of(node: ast.AST) -> str | None:
    """The text a string constant holds; None for any other node."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


# Methods of the values a record field may hold: `name.startswith("Dr")` reads no field.
VALUE_METHODS = frozenset(
    name for kind in (str, bytes, list, dict, set, tuple, int, float) for name in dir(kind)
)


def group_accessor(call: ast.Call) -> bool:
    """`household.members("age", period)`: an accessor held in a field, asked for a
    variable by name (the members of an OpenFisca group entity)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr in VALUE_METHODS or not call.args:
        return False
    first = call.args[0]
    return (
        isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and first.value.isidentifier()
    )


def field_key(node: ast.AST, base: Matcher, method_calls: set[int]) -> str | None:
    read = field_read(node, base, method_calls)
    return read[0] if read else None


def or_called(base: Matcher) -> Matcher:
    """`base`, or a call of it that names no field: `parameters(period)` reads as the record
    `parameters` itself (records built for the sandbox answer such calls with themselves)."""

    def matches(node: ast.AST) -> bool:
        if base(node):
            return True
        if isinstance(node, ast.Call) and base(node.func):
            first = node.args[0] if node.args else None
            return not (isinstance(first, ast.Constant) and isinstance(first.value, str))
        return False

    return Matcher(matches, base.words)


def with_aliases(fn: ast.AST, base: Matcher) -> Matcher:
    """`base`, or any local name assigned from what `base` matches (`p = applicant`)."""
    names: set[str] = set()
    for node in base.nodes(fn):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and base(node.value)
        ):
            names.add(node.targets[0].id)
    if not names:
        return base
    return Matcher(
        lambda node: base(node) or (isinstance(node, ast.Name) and node.id in names),
        base.words | names,
    )


def field_matcher(parent: Matcher, key: str) -> Matcher:
    """Matches reads of field `key` of whatever `parent` matches: `driver.profile`."""
    return Matcher(lambda node: field_key(node, parent, set()) == key, frozenset({key}))


def record_accesses(
    fn: ast.AST,
    name: str,
    facts: ModuleFacts,
    base: Matcher | None = None,
    helper_depth: int = 2,
) -> dict[str, FieldRead]:
    """Keys and attributes read from `name` (or from what `base` matches).

    Maps each field to the function where it was read (helpers the record is passed to
    count too, two calls deep) and a matcher for reads of that field, so nested records
    (`driver.profile.age`) can be followed.
    """
    key = (id(fn), name, helper_depth)
    kept = facts.caches[FIELDS_READ]
    if base is None and key in kept:
        return dict(kept[key])
    matcher = or_called(with_aliases(fn, base or name_matcher(name)))
    # Only the nodes around the record's mentions can read it (a method call's node holds
    # its attribute, and a binary operation its operands).
    nodes = matcher.nodes(fn)
    method_calls = method_call_ids(nodes)
    fields: dict[str, FieldRead] = {}
    callable_names = callables_of(fn, facts)
    looped = looped_keys(fn, facts)
    # `parameters[p] * w`: reads by a looped key that are computed with (a score's weights);
    # a key read to look something up may be optional (`if p not in params: continue`).
    operands = {
        id(side) for node in nodes if isinstance(node, ast.BinOp)
        for side in (node.left, node.right)
    } if looped else set()
    for node in nodes:
        read = field_read(node, matcher, method_calls)
        if read is not None and read[0] not in fields:
            fields[read[0]] = FieldRead(fn, field_matcher(matcher, read[0]), read[1])
        if id(node) in operands:
            # `parameters[p] * w for p, w in WEIGHTS.items()`: every key of the table
            for table_key in looped_reads(node, looped, matcher):
                read_by_key = FieldRead(fn, field_matcher(matcher, table_key), "key")
                fields.setdefault(table_key, read_by_key)
        if not isinstance(node, ast.Call) or helper_depth == 0:
            continue
        called = called_function(node, callable_names)
        if called is None or called[0] is fn:
            continue
        for sub, where in helper_reads(node, called, matcher, facts, helper_depth).items():
            fields.setdefault(sub, where)
    if base is None:
        kept[key] = dict(fields)
    return fields


def method_call_ids(nodes: list[ast.AST]) -> set[int]:
    """The attribute nodes of the method calls among `nodes` (`p.get`, not a field read);
    `group_accessor` calls read a group by name, and are no method of the record."""
    return {
        id(node.func)
        for node in nodes
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and not group_accessor(node)
    }


def callables_of(
    fn: ast.AST, facts: ModuleFacts
) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions `fn` may call by name: the module's, and those its defaults pass in."""
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        passed_in = function_defaults(fn, facts.functions)
        return {**facts.functions, **passed_in} if passed_in else facts.functions
    return facts.functions


def looped_reads(node: ast.AST, looped: dict[str, list[str]], matcher: Matcher) -> list[str]:
    """The keys `record[key]` reads where `key` walks a table's keys (`looped`)."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Name)
        and node.slice.id in looped
        and matcher(node.value)
    ):
        return looped[node.slice.id]
    return []


def helper_reads(
    call: ast.Call,
    called: tuple[FunctionNode, bool],
    matcher: Matcher,
    facts: ModuleFacts,
    helper_depth: int,
) -> dict[str, FieldRead]:
    """The fields a helper reads of the record it is passed (or a copy of it), and the keys
    it reads by a key its caller names (`get_value(p, "age")`)."""
    callee, bound = called
    fields: dict[str, FieldRead] = {}
    bindings = call_bindings(callee, call, bound)
    for param, arg in bindings:
        if matcher(arg) or copies_record(arg, matcher):
            found = record_accesses(callee, param, facts, None, helper_depth - 1)
            for sub, where in found.items():
                fields.setdefault(sub, where)
            for named, keyed in helper_keyed_reads(callee, param, bindings).items():
                fields.setdefault(named, FieldRead(callee, keyed, "key", via_helper=True))
    return fields


def helper_keyed_reads(
    helper: FunctionNode, record: str, bindings: list[tuple[str, ast.expr]]
) -> dict[str, Matcher]:
    """Fields a helper reads for its caller by a key the caller names: `get_value(patient,
    "age")` running `patient[key]["value"]`. Maps each key to a matcher of the read in the
    helper (`patient[key]`), from which nested reads go on."""
    keys = {
        param: arg.value
        for param, arg in bindings
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and param != record
    }
    if not keys:
        return {}
    found: dict[str, Matcher] = {}
    for key_param, key in keys.items():
        matcher = keyed_read(record, key_param)
        if any(matcher(node) for node in ast.walk(helper)):
            found[key] = matcher
    return found


def keyed_read(record: str, key_param: str) -> Matcher:
    """Matches `record[key]`, `record.get(key...)` and `getattr(record, key...)`."""

    def matches(node: ast.AST) -> bool:
        if isinstance(node, ast.Subscript):
            return is_name(node.value, {record}) and is_name(node.slice, {key_param})
        if isinstance(node, ast.Call) and node.args and is_name(node.args[0], {key_param}):
            func = node.func
            return (
                isinstance(func, ast.Attribute)
                and func.attr in KEY_READERS
                and (is_name(func.value, {record}))
            )
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            return (
                getattr(node.func, "id", "") == "getattr"
                and is_name(node.args[0], {record})
                and is_name(node.args[1], {key_param})
            )
        return False

    return Matcher(matches, frozenset({record}))


def calls_methods_of(fn: ast.AST, name: str) -> bool:
    """Whether `fn` calls a method of `name` itself (`patient.model_dump()`, `p.risk()`)."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == name
        for node in ast.walk(fn)
    )


def required_attributes(fn: ast.AST, name: str, facts: ModuleFacts, depth: int = 2) -> set[str]:
    """Attributes a function needs its record `name` to have, in it and in the helpers it
    hands the record to (two calls deep): read plainly (`patient.prior_stroke_tia`,
    `getattr(patient, "x")` without a default) or asked for (`hasattr(patient, "x")`, by
    name or for each of a constant list: `for attr in required: if not hasattr(...)`)."""
    key = (id(fn), name, depth)
    kept = facts.caches[REQUIRED_ATTRIBUTES]
    if key in kept:
        return kept[key]
    local = local_constants(fn, facts)
    needed: set[str] = set()
    methods = {id(n.func) for n in ast.walk(fn) if isinstance(n, ast.Call)}
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and isinstance(node.ctx, ast.Load)
            and id(node) not in methods
        ):
            needed.add(node.attr)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == name
        ):
            needed.update(attribute_names(node.args[1], facts, local))
        elif isinstance(node, ast.Call) and depth:
            needed |= required_by_helper(fn, node, name, facts, depth)
    kept[key] = needed
    return needed


def local_constants(fn: ast.AST, facts: ModuleFacts) -> dict[str, Any]:
    """The constant each local of `fn` is given (`required = ["age", "sex"]`), or loops over."""
    local: dict[str, Any] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name):
                local[node.targets[0].id] = facts.const(node.value, local)
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            local[node.target.id] = facts.const(node.iter, local)
    return local


def attribute_names(arg: ast.expr, facts: ModuleFacts, local: dict[str, Any]) -> list[str]:
    """The attribute names `getattr`/`hasattr` is given: a constant, or a local's values."""
    value = facts.const(arg, local) if not isinstance(arg, ast.Name) else local.get(arg.id)
    items = value if isinstance(value, (list, tuple)) else [value]
    return [item for item in items if isinstance(item, str) and item.isidentifier()]


def required_by_helper(
    fn: ast.AST, call: ast.Call, name: str, facts: ModuleFacts, depth: int
) -> set[str]:
    """The attributes a helper `fn` calls needs of the record `name` it is handed."""
    called = called_function(call, facts.functions)
    if called is None or called[0] is fn:
        return set()
    needed: set[str] = set()
    for param, arg in call_bindings(called[0], call, called[1]):
        if isinstance(arg, ast.Name) and arg.id == name:
            needed |= required_attributes(called[0], param, facts, depth - 1)
    return needed


# Names a key held in a variable goes by: `row[key]`, `record[field_name]`.
KEY_NAMES = frozenset({"key", "k", "field", "field_name", "name", "column", "col", "attr", "item"})


def keyed_by_text(fn: ast.AST, name: str, facts: ModuleFacts) -> bool:
    """Whether parameter `name` is read by a key of text the source does not spell at the
    read: `p[REQUIRED[0]]`, `p[f"Age {unit}"]`, `for key in FIELDS: p[key]`, `p[key]`."""
    looped: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
            items = facts.const(node.iter)
            texts = isinstance(items, (list, tuple)) and all(isinstance(i, str) for i in items)
            if texts and items:
                looped.add(node.target.id)
    for node in ast.walk(fn):
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and isinstance(node.ctx, ast.Load)
        ):
            continue
        key = node.slice
        if isinstance(key, ast.Constant):
            continue
        if isinstance(key, ast.JoinedStr) or isinstance(facts.const(key), str):
            return True
        if isinstance(key, ast.Name) and (key.id in looped or key.id.lower() in KEY_NAMES):
            return True
    return False


def is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def copies_record(node: ast.AST, matcher: Matcher) -> bool:
    """`{**row, "mode": m}` or `dict(row, mode=m)`: a copy of the record, a key or two added."""
    if isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values, strict=True)
        return any(key is None and matcher(value) for key, value in pairs)
    return (
        isinstance(node, ast.Call)
        and getattr(node.func, "id", "") == "dict"
        and bool(node.args)
        and matcher(node.args[0])
    )
