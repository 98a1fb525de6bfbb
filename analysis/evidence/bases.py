"""A recorded call as the search's base: the call exactly as the project made it, and the
protected leaves inside its arguments, each with the values to try there.

The leaves are found in the descriptions by the same naming rules as everywhere
(`Policy.canonical_category` on parameter names, keys, attributes, fields, columns; a
record's `value` field carries its parent's category; weak categories only where the code
is about people, analysis/people.py). A DataFrame column gives two leaves, every row (the
peers alike: `df['sex'][*]`) and the first row alone against its peers (`df['sex'][0]`); a
list of people, its first item and every item (`people[0]['sex']`, `people[*]['sex']`).
A leaf absent from a context is left as recorded, so the base context is `{}`: the call as
it was.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias

from analysis.evidence.calls import RecordedCall, RecordedParam
from analysis.evidence.described import (
    Described,
    EnumValue,
    FrameValue,
    MappingValue,
    ObjectValue,
    Scalar,
    SequenceValue,
    SeriesValue,
    Steps,
    shown,
)
from analysis.evidence.pool import around, recorded_pool
from analysis.facts.people import only_people
from analysis.inputs.builder import VALUE_FIELDS, InputBuilder
from analysis.inputs.leaves import a_status
from analysis.inputs.pools import dedupe
from analysis.shapes import (
    SET_AFTER,
    FieldsShape,
    InputModel,
    InputPath,
    Leaf,
    LeafShape,
    ObjectShape,
    Param,
    RecordedShape,
    Shape,
    Step,
    display,
    encode_value,
)
from analysis.shapes import plain_value as plain_input
from analysis.source.functions import FunctionInfo, all_arguments
from analysis.values import MISSING, is_number
from config.policy import Policy, name_tokens

# The categories of an input's paths, as the synthesised model found them.
Known: TypeAlias = dict[InputPath, str]

MAX_LEAVES = 24  # protected leaves of one recorded call, at most
MAX_VARIED = 6  # other inputs' values of one recorded call varied around it, at most
MAX_FIXED = 2000  # unprotected values kept to tell echoes from other inputs, at most
MAX_LENT = 4  # values the project's runs passed by one parameter name, taken in at most


@dataclass(frozen=True)
class FoundLeaf:
    """A protected value inside a recorded argument."""

    steps: Steps  # from the argument to it
    name: str  # the name that carries its category: `sex` of `df['sex']`
    category: str
    recorded: Scalar | EnumValue
    peers: tuple[Any, ...] = ()  # the other rows' or items' recorded values


@dataclass
class RecordedArgument:
    """One argument of a recorded call, encoded for the harness (harness_recorded.py) with
    the leaves a context sets; shown in reports as recorded, the changed leaf written in."""

    call: str
    where: int | str
    node: Described
    steps: dict[InputPath, Steps] = field(default_factory=dict)  # by leaf path

    def encode(self, values: dict[InputPath, Any]) -> Any:
        sets = [
            [[list(step) for step in steps], encode_value(values[path])]
            for path, steps in self.steps.items()
            if path in values
        ]
        return {"__cb__": "recorded", "call": self.call, "param": self.where, "set": sets}

    def plain(self, values: dict[InputPath, Any]) -> Any:
        changes = tuple(
            (steps, plain_input(values[path]))
            for path, steps in self.steps.items()
            if path in values
        )
        return shown(self.node, changes)


def recorded_model(
    call: RecordedCall,
    info: FunctionInfo,
    builder: InputBuilder,
    policy: Policy,
    code_values: dict[str, list[Any]] | None = None,
    known: Known | None = None,
) -> InputModel:
    """The InputModel of one recorded call: every argument as recorded, its protected
    leaves settable. `code_values`: values from the code by leaf name (the synthesised
    model's), besides those the builder finds for the name; `known`: the categories the
    synthesised model found by path (`x` documented as the age: `known_categories`)."""
    params: list[Param] = []
    leaves: list[Leaf] = []
    fixed: list[Any] = []
    skip_first = "classmethod" in info.decorators and info.owner is not None
    for param in call.params:
        if skip_first and param.how == "arg" and param.where == 0:
            continue  # `cls`: the class method is bound already
        shape = recorded_shape(
            call.id, param, builder, policy, code_values or {}, leaves, fixed, known or {}
        )
        params.append(Param(param.name, param.how == "kw", shape))
    model = InputModel(params, leaves, fixed=tuple(fixed[:MAX_FIXED]))
    return only_people(model, info, policy, builder.facts)


def recorded_shape(
    call_id: str,
    param: RecordedParam,
    builder: InputBuilder,
    policy: Policy,
    code_values: dict[str, list[Any]],
    leaves: list[Leaf],
    fixed: list[Any],
    known: Known,
) -> RecordedShape:
    """One recorded argument as a parameter's shape, its protected leaves (added to
    `leaves`, up to MAX_LEAVES) settable; its other values added to `fixed`."""
    argument = RecordedArgument(call_id, param.where, param.node)
    fields: dict[str, Shape] = {}
    for found in protected_leaves(param, policy, known):
        if sum(leaf.protected for leaf in leaves) >= MAX_LEAVES:
            break
        path: InputPath = (("param", param.name), *found.steps)
        leaf = recorded_leaf(path, found, builder, policy, code_values)
        if leaf is None:
            continue
        leaves.append(leaf)
        argument.steps[path] = found.steps
        fields[leaf.display] = LeafShape(leaf)
        if not any(key == "*" for _, key in found.steps):
            # The other rows keep their recorded values: an output showing one of them
            # cannot tell it from the value tried (ages 70 and 75 in the other rows).
            fixed += list(found.peers)
    name = param.name.split("[")[0]
    category = policy.canonical_category(name) or known.get((("param", name),))
    below = {path[1:]: c for path, c in known.items() if path[0] == ("param", name)}
    for steps, word, recorded in other_settings(param.node, (), name, category, policy, below):
        if sum(not leaf.protected for leaf in leaves) >= MAX_VARIED:
            break
        path = (("param", param.name), *steps)
        leaf = setting_leaf(path, word, recorded, builder, code_values)
        leaves.append(leaf)
        argument.steps[path] = steps
        fields[leaf.display] = LeafShape(leaf)
    fixed += unprotected_values(param.node, category, policy)
    return RecordedShape(fields, argument=argument)


def other_settings(
    node: Described, steps: Steps, name: str, category: str | None, policy: Policy, known: Known
) -> Iterator[tuple[Steps, str, Scalar | EnumValue]]:
    """The numbers, flags and enum members of a recorded argument no protected name leads
    to, as such or as fields of its records and objects (not rows or items: those are
    people's alike): with their names, to vary around the call as recorded."""
    match node:
        case Scalar():
            settable = node.kind == "bool" or (
                node.kind in ("int", "float") and is_number(node.value)
            )
            if category is None and settable:
                yield steps, name, node
        case EnumValue():
            if category is None and len(node.members) > 1:
                yield steps, name, node
        case MappingValue():
            for key, item in node.items:
                if isinstance(key, str):
                    step: Step = ("key", key)
                    inner = category_under(key, category, policy) or known.get((*steps, step))
                    yield from other_settings(item, (*steps, step), key, inner, policy, known)
        case ObjectValue():
            for attr, item in node.fields:
                step = ("attr", attr)
                inner = category_under(attr, category, policy) or known.get((*steps, step))
                yield from other_settings(item, (*steps, step), attr, inner, policy, known)
        case _:
            return


def setting_leaf(
    path: InputPath,
    name: str,
    recorded: Scalar | EnumValue,
    builder: InputBuilder,
    code_values: dict[str, list[Any]],
) -> Leaf:
    """Another input's recorded value as a leaf of no category: the recorded value first,
    then the others tried around it (pool.around: for a number, the code's values for its
    name and the recorded one scaled)."""
    scratch: list[Leaf] = []
    built = builder.leaf(name, (("param", name),), scratch, [], None, MISSING)
    code = [*code_values.get(name, []), *built.leaf.pool[: built.leaf.from_code]]
    pool = around(recorded, code)
    return Leaf(path, display(path), name, pool.values, None, typical=0, from_code=pool.from_code)


def shown_values(
    calls: list[RecordedCall], kinds: tuple[str, ...] = ("str",)
) -> dict[str, list[Any]]:
    """The plain values of `kinds` the project's runs passed, by parameter name, a few each:
    texts tell a category (`zscore("M", 30, 2100)` in one test and `zscore("F", ...)` in
    another show `s` to be a sex, where the code's own `s == "M"` alone cannot); texts and
    numbers are lent to pools (`lend_values`)."""
    shown: dict[str, list[Any]] = {}
    for call in calls:
        for passed in call.params:
            node = passed.node
            if isinstance(node, Scalar) and node.kind in kinds and node.value != "":
                values = shown.setdefault(passed.name, [])
                if node.value not in values and len(values) < MAX_LENT:
                    values.append(node.value)
    return shown


def known_categories(model: InputModel) -> Known:
    """The categories of the synthesised model's protected leaves, by path: what the code
    and its docstrings tell of a name (`x`, "the age as integer number") holds for the value
    a run passed by that name as well."""
    return {leaf.path: leaf.category for leaf in model.protected if leaf.category}


def borrowed_model(
    info: FunctionInfo,
    model: InputModel,
    calls: list[RecordedCall],
    builder: InputBuilder,
    policy: Policy,
) -> tuple[InputModel, tuple[str, ...]] | None:
    """The synthesised model of a function the project's runs never called, with the values
    they passed other functions by the same parameter name taken in, or an instance of the
    class a parameter is built as, passed under any name: an object, a table or a record
    the project built (a mortality table `mt`, an instance of the same class as `self` set
    up by a fixture), where made-up ones make every call raise. A parameter with
    protected leaves of its own keeps them, but for `self` and a value that holds a person
    too (the DataFrame a demo built, where the made-up one raised); the recorded value's
    own protected leaves are settable. None when nothing can be borrowed; else the model
    and the recorded calls it takes values from."""
    owner = info.owner.name if info.owner is not None else None
    # By name, the first value passed that holds a person, else the first (a constructor's
    # `self` is recorded empty, as its call starts); and an instance by its class, whatever
    # the parameter it was passed as (`table` there, `mt: LifeTable` here).
    offered: dict[str, tuple[RecordedCall, RecordedParam]] = {}
    by_class: dict[str, tuple[RecordedCall, RecordedParam]] = {}
    for call in calls:
        for passed in call.params:
            if isinstance(passed.node, (Scalar, EnumValue)):
                continue
            constructing = call.function.qualname.endswith(".__init__") and passed.where == 0
            if isinstance(passed.node, ObjectValue) and not constructing:
                offer(by_class, passed.node.type_name, call, passed, policy)
            if passed.name == "self" and type_name(passed.node) != owner:
                continue
            offer(offered, passed.name, call, passed, policy)
    params: list[Param] = []
    leaves: list[Leaf] = []
    fixed: list[Any] = []
    used: list[str] = []
    annotations = {arg.arg: arg.annotation for arg in all_arguments(info.node)}
    known = known_categories(model)
    for param in model.params:
        own = [leaf for leaf in model.leaves if leaf.path[0] == ("param", param.name)]
        borrowed = offered.get(param.name)
        cls = class_of(param, annotations.get(param.name))
        if borrowed is None and cls is not None:
            borrowed = by_class.get(cls)
        person = borrowed is not None and bool(protected_leaves(borrowed[1], policy, known))
        if borrowed is None or (
            not person
            and (
                (param.name != "self" and any(leaf.protected for leaf in own))
                or (numeric(param) and isinstance(borrowed[1].node, SequenceValue))
            )
        ):
            shape, lent = lent_fields(param.shape, offered)
            params.append(Param(param.name, param.keyword, shape) if lent else param)
            leaves += [leaf for leaf in own if leaf.path not in lent]
            used += lent.values()
            continue
        call, recorded = borrowed
        shape = recorded_shape(call.id, recorded, builder, policy, {}, leaves, fixed, known)
        params.append(Param(param.name, param.keyword, shape))
        used.append(call.id)
    if not used:
        return None
    mixed = InputModel(params, leaves, fixed=tuple(fixed[:MAX_FIXED]))
    return only_people(mixed, info, policy, builder.facts), tuple(dict.fromkeys(used))


def lend_values(model: InputModel, calls: list[RecordedCall]) -> bool:
    """The plain values the project's runs passed other functions by a parameter's own name
    (`metric_key="rhr"` to the helper a wrapper hands it on to) put first in that
    parameter's pool, when it is of no category and the code names no value for it: a
    made-up key finds no row of the project's tables, whoever the person is. Whether any
    was lent."""
    offered = shown_values(calls, ("str", "int", "float"))
    any_lent = False
    for leaf in model.leaves:
        lent = offered.get(leaf.name)
        if lent and len(leaf.path) == 1 and not leaf.protected and not leaf.from_code:
            leaf.pool = dedupe([*lent, *leaf.pool])
            leaf.typical, leaf.from_code = 0, len(lent)
            any_lent = True
    return any_lent


def lent_fields(
    shape: Shape, offered: dict[str, tuple[RecordedCall, RecordedParam]]
) -> tuple[Shape, dict[InputPath, str]]:
    """`shape` with each field that holds no protected leaf nor a number, and that the
    project's runs passed a function as a whole object by the field's name, set to that
    object: `mt.nt` of a made-up `mt` is the mortality table a demo passed as
    `nt=` (a made-up table raises at every age, or gives every age the same rate). The
    paths of the leaves replaced, with the calls the objects come from."""
    if not isinstance(shape, FieldsShape) or isinstance(shape, RecordedShape):
        return shape, {}
    fields: dict[str, Shape] = {}
    lent: dict[InputPath, str] = {}
    for name, sub in shape.fields.items():
        found = offered.get(name.removeprefix(SET_AFTER))
        made = sub.leaves()
        if (
            found is None
            or not whole(found[1].node)
            or not made
            or any(leaf.protected for leaf in made)
            or (isinstance(sub, LeafShape) and numbers(sub.leaf.pool))
        ):
            fields[name], inner = lent_fields(sub, offered)
            lent.update(inner)
            continue
        call, recorded = found
        argument = RecordedArgument(call.id, recorded.where, recorded.node)
        fields[name] = RecordedShape({}, argument=argument)
        lent.update((leaf.path, call.id) for leaf in made)
    return (replace(shape, fields=fields) if lent else shape), lent


def whole(node: Described) -> bool:
    """Whether a recorded value is an object, a table or a collection: what a made-up value
    is least like."""
    return isinstance(node, (SequenceValue, MappingValue, ObjectValue, FrameValue, SeriesValue))


def numeric(param: Param) -> bool:
    """Whether the code takes a number there: most values the builder found for it (from
    its default, annotation, docstring and comparisons) are numbers. A list passed by the
    name elsewhere (`horizon=[2, 5]` to the batch helper) is no value for it."""
    return isinstance(param.shape, LeafShape) and numbers(param.shape.leaf.pool)


def numbers(pool: list[Any]) -> bool:
    """Whether most values of a leaf's pool are numbers."""
    count = sum(is_number(v) for v in pool)  # is_number leaves flags out
    return count > len(pool) - count


def class_of(param: Param, annotation: ast.expr | None) -> str | None:
    """The name of the class a parameter is built as, or is annotated with."""
    if isinstance(param.shape, ObjectShape):
        return param.shape.cls.rsplit(".", 1)[-1]
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.rsplit(".", 1)[-1] or None  # `"LifeTable"`, a forward one
    if isinstance(annotation, ast.Name):
        return annotation.id
    return annotation.attr if isinstance(annotation, ast.Attribute) else None


def offer(
    offered: dict[str, tuple[RecordedCall, RecordedParam]],
    key: str,
    call: RecordedCall,
    passed: RecordedParam,
    policy: Policy,
) -> None:
    """Offer `passed` under `key`: a value that holds a person before one that does not,
    then the instance most filled in (a method its constructor calls sees `self` half
    made), then the first."""
    first = offered.get(key)
    if first is None:
        offered[key] = (call, passed)
        return
    kept = (bool(protected_leaves(first[1], policy)), filled(first[1].node))
    if (bool(protected_leaves(passed, policy)), filled(passed.node)) > kept:
        offered[key] = (call, passed)


def filled(node: Described) -> int:
    """How many fields an instance holds (0 for any other value)."""
    return len(node.fields) if isinstance(node, ObjectValue) else 0


def type_name(node: Described) -> str | None:
    return getattr(node, "type_name", None)


def recorded_leaf(
    path: InputPath,
    found: FoundLeaf,
    builder: InputBuilder,
    policy: Policy,
    code_values: dict[str, list[Any]],
) -> Leaf | None:
    scratch: list[Leaf] = []
    built = builder.leaf(found.name, (("param", found.name),), scratch, [], None, MISSING)
    code = [*code_values.get(found.name, []), *built.leaf.pool[: built.leaf.from_code]]
    pool = recorded_pool(found.recorded, code, list(found.peers), policy.protected[found.category])
    if len(pool.values) < 2:
        return None
    return Leaf(
        path,
        display(path),
        found.name,
        pool.values,
        found.category,
        typical=0,
        from_code=pool.from_code,
        declared=pool.declared,
    )


def holds_person(call: RecordedCall, policy: Policy) -> bool:
    """Whether a protected value sits anywhere in the call's arguments, by its names."""
    return any(protected_leaves(param, policy) for param in call.params)


def protected_leaves(
    param: RecordedParam, policy: Policy, known: Known | None = None
) -> list[FoundLeaf]:
    """The protected values inside one recorded argument, by the names that lead to them,
    or by the paths the synthesised model knows as protected (`known`)."""
    name = param.name.split("[")[0]  # a `*args` item is named for its parameter
    top: Step = ("param", name)
    below = {path[1:]: c for path, c in (known or {}).items() if path[0] == top}
    category = policy.canonical_category(name) or below.get(())
    return list(walk(param.node, (), name, category, policy, below))


def category_under(word: str, category: str | None, policy: Policy) -> str | None:
    """What a key, field or column named `word` carries inside a value carrying `category`."""
    found = policy.canonical_category(word)
    if found is None and word.casefold() in VALUE_FIELDS:
        return category  # `patient["age"]["value"]`: the value of an age
    return found


def walk(
    node: Described,
    steps: Steps,
    name: str,
    category: str | None,
    policy: Policy,
    known: Known,
) -> Iterator[FoundLeaf]:
    """`category`: what the name leading here carries (None: nothing protected); `known`:
    the categories of paths below the argument, as the synthesised model found them."""

    def named(word: str, step: Step) -> str | None:
        return category_under(word, category, policy) or known.get((*steps, step))

    match node:
        case Scalar() | EnumValue():
            category = category or told_by_value(node, name, policy)
            if category == "region" and isinstance(node, Scalar) and isinstance(node.value, str):
                if a_status(name, [node.value], policy):
                    return  # `state='drawn'`: a competition's status, no US state
            if category is not None and not (isinstance(node, Scalar) and node.kind == "none"):
                yield FoundLeaf(steps, name, category, node)
        case MappingValue():
            for key, item in node.items:
                if isinstance(key, str):
                    step = ("key", key)
                    yield from walk(item, (*steps, step), key, named(key, step), policy, known)
        case ObjectValue():
            for attr, item in node.fields:
                step = ("attr", attr)
                yield from walk(item, (*steps, step), attr, named(attr, step), policy, known)
        case SequenceValue():
            yield from items_of(node, steps, name, category, policy, known)
        case FrameValue():
            for column, values in node.columns:
                step = ("key", column)
                found = named(column, step) or told_by_values(values.values, column, policy)
                yield from rows_of(values.values, node.rows, (*steps, step), column, found)
        case SeriesValue():
            label = node.name or name
            found = policy.canonical_category(label) if node.name else category
            yield from rows_of(node.column.values, node.length, steps, label, found)
        case _:
            return


# Fields whose text is a person's name or free words: "Christian" there is a first name.
TEXT_FIELDS = frozenset(
    {"name", "names", "title", "label", "text", "description", "message", "comment", "note",
     "notes", "first", "last", "surname", "username", "email", "address", "street", "city",
     "id", "slug", "query", "prompt", "content", "body", "subject", "summary"}
)  # fmt: skip


def told_by_value(node: Described, name: str, policy: Policy) -> str | None:
    """The category a recorded text is a value of by itself, where no name says it
    (`{"g": "female"}`, `holder.grp == "Hispanic"`: Policy.category_told_by_value), unless
    its field is a name or free text."""
    if not (isinstance(node, Scalar) and isinstance(node.value, str)) or text_field(name):
        return None
    return policy.category_told_by_value(node.value)


def text_field(name: str) -> bool:
    return bool(set(name_tokens(name)) & TEXT_FIELDS)


def told_by_values(values: tuple[Described, ...], name: str, policy: Policy) -> str | None:
    """A column's category by its texts: more than half its distinct ones values of one."""
    texts = {v.value for v in values if isinstance(v, Scalar) and isinstance(v.value, str)}
    if text_field(name):
        return None
    told = [policy.category_told_by_value(text) for text in texts]
    categories = {c for c in told if c is not None}
    if len(categories) != 1 or 2 * sum(c is not None for c in told) <= len(texts):
        return None
    return categories.pop()


def items_of(
    node: SequenceValue,
    steps: Steps,
    name: str,
    category: str | None,
    policy: Policy,
    known: Known,
) -> Iterator[FoundLeaf]:
    """The leaves of a list's first item, and each as every item's (the peers alike)."""
    if not node.items:
        return
    if axis([item.value for item in node.items if isinstance(item, Scalar)], node.length):
        return
    first = list(walk(node.items[0], (*steps, ("index", 0)), name, category, policy, known))
    yield from first
    if node.length < 2:
        return
    for leaf in first:
        rest = leaf.steps[len(steps) + 1 :]
        peers = tuple(v for item in node.items[1:] for v in scalar_at(item, rest))
        every: Steps = (*steps, ("index", "*"), *rest)
        yield FoundLeaf(every, leaf.name, leaf.category, leaf.recorded, peers)


def rows_of(
    values: tuple[Described, ...], rows: int, steps: Steps, name: str, category: str | None
) -> Iterator[FoundLeaf]:
    """A column's leaves: its first row alone, and every row (the peers alike)."""
    first = values[0] if values else None
    if category is None or not isinstance(first, Scalar) or rows == 0:
        return
    peers = tuple(v.value for v in values[1:] if isinstance(v, Scalar))
    if axis([first.value, *peers], rows):
        return
    yield FoundLeaf((*steps, ("rows", 0)), name, category, first, peers)
    if rows >= 2:
        yield FoundLeaf((*steps, ("rows", "*")), name, category, first, peers)


# A column or list of this many values at least, its first ones evenly spaced upwards, is
# the axis of a table (a mortality table's ages 0, 1, 2, ...; growth references by month):
# a row of it is no person, and setting it changes which row is which, not who is treated how.
AXIS_LENGTH = 10
AXIS_SEEN = 5


def axis(values: list[Any], length: int) -> bool:
    """Whether `values` (the first recorded of `length`) step evenly upwards."""
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if length < AXIS_LENGTH or len(numbers) < AXIS_SEEN or len(numbers) != len(values):
        return False
    steps = {b - a for a, b in zip(numbers, numbers[1:], strict=False)}
    return len(steps) == 1 and steps.pop() > 0


def scalar_at(node: Described, steps: Steps) -> list[Any]:
    """The recorded value at `steps` inside `node`, when it is a scalar there."""
    for kind, key in steps:
        if isinstance(node, MappingValue) and kind == "key":
            node = next((v for k, v in node.items if k == key), None)  # type: ignore[assignment]
        elif isinstance(node, ObjectValue) and kind == "attr":
            node = next((v for k, v in node.fields if k == key), None)  # type: ignore[assignment]
        else:
            return []
        if node is None:
            return []
    return [node.value] if isinstance(node, Scalar) else []


def unprotected_values(node: Described, category: str | None, policy: Policy) -> Iterator[Any]:
    """The recorded scalars no protected name leads to (an income, a date, another column's
    cells): an output may show one of them beside the value tried, and not as its echo."""
    match node:
        case Scalar():
            if category is None and node.kind not in ("none", "bool"):
                if told_by_value(node, "", policy) is None:
                    yield node.value
        case MappingValue():
            for key, item in node.items:
                inner = category_under(key, category, policy) if isinstance(key, str) else category
                yield from unprotected_values(item, inner, policy)
        case ObjectValue():
            for attr, item in node.fields:
                yield from unprotected_values(item, category_under(attr, category, policy), policy)
        case SequenceValue():
            for item in node.items:
                yield from unprotected_values(item, category, policy)
        case FrameValue():
            for column, values in node.columns:
                inner = category_under(column, None, policy)
                for value in values.values:
                    yield from unprotected_values(value, inner, policy)
        case SeriesValue():
            inner = policy.canonical_category(node.name) if node.name else category
            for value in node.column.values:
                yield from unprotected_values(value, inner, policy)
        case _:
            return
