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
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analysis.facts.harvest import looped_keys
from analysis.facts.module import ModuleFacts
from analysis.shapes import Leaf
from analysis.source.functions import (
    KEY_READERS,
    FunctionNode,
    all_args,
    call_bindings,
    called_function,
    function_defaults,
)
from analysis.source.mentions import mentions
from analysis.static.taint import Tainter
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


def name_matcher(name: str) -> Matcher:
    return Matcher(lambda node: isinstance(node, ast.Name) and node.id == name, frozenset({name}))


def field_read(node: ast.AST, base: Matcher, method_calls: set[int]) -> tuple[str, str] | None:
    """(field, "key" or "attr") when `node` reads a field of an object `base` matches:
    b["k"], b.get("k", d), b.setdefault("k", d), b.k, getattr(b, "k", d), b("k", ...)."""
    if isinstance(node, ast.Call) and base(node.func) and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            if first.value.isidentifier():  # an accessor: `person("age", period)`
                return first.value, "key"
    if isinstance(node, ast.Subscript) and base(node.value):
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return node.slice.value, "key"
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if base(node.func.value) and node.func.attr in KEY_READERS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return first.value, "key"
    elif isinstance(node, ast.Attribute) and base(node.value):
        if id(node) not in method_calls and not node.attr.startswith("__"):
            return node.attr, "attr"
    elif (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
    ):
        if len(node.args) >= 2 and base(node.args[0]):
            second = node.args[1]
            if isinstance(second, ast.Constant) and isinstance(second.value, str):
                return second.value, "attr"
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
) -> dict[str, tuple[ast.AST, Matcher, str]]:
    """Keys and attributes read from `name` (or from what `base` matches).

    Maps each field to the function where it was read (helpers the record is passed to
    count too, two calls deep) and a matcher for reads of that field, so nested records
    (`driver.profile.age`) can be followed.
    """
    key = (id(fn), name, helper_depth)
    if base is None and key in facts.memo:
        return dict(facts.memo[key])
    matcher = or_called(with_aliases(fn, base or name_matcher(name)))
    # Only the nodes around the record's mentions can read it (a method call's node holds
    # its attribute, and a binary operation its operands).
    nodes = matcher.nodes(fn)
    method_calls = {
        id(node.func)
        for node in nodes
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and not group_accessor(node)
    }
    fields: dict[str, tuple[ast.AST, Matcher, str]] = {}
    callable_names = facts.functions
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        passed_in = function_defaults(fn, facts.functions)
        callable_names = {**facts.functions, **passed_in} if passed_in else facts.functions
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
            fields[read[0]] = (fn, field_matcher(matcher, read[0]), read[1])
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Name)
            and node.slice.id in looped
            and id(node) in operands
            and matcher(node.value)
        ):
            # `parameters[p] * w for p, w in WEIGHTS.items()`: every key of the table
            for table_key in looped[node.slice.id]:
                fields.setdefault(table_key, (fn, field_matcher(matcher, table_key), "key"))
        called = called_function(node, callable_names) if isinstance(node, ast.Call) else None
        if called is None or called[0] is fn or helper_depth == 0:
            continue
        callee, bound = called
        bindings = call_bindings(callee, node, bound)  # type: ignore[arg-type]
        for param, arg in bindings:
            if matcher(arg) or copies_record(arg, matcher):
                found = record_accesses(callee, param, facts, None, helper_depth - 1)
                for sub, where in found.items():
                    fields.setdefault(sub, where)
                for named, keyed in helper_keyed_reads(callee, param, bindings).items():
                    fields.setdefault(named, (callee, keyed, "key via helper"))
    if base is None:
        facts.memo[key] = dict(fields)
    return fields


# A value held as a small tuple is read by position: `(17, "years")`, `(70.0, "kg")`.
MAX_POSITIONS = 4
TUPLE_API = frozenset({"count", "index"})


def tuple_positions(
    fn: ast.AST, name: str, facts: ModuleFacts, base: Matcher | None = None, helper_depth: int = 2
) -> dict[int, str]:
    """Positions read from `name` (or what `base` matches) as a fixed-size tuple: `age[0]`,
    `value, unit = age`, `w = weight[0]`, in `fn` and in helpers it is passed to (two calls
    deep). Maps each position to the local name that takes it ("" when none does)."""
    key = ("positions", id(fn), name, helper_depth)
    if base is None and key in facts.memo:
        return dict(facts.memo[key])
    matcher = with_aliases(fn, base or name_matcher(name))
    positions: dict[int, str] = {}
    for node in matcher.nodes(fn):
        if isinstance(node, ast.Attribute) and node.attr not in TUPLE_API and matcher(node.value):
            positions = {}  # `name[0].upper()` or `name.strip()`: a word, not a tuple
            break
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, (ast.Tuple, ast.List)) and matcher(value):
                names = [t.id if isinstance(t, ast.Name) else None for t in target.elts]
                if 2 <= len(names) <= MAX_POSITIONS and all(names):
                    for i, local in enumerate(names):
                        positions[i] = local or ""
            elif isinstance(target, ast.Name) and position_of(value, matcher) is not None:
                positions[position_of(value, matcher)] = target.id  # type: ignore[index]
        index = position_of(node, matcher)
        if index is not None:
            positions.setdefault(index, "")
        if helper_depth and isinstance(node, ast.Call):
            called = called_function(node, facts.functions)
            if called is not None and called[0] is not fn:
                callee, bound = called
                for param, arg in call_bindings(callee, node, bound):
                    if matcher(arg):
                        found = tuple_positions(callee, param, facts, None, helper_depth - 1)
                        for i, local in found.items():
                            if not positions.get(i):
                                positions[i] = local
    if base is None:
        facts.memo[key] = dict(positions)
    return positions


def position_of(node: ast.AST, matcher: Matcher) -> int | None:
    """i when `node` reads `x[i]` (a small constant index, read not written) of what matches."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
        return None
    index = node.slice
    if (
        isinstance(index, ast.Constant)
        and type(index.value) is int
        and 0 <= index.value < MAX_POSITIONS
        and matcher(node.value)
    ):
        return index.value
    return None


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


def element_accesses(
    fn: ast.AST, name: str, facts: ModuleFacts, mapping: bool = False
) -> dict[str, tuple[ast.AST, Matcher, str]]:
    """Fields read from the items of a list parameter: `for c in name: c["age"]`, a key
    function given the list (`sorted(name, key=lambda c: c["age"])`, `key=adjusted`,
    `filter(lambda c: ..., name)`, `name.sort(key=...)`), items taken by index (`name[0].age`)
    or picked out (`best = max(name, key=...)`; `best["name"]`).

    With `mapping`, the values of a dict parameter instead: `for k, v in name.items()`,
    `for v in name.values()`."""
    key = ("items", id(fn), name, mapping)
    if key in facts.memo:
        return dict(facts.memo[key])
    names = list_aliases(fn, name)
    fields: dict[str, tuple[ast.AST, Matcher, str]] = {}
    items: set[str] = set()  # local names bound to one item
    for node in mentions(fn).around(names):  # a loop, a call or a pick mentions the list
        if isinstance(node, (ast.For, ast.comprehension)):
            target = item_target(node.iter, node.target, names, mapping)
            if target is not None:
                scope = node if isinstance(node, ast.For) else fn
                fields.update(record_accesses(scope, target, facts))
        elif not mapping and isinstance(node, ast.Call) and given_the_list(node, names):
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Lambda) and arg.args.args:
                    fields.update(record_accesses(arg, arg.args.args[0].arg, facts))
                elif isinstance(arg, ast.Name) and arg.id in facts.functions:
                    helper = facts.functions[arg.id]
                    params = [a.arg for a in [*helper.args.posonlyargs, *helper.args.args]]
                    if params:
                        fields.update(record_accesses(helper, params[0], facts))
        elif not mapping and isinstance(node, ast.Assign) and picks_one(node.value, names):
            items |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    if not mapping:
        for item in sorted(items):
            for field_name, where in record_accesses(fn, item, facts).items():
                fields.setdefault(field_name, where)
        indexed = record_accesses(fn, name, facts, base=item_of(names))
        for field_name, where in indexed.items():
            fields.setdefault(field_name, where)
    facts.memo[key] = dict(fields)
    return fields


def item_target(iterated: ast.expr, target: ast.expr, names: set[str], mapping: bool) -> str | None:
    """The loop variable that holds one item: `for c in name` (a list), `for k, v in
    name.items()` or `for v in name.values()` (a mapping)."""
    if not mapping:
        if isinstance(iterated, ast.Call) and getattr(iterated.func, "id", "") == "enumerate":
            if iterated.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                iterated, target = iterated.args[0], target.elts[1]  # for i, c in enumerate(name)
        if is_name(iterated, names) or holds_items(iterated, names):
            return target.id if isinstance(target, ast.Name) else None
        return None
    if not (
        isinstance(iterated, ast.Call)
        and isinstance(iterated.func, ast.Attribute)
        and is_name(iterated.func.value, names)
    ):
        return None
    method = iterated.func.attr
    if method == "values" and isinstance(target, ast.Name):
        return target.id
    if method == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        value = target.elts[1]
        return value.id if isinstance(value, ast.Name) else None
    return None


# Calls that pick one of the people: `best = max(candidates, key=...)`.
PICK_ONE = frozenset({"max", "min", "next", "choice"})


def picks_one(value: ast.expr, names: set[str]) -> bool:
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return called in PICK_ONE and any(is_name(a, names) for a in value.args)


# Calls that give back the same people, reordered or filtered: `ranked = sorted(candidates)`.
SAME_ITEMS = frozenset({"sorted", "list", "tuple", "set", "reversed", "filter", "iter"})


def list_aliases(fn: ast.AST, name: str) -> set[str]:
    """`name`, and the local names that hold its items: `ranked = sorted(name, key=...)`,
    `adults = [p for p in name if ...]`, `rest = name[1:]`."""
    names = {name}
    index = mentions(fn)
    fresh = {name}
    while fresh:  # aliases of aliases: an assignment of items mentions what it takes them from
        found = {
            node.targets[0].id
            for node in index.around(fresh)
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and holds_items(node.value, names)
        }
        fresh = found - names
        names |= fresh
    return names


def holds_items(value: ast.expr, names: set[str]) -> bool:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id in SAME_ITEMS and any(is_name(a, names) for a in value.args)
    if isinstance(value, ast.Subscript):
        return is_name(value.value, names) and isinstance(value.slice, ast.Slice)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        first = value.generators[0]
        return (
            is_name(first.iter, names)
            and isinstance(first.target, ast.Name)
            and is_name(value.elt, {first.target.id})
        )
    return False


def given_the_list(call: ast.Call, names: set[str]) -> bool:
    """`f(name, ...)`, `f(..., key=name)` or `name.sort(...)`."""
    if any(is_name(a, names) for a in [*call.args, *(k.value for k in call.keywords)]):
        return True
    return isinstance(call.func, ast.Attribute) and is_name(call.func.value, names)


def item_of(names: set[str]) -> Matcher:
    """An item of a list taken by position: `name[0]`, `name[-1]`, `name[i]`."""

    def matches(node: ast.AST) -> bool:
        if not (isinstance(node, ast.Subscript) and is_name(node.value, names)):
            return False
        index = node.slice
        return not (isinstance(index, ast.Constant) and isinstance(index.value, str))

    return Matcher(matches, frozenset(names))


def is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


# What a pandas DataFrame answers besides its columns.
FRAME_API = frozenset(
    {"loc", "iloc", "at", "iat", "shape", "columns", "index", "values", "empty", "T", "dtypes",
     "size", "ndim", "str", "dt"}
)  # fmt: skip
FRAME_METHODS = frozenset(
    {"loc", "iloc", "groupby", "query", "assign", "merge", "iterrows", "itertuples", "apply",
     "pivot_table", "value_counts", "to_dict", "drop", "dropna", "fillna"}
)  # fmt: skip
FRAME_NAMES = frozenset({"df", "frame", "dataframe", "data_frame", "table"})


def is_frame(fn: FunctionNode, name: str, annotation: ast.expr | None) -> bool:
    """Whether a parameter is a pandas DataFrame: annotated so, named so (`df`, `people_df`),
    or used through the DataFrame API (`name.loc[...]`, `name.groupby(...)`)."""
    if annotation is not None and "DataFrame" in ast.unparse(annotation):
        return True
    lowered = name.lower()
    if lowered in FRAME_NAMES or lowered.endswith("_df"):
        return True
    if any(
        isinstance(node, ast.Attribute)
        and is_name(node.value, {name})
        and node.attr in FRAME_METHODS
        for node in mentions(fn).around([name])
    ):
        return True
    return masks_itself(fn, name)


def masks_itself(fn: FunctionNode, name: str) -> bool:
    """Whether the parameter, or a local copy of it, is indexed by a test of its own columns:
    `df = data; df = df[df["AGEP"] > 16]`, `rows[(rows.a > 1) & (rows.b < 2)]` (rows kept by a
    boolean mask: a DataFrame's idiom, which no dict or list answers)."""
    masked = mask_sites(fn)
    if not masked:
        return False
    names = frame_copies(fn, name)
    return any(
        any(
            isinstance(inner, (ast.Subscript, ast.Attribute)) and is_name(inner.value, names)
            for inner in ast.walk(node.slice)
        )
        for copy in names
        for node in masked.get(copy, ())
    )


def mask_sites(fn: FunctionNode) -> dict[str, list[ast.Subscript]]:
    """The function's subscripts by a test (`rows[rows.age > 16]`, `arr[i + 1]`), by the name
    they index (`""` for any other value); read once per function (kept on the node: every
    parameter asks)."""
    cached: dict[str, list[ast.Subscript]] | None = getattr(fn, "_cb_mask_sites", None)
    if cached is not None:
        return cached
    masked: dict[str, list[ast.Subscript]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(
            node.slice, (ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp)
        ):
            owner = node.value.id if isinstance(node.value, ast.Name) else ""
            masked.setdefault(owner, []).append(node)
    fn._cb_mask_sites = masked  # type: ignore[union-attr]
    return masked


def vectorised(fn: FunctionNode, name: str) -> bool:
    """Whether a parameter holds one value per person, as a pandas Series: what the code
    makes of it is written through a boolean mask (`creat = 0.9 - 0.2 * female`,
    `creat[ratio < 1] = ...`), which no single number answers."""
    masked = [node for nodes in mask_sites(fn).values() for node in nodes]
    stores = [m for m in masked if isinstance(m.ctx, ast.Store) and is_mask(m.slice)]
    if not stores:
        return False
    made = Tainter(fn, Leaf((("param", name),), name, name, []))  # the names made from it
    return any(made.tainted(m.value) or made.tainted(m.slice) for m in stores)


def is_mask(node: ast.expr) -> bool:
    """A test of rows: `ratio < 1`, `(a > 1) & ~(b == 2)`; not a position (`arr[i + 1]`)."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        return is_mask(node.left) or is_mask(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return is_mask(node.operand)
    return False


# Methods whose result is the same rows of people, or some of them, with the same columns.
FRAME_COPIES = frozenset(
    {"copy", "reset_index", "dropna", "fillna", "assign", "query", "sort_values", "head",
     "tail", "set_index", "astype", "drop_duplicates"}
)  # fmt: skip


def frame_copies(fn: FunctionNode, name: str) -> set[str]:
    """The parameter and the locals that hold its rows: `results = df.copy()`, `data =
    results[mask]`, `df = df.dropna()` (a DataFrame is copied and filtered before it is read)."""
    index = mentions(fn)
    names = {name}

    def copied(value: ast.expr) -> bool:
        if isinstance(value, ast.IfExp):  # `df.copy() if copy else df`
            return copied(value.body) or copied(value.orelse)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            # `results[sex_mask].copy()`, `df.dropna().reset_index()`
            return value.func.attr in FRAME_COPIES and copied(value.func.value)
        if isinstance(value, ast.Subscript) and not (
            isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str)
        ):
            return is_name(value.value, names)  # the rows a mask keeps, not one column
        return is_name(value, names)

    for _ in range(3):  # chains of copies, in any order of the source
        # A copy's assignment mentions what it copies.
        names |= {target for target, value in local_copies(index.around(names)) if copied(value)}
    return names


def local_copies(nodes: list[ast.AST]) -> list[tuple[str, ast.expr]]:
    """The local names assigned among `nodes`, each with what it is given (`df = df[...]`
    gives `df`: the rows of the table)."""
    found: list[tuple[str, ast.expr]] = []
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                value = node.value.value if isinstance(node.value, ast.Subscript) else node.value
                found.append((target.id, value))
    return found


def frame_columns(fn: FunctionNode, name: str, facts: ModuleFacts) -> list[str]:
    """The columns a function reads from a DataFrame or its copies: `df["AGEP"]`, `df.AGEP`,
    `df.loc[mask, "SERIALNO"]`, `df[["SEX", "PINCP"]]`, and those it requires of it
    (`required = ["age", "sex"]; if not set(required).issubset(df.columns): raise`)."""
    names = frame_copies(fn, name)
    columns = [
        f for copy in sorted(names) for f in record_accesses(fn, copy, facts) if f not in FRAME_API
    ]
    for node in ast.walk(fn):
        if not isinstance(node, ast.Subscript):
            continue
        owner = node.value
        if isinstance(owner, ast.Attribute) and owner.attr == "loc" and is_name(owner.value, names):
            picked = node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) else None
        elif is_name(owner, names) and isinstance(node.slice, ast.List):
            picked = node.slice
        elif isinstance(owner, ast.Subscript) and is_name(owner.value, names):
            picked = node.slice  # df[df["AGEP"] >= 65]["SERIALNO"]: a column of the rows kept
        else:
            continue
        for elt in picked.elts if isinstance(picked, ast.List) else [picked]:
            if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                columns.append(elt.value)
    columns += required_columns(fn, names, facts)
    for row in row_names(fn, names):  # `for _, row in df.iterrows(): row.get("ethnicity")`
        columns += [f for f in record_accesses(fn, row, facts) if f not in FRAME_API]
    return list(dict.fromkeys(columns))


def row_names(fn: FunctionNode, names: set[str]) -> list[str]:
    """The loop names that take the rows of the table: `for _, row in df.iterrows()`,
    `for row in df.itertuples()`."""
    found = []
    for node in ast.walk(fn):
        if not (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Attribute)
            and node.iter.func.attr in ("iterrows", "itertuples")
            and is_name(node.iter.func.value, names)
        ):
            continue
        target = node.target
        if node.iter.func.attr == "iterrows" and isinstance(target, ast.Tuple):
            target = target.elts[-1]
        if isinstance(target, ast.Name):
            found.append(target.id)
    return found


def required_columns(fn: FunctionNode, names: set[str], facts: ModuleFacts) -> list[str]:
    """Column names of a list checked against the frame's columns: `set(required).issubset(
    df.columns)`, `[c for c in REQUIRED if c not in df.columns]`."""
    local: dict[str, Any] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name):
                local[node.targets[0].id] = facts.const(node.value)
    found: list[str] = []
    for node in ast.walk(fn):
        if not isinstance(node, (ast.Call, ast.Compare, ast.ListComp, ast.SetComp)):
            continue
        if not any(
            isinstance(part, ast.Attribute)
            and part.attr == "columns"
            and is_name(part.value, names)
            for part in ast.walk(node)
        ):
            continue
        for part in ast.walk(node):
            value = local.get(part.id, MISSING) if isinstance(part, ast.Name) else MISSING
            if value is MISSING and isinstance(part, ast.Name):
                value = facts.const(part)
            if isinstance(part, (ast.List, ast.Tuple, ast.Set)):
                value = facts.const(part)
            if isinstance(value, (list, tuple, set, frozenset)):
                found += [c for c in value if isinstance(c, str)]
    return found


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
    key = ("required attributes", id(fn), name, depth)
    if key in facts.memo:
        found: set[str] = facts.memo[key]
        return found
    local: dict[str, Any] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name):
                local[node.targets[0].id] = facts.const(node.value, local)
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            local[node.target.id] = facts.const(node.iter, local)

    def named(arg: ast.expr) -> list[str]:
        value = facts.const(arg, local) if not isinstance(arg, ast.Name) else local.get(arg.id)
        items = value if isinstance(value, (list, tuple)) else [value]
        return [item for item in items if isinstance(item, str) and item.isidentifier()]

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
            needed.update(named(node.args[1]))
        elif isinstance(node, ast.Call) and depth:
            called = called_function(node, facts.functions)
            if called is None or called[0] is fn:
                continue
            for param, arg in call_bindings(called[0], node, called[1]):
                if isinstance(arg, ast.Name) and arg.id == name:
                    needed |= required_attributes(called[0], param, facts, depth - 1)
    facts.memo[key] = needed
    return needed


# `age_col`, `sex_column`, `col_sex`, `eGFR_col_name`: a parameter that names a column.
COLUMN_NAME = re.compile(
    r"^(?:(?P<stem>[A-Za-z]\w*?)_col(?:umn)?(?:_?name)?|col(?:umn)?_(?P<after>[A-Za-z]\w*))$"
)


def column_parameters(
    fn: FunctionNode, frame: str, defaults: dict[str, Any]
) -> dict[str, str]:
    """Parameters of `fn` that name a column of its table `frame`, with the column each names:
    used as the table's key (`df[sex_col]`, `df.loc[rows, sex_col]`) or named so beside it
    (`add_risk(df, age_col=None, sex_col=None)`, handing both to a helper). The column is the
    parameter's default when that is text, else its name's stem (`sex_col`: "sex")."""
    names = frame_copies(fn, frame)
    keyed: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and (
            is_name(node.value, names)
            or (isinstance(node.value, ast.Attribute) and is_name(node.value.value, names))
        ):
            key = node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) else node.slice
            if isinstance(key, ast.Name):
                keyed.add(key.id)
    found: dict[str, str] = {}
    for arg in all_args(fn):
        if arg.arg == frame:
            continue
        match = COLUMN_NAME.match(arg.arg)
        default = defaults.get(arg.arg, MISSING)
        if match is None and arg.arg not in keyed:
            continue
        if isinstance(default, str) and default:
            found[arg.arg] = default
        elif match is not None:
            found[arg.arg] = match.group("stem") or match.group("after")
    return found
