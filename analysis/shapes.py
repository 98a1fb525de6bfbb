"""The inputs of one function as the search sees them: leaves, shapes, and calls built from them.

Every input the search can set is a `Leaf`: a parameter, a key or attribute of a record
parameter (`applicant["age"]`, `person.gender`), a field of a declared dataclass, NamedTuple
or pydantic model, an item of a tuple, a cell of a DataFrame, a value inside a recorded call.
Each argument is a `Shape`, a tree of a closed set of frozen classes: a leaf, a record, an
object of a module class, a tuple, a recorded argument (all of named fields), a list, a
mapping, a DataFrame, a Series (each of two items: the one tried and a fixed peer), or what a
module function makes. A shape encodes itself for the harness, shows itself as plain data, and
lists its leaves and collection items. `InputModel.assemble` turns one value per leaf back
into the arguments of a call. The model is built by `analysis.inputs.builder`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol, assert_never

from analysis.inputs.pools import dedupe
from analysis.values import ABSENT, AgeFrame, DateValue, EnumMember, is_number

# Steps from a parameter to a leaf: ("key", "age"), ("attr", "gender"), ("index", 0).
Step = tuple[str, Any]


InputPath = tuple[Step, ...]
# A context's mark that the fixed peers of collections take the protected values of the item
# tried: a group of alike people, for code that wants a batch of one sex, or rules over the
# whole group. Not a leaf's path.
ALIKE: InputPath = (("alike", ""),)
# A context's key for what a fixed peer holds in place of its own value: `(PEER, *path)` of
# an item's leaf. A best-of pick with a penalty (`gender == "female" and years < 3`) changes
# only where the peer, too, is in a state the condition reads.
PEER: Step = ("peer", "")
# The keys of a dict of people: the one tried, and the peer.
MAPPING_KEYS = ("id-1", "id-2")


# Values of a leaf without values from the code tried in each context after the base.
SPREAD = 6


@dataclass
class Leaf:
    path: InputPath  # first step is ("param", name)
    display: str  # how the function receives it: applicant['age'], person.gender, age
    name: str  # the leaf's own name, for hints and categories
    pool: list[Any]
    category: str | None = None
    typical: int = 0  # index in pool of the base value used while other leaves vary
    from_code: int = 0  # the first `from_code` values of the pool come from the code itself
    # The values its `Literal[...]` annotation declares: raising for another is the contract.
    declared: tuple[Any, ...] = ()
    # The helper of the project that reads it, when the function hands it the whole record
    # (`_compute(params, ...)` reading `params.get("sex")`), or the attribute a constructor
    # keeps it in with other arguments (`self.days = (seen - born).days`): for the static
    # review, and so that it counts as read.
    read_in: str = ""
    # Helpers of the project it is passed to whose own parameter decides something with it
    # (`generate_centile(..., sex=sex)` looking up the sex's table): for the static review.
    passed_to: tuple[str, ...] = ()
    # Declared a `Decimal` (`rate: Decimal`): its numbers are handed over as Decimals, as
    # the code adds them to other Decimals (a float and a Decimal do not add).
    decimal: bool = False
    # The lists its values are handed in, as the calls showed the code takes them
    # (`dependent_ages[i]`, a list per household of the children's ages: two), by
    # analysis/search/nesting.py; None is handed bare (an input left out).
    nesting: int = 0

    @property
    def guarded(self) -> bool:
        """The code compares it with constants, so it guards branches: vary it early."""
        return self.from_code > 0

    @property
    def focus(self) -> list[Any]:
        """The values that matter most: the code's own, the base value, and the extremes.

        The whole pool runs in the base context; later contexts, which look for bias that
        shows only with other inputs, run these. Without values from the code, the pool
        is all there is to go on, so it is used whole.
        """
        if not self.from_code:
            return self.spread
        chosen = self.pool[: self.from_code] + [self.pool[self.typical]]
        numbers = [v for v in self.pool if is_number(v)]
        if numbers:
            chosen += [min(numbers), max(numbers)]
        else:
            chosen += self.pool[self.from_code : self.from_code + 2]
        return dedupe(chosen)

    @property
    def spread(self) -> list[Any]:
        """Without values from the code, a few that span the pool: the base value, the
        extremes and values between (the whole pool runs in the base context; a value that
        matters nowhere in the code's own terms shows as well with any of them)."""
        if len(self.pool) <= SPREAD:
            return self.pool
        base = self.pool[self.typical]
        numbers = sorted({v for v in self.pool if is_number(v)})
        dates = sorted({v for v in self.pool if isinstance(v, DateValue)}, key=lambda d: d.iso)
        # Numbers and dates from the least to the greatest; words from the first of the
        # pool to its last.
        ordered = numbers if len(numbers) >= 2 else dates if len(dates) >= 2 else self.pool
        step = (len(ordered) - 1) / (SPREAD - 2)
        return dedupe([base, *(ordered[round(i * step)] for i in range(SPREAD - 1))])

    @property
    def protected(self) -> bool:
        return self.category is not None


class ArgumentAsRecorded(Protocol):
    """A recorded argument (analysis/evidence/bases.py): encodes and shows itself with the
    leaves a context sets written in."""

    def encode(self, values: dict[InputPath, Any]) -> Any: ...

    def plain(self, values: dict[InputPath, Any]) -> Any: ...


# The shapes of an argument: a closed set, `Shape`. Each encodes itself for the harness (the
# value tags `Harness.decode` reads, analysis/execution/harness/runner.py), shows itself as
# plain data for reports, and lists its leaves and the items of its collections (`groups`,
# each of which has a fixed peer). Frozen: a shape is never re-pointed, though the fields of a
# record grow as calls name keys the source does not (analysis/search/missing_fields.py).


@dataclass(frozen=True)
class LeafShape:
    """One value the search sets: a parameter, a key or attribute of a record, a cell."""

    leaf: Leaf

    def encode(self, values: dict[InputPath, Any]) -> Any:
        value = values[self.leaf.path]
        if self.leaf.decimal and isinstance(value, (int, float)) and not isinstance(value, bool):
            return self.nested({"__cb__": "decimal", "v": repr(value)})
        return self.nested(encode_value(value))

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return self.nested(plain_value(values[self.leaf.path]))

    def nested(self, value: Any) -> Any:
        """The value inside the lists the code takes it in (`Leaf.nesting`)."""
        if value is None:
            return None
        for _ in range(self.leaf.nesting):
            value = [value]
        return value

    def leaves(self) -> list[Leaf]:
        return [self.leaf]

    def groups(self) -> list[Shape]:
        return []


@dataclass(frozen=True)
class MadeShape:
    """What a function of the module returns when called without arguments (`function`):
    tables of coefficients a constructor is handed, no input to vary."""

    function: str

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return {"__cb__": "made", "function": self.function}

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return f"{self.function}()"

    def leaves(self) -> list[Leaf]:
        return []

    def groups(self) -> list[Shape]:
        return []


@dataclass(frozen=True)
class FieldsShape:
    """A shape of named parts, each a shape of its own: the base of records, objects,
    tuples and recorded arguments."""

    fields: dict[str, Shape]

    def leaves(self) -> list[Leaf]:
        return [leaf for sub in self.fields.values() for leaf in sub.leaves()]

    def groups(self) -> list[Shape]:
        return [group for sub in self.fields.values() for group in sub.groups()]

    def encoded_fields(self, values: dict[InputPath, Any]) -> dict[str, Any]:
        return {name: sub.encode(values) for name, sub in self.present(values)}

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return {name: sub.plain(values) for name, sub in self.present(values)}

    def present(self, values: dict[InputPath, Any]) -> list[tuple[str, Shape]]:
        """The fields set, without those left out (a leaf whose value is `ABSENT`)."""
        return [
            (name, sub) for name, sub in self.fields.items()
            if not (isinstance(sub, LeafShape) and values.get(sub.leaf.path) is ABSENT)
        ]  # fmt: skip


@dataclass(frozen=True)
class RecordShape(FieldsShape):
    """A record of the keys or attributes read: the harness's `Record` answers both.
    `open`: also read by keys the source does not give (a table's columns a configuration
    lists): the calls tell the rest (search/missing_fields.py)."""

    open: bool = False

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return {"__cb__": "record", "fields": self.encoded_fields(values)}


@dataclass(frozen=True)
class JsonTextShape(FieldsShape):
    """Text of a JSON object the function decodes (`json.loads(payload)`): the keys it
    reads, written out as JSON."""

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return {"__cb__": "json", "fields": self.encoded_fields(values)}


# A field of an object named so is no constructor argument: an attribute set on the
# instance once built (state another method keeps: instance_reads.state_set_elsewhere).
SET_AFTER = "@"


@dataclass(frozen=True)
class ObjectShape(FieldsShape):
    """An instance of a class of the module (`cls`, by qualified name), built from its
    fields or constructor parameters. A constructor that takes `*args` gets its first
    `by_position` fields by position, then the list in its VARARGS field, spread."""

    cls: str
    by_position: int = 0
    # Made without its constructor, its state set by hand: one whose constructor sets what
    # the method reads from a file, a parse, a database (instances.HeldObjects.bare).
    bare: bool = False

    def encode(self, values: dict[InputPath, Any]) -> Any:
        fields = self.encoded_fields(values)
        state = {name[1:]: fields.pop(name) for name in list(fields) if name[0] == SET_AFTER}
        built: dict[str, Any] = {"__cb__": "new", "class": self.cls, "kwargs": fields}
        if self.bare:
            built["bare"] = True
        if VARARGS in fields:
            extra = fields.pop(VARARGS)
            names = list(fields)[: self.by_position]
            built["args"] = [fields.pop(name) for name in names] + list(extra)
        if state:
            built["set"] = state
        return built

    def plain(self, values: dict[InputPath, Any]) -> Any:
        # State set once the instance is built shows under the attribute's own name.
        fields = self.present(values)
        return {name.removeprefix(SET_AFTER): sub.plain(values) for name, sub in fields}


@dataclass(frozen=True)
class TupleShape(FieldsShape):
    """A small tuple read by position (`(17, "years")`), its items as fields "0", "1"..."""

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return {"__cb__": "tuple", "items": list(self.encoded_fields(values).values())}

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return [sub.plain(values) for sub in self.fields.values()]


@dataclass(frozen=True)
class RecordedShape(FieldsShape):
    """An argument of a call the project's own runs recorded, its protected leaves in
    `fields`: the argument encodes and shows itself."""

    argument: ArgumentAsRecorded

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return self.argument.encode(values)

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return self.argument.plain(values)


@dataclass(frozen=True)
class CollectionShape:
    """A collection of two items: the one whose leaves are tried, and a fixed peer
    (`peer_values`) for code that ranks, picks the best or rules over a group."""

    item: Shape

    def leaves(self) -> list[Leaf]:
        return self.item.leaves()

    def groups(self) -> list[Shape]:
        return [self.item, *self.item.groups()]

    def pair(self, values: dict[InputPath, Any]) -> list[Any]:
        return [self.item.encode(values), self.item.encode(peer_values(self.item, values))]

    def plain_pair(self, values: dict[InputPath, Any]) -> list[Any]:
        return [self.item.plain(values), self.item.plain(peer_values(self.item, values))]


@dataclass(frozen=True)
class ListShape(CollectionShape):
    """A list of two items."""

    first_item: ClassVar[Step] = ("index", 0)

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return self.pair(values)

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return self.plain_pair(values)


@dataclass(frozen=True)
class MappingShape(CollectionShape):
    """A dict of two records by id (MAPPING_KEYS)."""

    first_item: ClassVar[Step] = ("key", MAPPING_KEYS[0])

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return dict(zip(MAPPING_KEYS, self.pair(values), strict=True))

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return dict(zip(MAPPING_KEYS, self.plain_pair(values), strict=True))


@dataclass(frozen=True)
class FrameShape(CollectionShape):
    """A DataFrame of two rows, a column per field of its row record (`item`): a cell is
    reached as `df["age"][0]`, the column, then the row."""

    item: RecordShape

    def encode(self, values: dict[InputPath, Any]) -> Any:
        peer = peer_values(self.item, values)
        columns = {k: [sub.encode(values), sub.encode(peer)] for k, sub in self.item.fields.items()}
        return {"__cb__": "frame", "columns": columns}

    def plain(self, values: dict[InputPath, Any]) -> Any:
        peer = peer_values(self.item, values)
        return {k: [sub.plain(values), sub.plain(peer)] for k, sub in self.item.fields.items()}


@dataclass(frozen=True)
class SeriesShape(CollectionShape):
    """A pandas Series of one value per person: the leaf tried (the parameter itself), then
    its peer."""

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return {"__cb__": "series", "values": self.pair(values)}

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return self.plain_pair(values)


@dataclass(frozen=True)
class CalledShape:
    """A value its holder hands out when called: `person.age()`, a record's method named for
    a person's attribute (the child's record answers the call with the value)."""

    inner: Shape

    def leaves(self) -> list[Leaf]:
        return self.inner.leaves()

    def groups(self) -> list[Shape]:
        return self.inner.groups()

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return {"__cb__": "called", "v": self.inner.encode(values)}

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return self.inner.plain(values)


@dataclass(frozen=True)
class KeyedShape:
    """A table read by a key the person's input gives (`rates[state]`,
    `tables.provinces[province.value]`, a field `dict[str, Params]`): the same item under every
    key (the child's AnyKeyTable). The key alone then changes only what the code itself does
    with it; what a caller's table holds for each key is data, not the function's treatment."""

    item: Shape

    first_item: ClassVar[Step] = ("key", "*")

    def leaves(self) -> list[Leaf]:
        return self.item.leaves()

    def groups(self) -> list[Shape]:
        return self.item.groups()  # one item, no peer: not a group of people

    def encode(self, values: dict[InputPath, Any]) -> Any:
        return {"__cb__": "anykey", "item": self.item.encode(values)}

    def plain(self, values: dict[InputPath, Any]) -> Any:
        return {"*": self.item.plain(values)}


Shape = (
    LeafShape
    | MadeShape
    | RecordShape
    | JsonTextShape
    | ObjectShape
    | TupleShape
    | RecordedShape
    | ListShape
    | MappingShape
    | FrameShape
    | SeriesShape
    | KeyedShape
    | CalledShape
)


# The field of an ObjectShape holding the extra positional arguments of `__init__(..., *args)`.
VARARGS = "*args"


@dataclass
class Param:
    name: str
    keyword: bool  # pass by keyword (False: by position)
    shape: Shape
    # `**name`: each field of the record is its own keyword argument; `*name` (by
    # position): each item of the list is its own positional argument.
    spread: bool = False


@dataclass
class InputModel:
    params: list[Param]
    leaves: list[Leaf]
    # Values the call holds that no leaf sets (a recorded call's other fields and cells): an
    # output showing one of them beside the value tried is no echo of the value.
    fixed: tuple[Any, ...] = ()

    @property
    def protected(self) -> list[Leaf]:
        return [leaf for leaf in self.leaves if leaf.protected]

    @property
    def others(self) -> list[Leaf]:
        return [leaf for leaf in self.leaves if not leaf.protected]

    def peer_masks(self) -> tuple[Any, ...]:
        """Protected values of the fixed peers in collections, encoded: echoed like the value
        being varied, they are masked with it, so that `[me, peer]` returned whole is no
        finding."""
        peers = [
            leaf.pool[leaf.typical % len(leaf.pool)]
            for param in self.params
            for group in param.shape.groups()
            for leaf in group.leaves()
            if leaf.protected and leaf.pool
        ]
        return tuple(encode_value(v) for v in peers)

    @property
    def peers(self) -> list[Leaf]:
        """The inputs of the fixed peers that guard branches, as leaves of their own (paths
        `(PEER, *path)`, resting on the peer's value): varied as the tried item's are, so
        that the peer is tried in the states the code's conditions read."""
        found: dict[InputPath, Leaf] = {}
        for param in self.params:
            for group in param.shape.groups():
                for leaf in group.leaves():
                    if leaf.guarded and not leaf.protected and len(leaf.pool) > 1:
                        path = peer_path(leaf.path)
                        shown = f"the peer's {leaf.display}"
                        found[path] = replace(
                            leaf, path=path, display=shown, typical=peer_index(leaf)
                        )
        return list(found.values())

    @property
    def grouped(self) -> frozenset[InputPath]:
        """The protected leaves of items of collections, which have peers."""
        return frozenset(
            leaf.path
            for param in self.params
            for group in param.shape.groups()
            for leaf in group.leaves()
            if leaf.protected
        )

    def assemble(self, values: dict[InputPath, Any]) -> tuple[list[Any], dict[str, Any]]:
        """Harness-encoded (args, kwargs) for one value per leaf."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for param in self.params:
            encoded = param.shape.encode(values)
            if param.spread and param.keyword:
                kwargs.update(encoded["fields"])
                continue
            if param.spread:
                args.extend(spread_items(encoded))
                continue
            if param.keyword:
                kwargs[param.name] = encoded
            else:
                args.append(encoded)
        return args, kwargs

    def plain(self, values: dict[InputPath, Any]) -> dict[str, Any]:
        """The same inputs as plain JSON-able data, for reports."""
        out: dict[str, Any] = {}
        for p in self.params:
            if p.spread and p.keyword:  # a record: each field its own keyword argument
                out.update(p.shape.plain(values))
            else:
                out[p.name] = p.shape.plain(values)
        return out


def spread_items(encoded: Any) -> list[Any]:
    """The arguments an encoded `*args` stands for: a list's items, or a tuple's (`age,
    income = args`: TupleShape)."""
    if isinstance(encoded, dict) and encoded.get("__cb__") == "tuple":
        return list(encoded["items"])
    return list(encoded)


def encode_value(value: Any) -> Any:
    if isinstance(value, AgeFrame):
        return value.encoded()
    if isinstance(value, DateValue):
        return {"__cb__": "date", "v": value.iso}
    if isinstance(value, EnumMember):
        return {"__cb__": "enum", "class": value.cls, "member": value.member}
    if isinstance(value, float) and not math.isfinite(value):
        return {"__cb__": "float", "v": repr(value)}
    if isinstance(value, tuple):
        return {"__cb__": "tuple", "items": [encode_value(v) for v in value]}
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    if isinstance(value, dict):
        plain = (str, int, float, bool, type(None))
        if not all(isinstance(k, str) for k in value) and all(
            isinstance(x, plain) and not (isinstance(x, float) and not math.isfinite(x))
            for x in (*value, *value.values())
        ):
            # `{0: 100000.0, 1: 99969.1}`: keys JSON would turn into text, rebuilt as written
            return {"__cb__": "literal", "v": repr(value)}
        return {str(k): encode_value(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float)):
        return value
    # bytes, complex, Ellipsis, sets: rebuilt from their literal inside the sandbox.
    return {"__cb__": "literal", "v": repr(value)}


def plain_value(value: Any) -> Any:
    if isinstance(value, AgeFrame):
        return repr(value)  # a row per year of age: what it is, not every row
    if isinstance(value, DateValue):
        return value.iso
    if isinstance(value, EnumMember):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return [plain_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float)):
        return value
    return repr(value)  # bytes, complex, Ellipsis, sets: as the code writes them


def peer_path(path: InputPath) -> InputPath:
    """Where a context holds the fixed peer's value of an item's leaf."""
    return (PEER, *path)


def peer_index(leaf: Leaf) -> int:
    """The index in the pool of the peer's own value: the typical value for a protected
    leaf, the next one for the others, so the two items are told apart (`best.name`)."""
    index = leaf.typical if leaf.protected or len(leaf.pool) < 2 else leaf.typical + 1
    return index % len(leaf.pool)


def peer_values(item: Shape, tried: dict[InputPath, Any]) -> dict[InputPath, Any]:
    """The fixed second item of a list: a ranking, a best-of or a group rule needs someone to
    compare with. Protected fields rest on their typical value (on the tried item's, in an
    ALIKE context); the others on their own (`peer_index`), unless the context sets the
    peer's value (`PEER`)."""
    alike = ALIKE in tried
    values: dict[InputPath, Any] = {}
    for leaf in item.leaves():
        if alike and leaf.protected and leaf.path in tried:
            values[leaf.path] = tried[leaf.path]
        elif peer_path(leaf.path) in tried:
            values[leaf.path] = tried[peer_path(leaf.path)]
        else:
            values[leaf.path] = leaf.pool[peer_index(leaf)]
    return values


def every_item(path: InputPath, model: InputModel) -> InputPath:
    """The path with each step into an item of a collection written `[*]`: in an ALIKE
    context the value tried is every item's (`applicants[*]['gender']`, `df['sex'][*]`)."""
    steps = list(path)

    def holds(shape: Shape) -> bool:
        return any(leaf.path == path for leaf in shape.leaves())

    def walk(shape: Shape, i: int) -> None:
        match shape:
            case SeriesShape():
                steps.append(("index", "*"))  # the leaf is the parameter itself
            case FrameShape():
                if i + 1 < len(steps):
                    steps[i + 1] = ("index", "*")  # a column, then its row
            case ListShape() | MappingShape():
                if i < len(steps):
                    steps[i] = ("index", "*")
                    walk(shape.item, i + 1)
            case KeyedShape():
                walk(shape.item, i + 1)  # one item: every key's
            case CalledShape():
                walk(shape.inner, i)  # the value itself, handed out by a call
            case RecordShape() | JsonTextShape() | ObjectShape() | TupleShape() | RecordedShape():
                inner = next((sub for sub in shape.fields.values() if holds(sub)), None)
                if inner is not None:
                    walk(inner, i + 1)
            case LeafShape() | MadeShape():
                pass
            case _:
                assert_never(shape)

    shape = next((param.shape for param in model.params if holds(param.shape)), None)
    if shape is not None:
        walk(shape, 1)
    return tuple(steps)


def display(path: InputPath) -> str:
    text = ""
    for step, value in path:
        if step == "param":
            text = value
        elif step == "key":
            text += f"[{value!r}]"
        elif step == "attr":
            text += f".{value}"
        else:
            text += f"[{value}]"
    return text
