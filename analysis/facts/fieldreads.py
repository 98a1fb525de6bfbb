"""Field-read discovery: which keys and attributes a function reads from a record.

`applicant["age"]`, `applicant.get("age", 0)`, `applicant.setdefault("age", 0)`,
`applicant.age`, `getattr(applicant, "age", 0)`, accessors (`person("age", period)`, and
`parameters(period).general` read from what the call gives back), through local aliases
(`p = applicant`), nested records (`driver.profile.age`), items of a list parameter (`for c
in candidates: c["age"]`, `max(candidates, key=lambda c: c.score)`, `candidates[0].age`) and
helpers the record is passed to. A key read with a default is an input like any other: a
record that holds it is read by it. Each field read is a typed `FieldRead` (its name, a key
or an attribute step); how one expression reads a field is analysis.source.reads_input's
answer, which the static taint walk shares.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analysis.caches import Cache
from analysis.facts.components import class_named, dispatch_tables, methods
from analysis.facts.harvest import looped_keys
from analysis.facts.module import ModuleFacts
from analysis.shapes import InputPath
from analysis.source.functions import (
    KEY_READERS,
    FunctionNode,
    call_bindings,
    called_function,
    constructor,
    function_defaults,
    takes_self,
)
from analysis.source.mentions import mentions
from analysis.source.reads_input import (
    FieldAccess,
    FieldStep,
    aliases,
    field_access,
    input_subscript,
    is_input,
    text_of,
)
from analysis.static.taint import leaf_matches
from analysis.values import MISSING


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
    """The field `name` of a record, read in `where` (the function, or the helper the record
    is passed to) by `step` (a key or an attribute); `matcher` stands for the field itself,
    to follow reads of its own fields (`driver.profile.age`). `via_helper`: read by a helper
    through a key its caller names (`get_value(p, "age")`)."""

    where: ast.AST
    name: str
    matcher: Matcher
    step: FieldStep
    via_helper: bool = False

    @classmethod
    def of(cls, where: ast.AST, parent: Matcher, name: str, step: FieldStep) -> FieldRead:
        """The read of field `name` of what `parent` matches, in `where`."""
        return cls(where, name, field_matcher(parent, name), step)


# (function, record's name, helper depth) -> the fields read, for a record not nested.
# The module's tables of its functions (facts/components.py).
DISPATCH_TABLES: Cache[None, dict[str, list[FunctionNode]]] = Cache("tables of functions")
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# How deep a record is followed into the helpers it is handed to: a service's method hands
# it to `self._prepare`, which hands it to `self._score`, which hands it to the rule.
HELPER_DEPTH = 3
FIELDS_READ: Cache[tuple[int, str, int], dict[str, FieldRead]] = Cache("fields read")
MADE_ARRAYS: Cache[int, set[str]] = Cache("names made arrays")
# (function, record's name, helper depth) -> the attributes it must have.
REQUIRED_ATTRIBUTES: Cache[tuple[int, str, int], set[str]] = Cache("required attributes")


def name_matcher(name: str) -> Matcher:
    return Matcher(lambda node: isinstance(node, ast.Name) and node.id == name, frozenset({name}))


# What a numpy array (or a pandas object) tells of itself, not of the values it holds.
ARRAY_METADATA = frozenset({"ndim", "shape", "dtype", "size", "T", "itemsize", "nbytes", "strides"})
# Calls that make an array of what they are given.
ARRAY_MAKERS = frozenset(
    {"asarray", "array", "asanyarray", "atleast_1d", "atleast_2d", "ascontiguousarray", "ravel"}
)


def made_arrays(fn: ast.AST) -> set[str]:
    """Names the function binds to an array made of them: `x = np.asarray(x, dtype=int)`."""
    found: set[str] = set()
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        func = node.value.func
        maker = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if maker not in ARRAY_MAKERS:
            continue
        given = {n.id for a in node.value.args for n in ast.walk(a) if isinstance(n, ast.Name)}
        found |= {t.id for t in node.targets if isinstance(t, ast.Name) and t.id in given}
    return found


def field_read(node: ast.AST, base: Matcher, method_calls: set[int]) -> FieldAccess | None:
    """How `node` reads a field named by text of an object `base` matches: b["k"],
    b.get("k", d), b.setdefault("k", d), b.k (no method, no dunder), getattr(b, "k", d), an
    accessor's b("k", ...) (a name, as such accessors are asked)."""
    access = field_access(node, base)
    if access is None or access.text is None:
        return None
    if access.by == "accessor" and not access.text.isidentifier():
        return None
    if access.by == "attribute" and (id(node) in method_calls or access.text.startswith("__")):
        return None
    return access


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
    first = text_of(call.args[0])
    return first is not None and first.isidentifier()


def field_key(node: ast.AST, base: Matcher, method_calls: set[int]) -> str | None:
    read = field_read(node, base, method_calls)
    return read.text if read else None


def or_called(base: Matcher) -> Matcher:
    """`base`, or a call of it that names no field: `parameters(period)` reads as the record
    `parameters` itself (records built for the sandbox answer such calls with themselves)."""

    def matches(node: ast.AST) -> bool:
        if base(node):
            return True
        if isinstance(node, ast.Call) and base(node.func):
            return not (node.args and text_of(node.args[0]) is not None)
        return False

    return Matcher(matches, base.words)


# Modules whose `loads` decodes JSON text.
JSON_MODULES = frozenset({"json", "orjson", "ujson", "simplejson", "rapidjson"})


def json_decoded(base: Matcher) -> Matcher:
    """What decoding as JSON gives of what `base` matches: `json.loads(payload)`."""

    def matches(node: ast.AST) -> bool:
        if not isinstance(node, ast.Call) or len(node.args) != 1:
            return False
        called = node.func
        return (
            isinstance(called, ast.Attribute)
            and called.attr == "loads"
            and isinstance(called.value, ast.Name)
            and called.value.id in JSON_MODULES
            and base(node.args[0])
        )

    return Matcher(matches, base.words)


def with_aliases(fn: ast.AST, base: Matcher) -> Matcher:
    """`base`, or any local name assigned from what `base` matches (`p = applicant`)."""
    names = aliases(base.nodes(fn), base)
    if not names:
        return base
    return Matcher(lambda node: base(node) or is_input(node, names), base.words | names)


def field_matcher(parent: Matcher, key: str) -> Matcher:
    """Matches reads of field `key` of whatever `parent` matches: `driver.profile`."""
    return Matcher(lambda node: field_key(node, parent, set()) == key, frozenset({key}))


def record_accesses(
    fn: ast.AST,
    name: str,
    facts: ModuleFacts,
    base: Matcher | None = None,
    helper_depth: int = HELPER_DEPTH,
) -> dict[str, FieldRead]:
    """Keys and attributes read from `name` (or from what `base` matches).

    Maps each field to the function where it was read (helpers the record is passed to
    count too, HELPER_DEPTH calls deep) and a matcher for reads of that field, so nested records
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
    operands = (
        {
            id(side)
            for node in nodes
            if isinstance(node, ast.BinOp)
            for side in (node.left, node.right)
        }
        if looped
        else set()
    )
    # `x = np.asarray(x); x.ndim == 0`: what an array tells of itself is no field of the input
    arrays = facts.caches.value(MADE_ARRAYS, id(fn), lambda: made_arrays(fn))
    array_metadata = ARRAY_METADATA if matcher.words & arrays else frozenset()
    for node in nodes:
        read = field_read(node, matcher, method_calls)
        if read is not None and read.by == "attribute" and read.name in array_metadata:
            continue
        if read is not None and read.name not in fields:
            fields[read.name] = FieldRead.of(fn, matcher, read.name, read.step)
        if id(node) in operands:
            # `parameters[p] * w for p, w in WEIGHTS.items()`: every key of the table
            for table_key in looped_reads(node, looped, matcher):
                fields.setdefault(table_key, FieldRead.of(fn, matcher, table_key, "key"))
        if not isinstance(node, ast.Call) or helper_depth == 0:
            continue
        called = called_function(node, callable_names)
        callees = [called] if called is not None else possible_callees(node, fn, facts)
        for callee in callees:
            if callee[0] is fn:
                continue
            for sub, where in helper_reads(node, callee, matcher, facts, helper_depth).items():
                fields.setdefault(sub, where)
        if called is None:
            for sub, where in constructor_reads(node, matcher, facts, helper_depth).items():
                fields.setdefault(sub, where)
    if base is None:
        kept[key] = dict(fields)
    return fields


def possible_callees(
    call: ast.Call, caller: ast.AST, facts: ModuleFacts
) -> list[tuple[FunctionNode, bool]]:
    """The project functions a call the code does not name one function for may run: each of
    a table's (`HANDLERS[kind](applicant)`, `rule(applicant)` for each rule of a table). A
    record handed there has the fields any of them reads. Not each method of that name when
    the object's class is unknown: taken for `rule.apply(applicant)` over a list of rules,
    it lost five of the first blind holdouts' proofs (the fields of unrelated methods)."""
    func = call.func
    tables = facts.caches.once(
        DISPATCH_TABLES, lambda: dispatch_tables(facts.tree, facts.functions)
    )
    if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name):
        return [(fn, False) for fn in tables.get(func.value.id, [])]
    if isinstance(func, ast.Name):  # `for rule in RULES: rule(applicant)`
        table = looped_table(caller, func.id)
        return [(fn, False) for fn in tables.get(table, [])] if table else []
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        # `engine.evaluate(applicant)` of a parameter annotated `engine: Engine`
        cls = class_named(annotations_of(caller).get(func.value.id), facts.classes)
        found = [m for m in methods(cls, facts.classes) if m.name == func.attr] if cls else []
        return [(found[0], takes_self(found[0]))] if found else []
    return []


def annotations_of(fn: ast.AST) -> dict[str, ast.expr]:
    """The annotations of a function's parameters, by name."""
    if not isinstance(fn, FUNCTIONS):
        return {}
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return {a.arg: a.annotation for a in every if a.annotation is not None}


def looped_table(fn: ast.AST, name: str) -> str | None:
    """The module table a loop of `fn` takes `name` from: `for rule in RULES`, `for key, rule
    in RULES.items()`, in a comprehension too."""
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            source = node.iter
            if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute):
                source = source.func.value  # `RULES.items()`, `RULES.values()`
            targets = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            if name in targets and isinstance(source, ast.Name):
                return source.id
    return None


def constructor_reads(
    call: ast.Call, matcher: Matcher, facts: ModuleFacts, helper_depth: int
) -> dict[str, FieldRead]:
    """The fields an object reads of the record it is made with: `RiskModel(applicant)`
    keeps it as `self.profile`, and its methods read `self.profile["age"]` (its constructor
    may read some too)."""
    cls = class_named(call.func, facts.classes)
    init = constructor(cls) if cls is not None else None
    if cls is None or init is None:
        return {}
    fields: dict[str, FieldRead] = {}
    for param, arg in call_bindings(init, call, bound=True):
        if not (matcher(arg) or copies_record(arg, matcher)):
            continue
        fields.update(record_accesses(init, param, facts, None, helper_depth - 1))
        for attribute in kept_in(init, param):
            held = field_matcher(name_matcher("self"), attribute)
            methods = [m for m in cls.body if isinstance(m, FUNCTIONS) and m is not init]
            for method in methods:
                found = record_accesses(method, "self", facts, held, helper_depth - 1)
                for sub, where in found.items():
                    fields.setdefault(sub, where)
    return fields


def kept_in(init: FunctionNode, param: str) -> list[str]:
    """The attributes a constructor keeps a parameter in as given: `self.profile = profile`."""
    return [
        target.attr
        for node in ast.walk(init)
        if isinstance(node, ast.Assign) and is_input(node.value, {param})
        for target in node.targets
        if isinstance(target, ast.Attribute) and is_input(target.value, {"self"})
    ]


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
    if isinstance(node, ast.Subscript) and is_input(node.slice, looped.keys()):
        return looped[node.slice.id] if matcher(node.value) else []
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
                fields.setdefault(named, FieldRead(callee, named, keyed, "key", via_helper=True))
    return fields


def helper_keyed_reads(
    helper: FunctionNode, record: str, bindings: list[tuple[str, ast.expr]]
) -> dict[str, Matcher]:
    """Fields a helper reads for its caller by a key the caller names: `get_value(patient,
    "age")` running `patient[key]["value"]`. Maps each key to a matcher of the read in the
    helper (`patient[key]`), from which nested reads go on."""
    keys = {
        param: text
        for param, arg in bindings
        if (text := text_of(arg)) is not None and param != record
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
            return is_input(node.value, {record}) and is_input(node.slice, {key_param})
        if isinstance(node, ast.Call) and node.args and is_input(node.args[0], {key_param}):
            func = node.func
            return (
                isinstance(func, ast.Attribute)
                and func.attr in KEY_READERS
                and is_input(func.value, {record})
            )
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            return (
                getattr(node.func, "id", "") == "getattr"
                and is_input(node.args[0], {record})
                and is_input(node.args[1], {key_param})
            )
        return False

    return Matcher(matches, frozenset({record}))


def calls_methods_of(fn: ast.AST, path: InputPath) -> bool:
    """Whether `fn` calls a method of the input at `path` itself (`patient.model_dump()`,
    `p.risk()`, `self.scorer.score(applicant)`)."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and leaf_matches(node.func.value, path)
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
            and is_input(node.value, {name})
            and isinstance(node.ctx, ast.Load)
            and id(node) not in methods
        ):
            needed.add(node.attr)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) == 2
            and is_input(node.args[0], {name})
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
        if is_input(arg, {name}):
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
        if not (input_subscript(node, {name}) and isinstance(node.ctx, ast.Load)):
            continue
        key = node.slice
        if isinstance(key, ast.Constant):
            continue
        if isinstance(key, ast.JoinedStr) or isinstance(facts.const(key), str):
            return True
        if isinstance(key, ast.Name) and (key.id in looped or key.id.lower() in KEY_NAMES):
            return True
    return False


def keys_held_elsewhere(fn: ast.AST, name: str, facts: ModuleFacts, helper_depth: int = 2) -> bool:
    """Whether `name` (a table) is also read, here or in a helper it is handed to, by keys
    the source does not give: `data[config.model_config.features]`, the columns a
    configuration file lists. Whatever columns the code names besides, only the calls can
    tell the rest (analysis/search/missing_fields.py learns them from the errors)."""
    matcher = or_called(with_aliases(fn, name_matcher(name)))
    params = {arg.arg for arg in ast.walk(fn) if isinstance(arg, ast.arg)}
    callable_names = callables_of(fn, facts)
    for node in matcher.nodes(fn):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and matcher(node.value)
            and held_elsewhere(node.slice, params, facts)
        ):
            return True
        if not isinstance(node, ast.Call) or helper_depth == 0:
            continue
        called = called_function(node, callable_names)
        if called is None or called[0] is fn:
            continue
        for param, arg in call_bindings(called[0], node, called[1]):
            if matcher(arg) and keys_held_elsewhere(called[0], param, facts, helper_depth - 1):
                return True
    return False


def held_elsewhere(key: ast.expr, params: set[str], facts: ModuleFacts) -> bool:
    """A key whose value the source does not give: a configuration's attribute or item, or
    a name that is neither a parameter (one naming a column: builder.column_names) nor a
    constant. A mask (`df[df.age > 60]`) or a call selects rows."""
    if isinstance(key, (ast.Attribute, ast.Subscript)):
        return facts.const(key) is MISSING
    return isinstance(key, ast.Name) and key.id not in params and facts.const(key) is MISSING


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
