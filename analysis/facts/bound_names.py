"""The names a function gives the values it reads of its inputs.

A value read under a key that says nothing (a survey's code `raw["RIAGENDR"]`, a column
`row["c3"]`, an attribute `rec.f2`) is named by where the code puts it: `sex =
raw["RIAGENDR"]`, `d["age"] = raw["RIDAGEYR"]`, `self.gender = rec.f2`,
`Person(age=row["c3"])`, `{"sex": raw["RIAGENDR"]}`, `quote(row["c3"])` of the module's
`def quote(age)`, `raw.rename(columns={"RIAGENDR": "sex"})`. The input's leaf there carries
that name's category (LeafMaker.category_of). Conversions in between (`int(...)`,
`.astype(int)`, `.strip()`) keep the value what it was.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from analysis.caches import Cache
from analysis.facts.components import class_named
from analysis.facts.frame_reads import renamed_columns
from analysis.facts.module import ModuleFacts
from analysis.source.functions import FunctionNode, called_function, constructor, lineage

# An input's value read by a chain of keys, attributes and positions from a parameter:
# ("raw", "RIDAGEYR"), ("self", "data", "sex"), ("row", 2).
Chain = tuple[str | int, ...]

# Calls that give the value back in another type or spelling, not another value.
CONVERTERS = frozenset(
    {"int", "float", "str", "bool", "Decimal", "to_numeric", "to_datetime", "dict", "deepcopy"}
)
CONVERTING_METHODS = frozenset(
    {
        "astype",
        "strip",
        "lower",
        "upper",
        "casefold",
        "title",
        "capitalize",
        "fillna",
        "item",
        "copy",
    }
)

BOUND_NAMES: Cache[int, dict[Chain, list[str]]] = Cache("the names a function binds reads to")
# A name a parameter is handed on as, and the helper whose parameter it is (None: a local's,
# a key's, a keyword of a call of no project function).
Handed = tuple[FunctionNode | None, str]
HANDED_NAMES: Cache[int, dict[str, list[Handed]]] = Cache("the names a function hands on")
HANDED_DEPTH = 3  # helpers a parameter is handed on to, followed, as record reads are


def bound_names(fn: FunctionNode, facts: ModuleFacts) -> dict[Chain, list[str]]:
    """By each chain the function reads of its inputs, the names it binds the value to."""
    return facts.caches.value(BOUND_NAMES, id(fn), lambda: _bound_names(fn, facts))


def _bound_names(fn: FunctionNode, facts: ModuleFacts) -> dict[Chain, list[str]]:
    found: dict[Chain, list[str]] = {}
    held = held_parts(fn)
    read = [(name, read_chain(value)) for name, value in bindings(fn, facts)]
    for name, chain in read + renamed(fn, facts):
        if chain is not None and chain[0] in held:
            chain = (*held[chain[0]], *chain[1:])
        if chain is not None and len(chain) > 1 and name not in found.get(chain, []):
            found.setdefault(chain, []).append(name)
    return found


def handed_names(fn: FunctionNode, facts: ModuleFacts) -> dict[str, list[Handed]]:
    """By each of the function's parameters, the names it hands the whole value on as:
    `age = v`, `rate(age=v)`, `{"age": v}` (of no function), a helper's parameter
    `self._age_factor(v)` of `def _age_factor(self, age)` (of that helper), and the names that
    parameter is handed on as by its own helpers, down to HANDED_DEPTH calls. `quote(self,
    value)` that only passes `value` to an age's helper takes an age."""
    return facts.caches.value(
        HANDED_NAMES, id(fn), lambda: _handed_names(fn, facts, HANDED_DEPTH, frozenset())
    )


def _handed_names(
    fn: FunctionNode, facts: ModuleFacts, depth: int, seen: frozenset[int]
) -> dict[str, list[Handed]]:
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    found: dict[str, list[Handed]] = {}

    def handed(value: ast.expr) -> str | None:
        chain = read_chain(value)
        return chain[0] if chain is not None and len(chain) == 1 and chain[0] in params else None

    def add(param: str, where: FunctionNode | None, name: str) -> None:
        if name != param and (where, name) not in found.setdefault(param, []):
            found[param].append((where, name))

    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        keywords = [(k.arg, k.value) for k in node.keywords if k.arg]
        called = called_function(node, facts.functions)
        if called is not None:
            callee: FunctionNode | None = called[0]
            arguments = [*positional(node, facts), *keywords]
        elif (made := constructed(node, facts)) is not None:
            callee, fields = made  # `Applicant(v, y)`: its constructor's, or its fields
            arguments = [*zip(fields, node.args, strict=False), *keywords]
        else:
            continue
        if callee is fn or id(callee) in seen:
            continue
        further = (
            _handed_names(callee, facts, depth - 1, seen | {id(fn)})
            if callee is not None and depth > 1 and any(handed(v) for _, v in arguments)
            else {}
        )
        for callee_param, value in arguments:
            if (param := handed(value)) is not None:
                add(param, callee, callee_param)
                for where, name in further.get(callee_param, []):
                    add(param, where, name)
    # Locals, keys and keywords of other calls; a helper's parameters (bindings yields them
    # too) are in `found` already, with their helper.
    for name, value in bindings(fn, facts):
        param = handed(value)
        if param is not None and name not in {n for _, n in found.get(param, [])}:
            add(param, None, name)
    return found


def constructed(call: ast.Call, facts: ModuleFacts) -> tuple[FunctionNode | None, list[str]] | None:
    """The constructor a call of a project class runs and the parameters its positional
    arguments bind: the nearest `__init__`'s of the class's lineage, else the fields it
    declares (a dataclass's, a NamedTuple's), its bases' first."""
    cls = class_named(call.func, facts.classes) if call.args else None
    if cls is None:
        return None
    classes = lineage(cls, facts.classes)
    for current in classes:
        if (init := constructor(current)) is not None:
            return init, [a.arg for a in [*init.args.posonlyargs, *init.args.args][1:]]
    fields = [
        stmt.target.id
        for current in reversed(classes)
        for stmt in current.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    ]
    return None, fields


def renamed(fn: FunctionNode, facts: ModuleFacts) -> list[tuple[str, Chain | None]]:
    """`raw.rename(columns={"RIDAGEYR": "age"})`: the column read as ("raw", "RIDAGEYR") is
    named "age"."""
    found: list[tuple[str, Chain | None]] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            frame = read_chain(node.func.value)
            for old, new in renamed_columns(node, facts).items():
                found.append((new, None if frame is None else (*frame, old)))
    return found


def held_parts(fn: FunctionNode) -> dict[str, Chain]:
    """Locals that hold an input or a part of it, bound once: `p = data["person"]`, `d =
    dict(raw)`, and the items of a list read in a loop, as its first (`for p in
    data["people"]`)."""
    found: dict[str, Chain] = {}
    twice: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, chain = node.targets[0], read_chain(node.value)
        elif isinstance(node, (ast.For, ast.comprehension)):
            target, chain = node.target, read_chain(node.iter)
            chain = (*chain, 0) if chain is not None else None
        else:
            continue
        if isinstance(target, ast.Name) and chain is not None:
            if target.id in found:
                twice.add(target.id)
            found[target.id] = chain
    return {name: chain for name, chain in found.items() if name not in twice}


def bindings(fn: FunctionNode, facts: ModuleFacts) -> Iterator[tuple[str, ast.expr]]:
    """Each (name, value) the function binds: assignments to a name, a constant key or an
    attribute (pairwise for tuples), keyword arguments, the positional arguments of the
    project's functions it calls and the constant keys of dicts."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from assigned(target, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            yield from assigned(node.target, node.value)
        elif isinstance(node, ast.Call):
            yield from ((kw.arg, kw.value) for kw in node.keywords if kw.arg)
            yield from positional(node, facts)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    yield key.value, value


def positional(call: ast.Call, facts: ModuleFacts) -> Iterator[tuple[str, ast.expr]]:
    """The parameters of the module's (or project's) function a call runs that its
    positional arguments bind."""
    called = called_function(call, facts.functions)
    if called is None:
        return
    callee, bound = called
    params = [*callee.args.posonlyargs, *callee.args.args][1 if bound else 0 :]
    for param, arg in zip(params, call.args, strict=False):
        if isinstance(arg, ast.Starred):
            return
        yield param.arg, arg


def assigned(target: ast.expr, value: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, ast.Attribute):
        yield target.attr, value
    elif isinstance(target, ast.Subscript):
        key = target.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            yield key.value, value
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
        if len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts, strict=True):
                yield from assigned(t, v)


def read_chain(node: ast.expr) -> Chain | None:
    """The chain of a read of a parameter (`raw["a"].b[2]`, `rec.get("a")`), through
    conversions; None for anything else."""
    node = unconverted(node)
    steps: list[str | int] = []
    while True:
        if isinstance(node, ast.Subscript):
            key = node.slice
            if not isinstance(key, ast.Constant) or not isinstance(key.value, (str, int)):
                return None
            if isinstance(key.value, bool):
                return None
            steps.append(key.value)
            node = node.value
        elif isinstance(node, ast.Attribute):
            steps.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Call) and (got := got_key(node)) is not None:
            steps.append(got)
            node = node.func.value if isinstance(node.func, ast.Attribute) else node.func
        elif isinstance(node, ast.Name):
            return (node.id, *reversed(steps))
        else:
            return None


def got_key(call: ast.Call) -> str | None:
    """The key of `record.get("key")` or `record.get("key", default)`."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "get" and call.args):
        return None
    key = call.args[0]
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def unconverted(node: ast.expr) -> ast.expr:
    """`int(x)`, `x.astype(int)`, `pd.to_numeric(x)`, `x.strip().lower()`: x."""
    return unwrapped(node, CONVERTERS, CONVERTING_METHODS)


def unwrapped(node: ast.expr, functions: frozenset[str], methods: frozenset[str]) -> ast.expr:
    """What calls of `functions` (on one argument) and of `methods` are made on."""
    while isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name in functions and len(node.args) == 1:
            node = node.args[0]
        elif isinstance(func, ast.Attribute) and func.attr in methods:
            node = func.value
        else:
            break
    return node
