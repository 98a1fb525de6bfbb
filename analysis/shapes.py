"""The inputs of one function as the search sees them: leaves, shapes, and calls built from them.

Every input the search can set is a `Leaf`: a parameter, a key or attribute of a record
parameter (`applicant["age"]`, `person.gender`), or a field of a declared dataclass,
NamedTuple or pydantic model. `InputModel.assemble` turns one value per leaf back into the
arguments of a call, encoded for the harness. The model is built by `analysis.inputs.builder`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from analysis.inputs.pools import dedupe
from analysis.values import DateValue, EnumMember, is_number

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
    # (`_compute(params, ...)` reading `params.get("sex")`): for the static review.
    read_in: str = ""
    # Helpers of the project it is passed to whose own parameter decides something with it
    # (`generate_centile(..., sex=sex)` looking up the sex's table): for the static review.
    passed_to: tuple[str, ...] = ()

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


class CustomShape(Protocol):
    """A shape that encodes and shows itself: a recorded argument (analysis/evidence/)."""

    def encode(self, values: dict[InputPath, Any]) -> Any: ...

    def plain(self, values: dict[InputPath, Any]) -> Any: ...


@dataclass
class Node:
    """The shape of one argument: a leaf, a record, an instance of a module class, or a list
    (of two items: the one whose leaves are tried, and a fixed peer)."""

    # leaf | record | new | list | mapping (a dict of records by id) | frame | series (a
    # pandas Series of one value per person: the leaf tried, then its peer) | tuple | made
    # (what a function of the module, named by `cls`, returns when called without arguments)
    # | recorded (an argument of a recorded call, its leaves in `fields`: `custom` encodes it)
    kind: str
    leaf: Leaf | None = None
    fields: dict[str, Node] = field(default_factory=dict)
    cls: str | None = None
    item: Node | None = None
    # A "new" whose constructor takes `*args`: its first `by_position` fields go by
    # position, then the list in its VARARGS field, spread.
    by_position: int = 0
    custom: CustomShape | None = None  # evidence: a recorded argument


# The field of a "new" node holding the extra positional arguments of `__init__(..., *args)`.
VARARGS = "*args"


@dataclass
class Param:
    name: str
    keyword: bool  # pass by keyword (False: by position)
    shape: Node
    # `**name`: each field of the record is its own keyword argument; `*name` (by
    # position): each item of the list is its own positional argument.
    spread: bool = False


@dataclass
class InputModel:
    params: list[Param]
    leaves: list[Leaf]

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
            for group in groups_of(param.shape)
            for leaf in leaves_of(group)
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
            for group in groups_of(param.shape):
                for leaf in leaves_of(group):
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
            for group in groups_of(param.shape)
            for leaf in leaves_of(group)
            if leaf.protected
        )

    def assemble(self, values: dict[InputPath, Any]) -> tuple[list[Any], dict[str, Any]]:
        """Harness-encoded (args, kwargs) for one value per leaf."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for param in self.params:
            encoded = encode_node(param.shape, values)
            if param.spread and param.keyword:
                kwargs.update(encoded["fields"])
                continue
            if param.spread:
                args.extend(encoded)
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
            if p.spread and p.keyword:
                out.update({k: plain_node(sub, values) for k, sub in p.shape.fields.items()})
            else:
                out[p.name] = plain_node(p.shape, values)
        return out


def encode_value(value: Any) -> Any:
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


def encode_node(node: Node, values: dict[InputPath, Any]) -> Any:
    if node.custom is not None:  # evidence: a recorded argument
        return node.custom.encode(values)
    if node.kind == "leaf":
        assert node.leaf is not None
        return encode_value(values[node.leaf.path])
    if node.kind in ("list", "mapping", "frame", "series"):
        assert node.item is not None
        peer = peer_values(node.item, values)
        pair = [encode_node(node.item, values), encode_node(node.item, peer)]
        if node.kind == "series":
            return {"__cb__": "series", "values": pair}
        if node.kind == "frame":  # a table of the two rows, a column per field read
            columns = {k: [row["fields"][k] for row in pair] for k in node.item.fields}
            return {"__cb__": "frame", "columns": columns}
        return dict(zip(MAPPING_KEYS, pair, strict=True)) if node.kind == "mapping" else pair
    if node.kind == "made":
        return {"__cb__": "made", "function": node.cls}
    fields = {name: encode_node(sub, values) for name, sub in node.fields.items()}
    if node.kind == "tuple":
        return {"__cb__": "tuple", "items": list(fields.values())}
    if node.kind == "new":
        if VARARGS not in fields:
            return {"__cb__": "new", "class": node.cls, "kwargs": fields}
        extra = fields.pop(VARARGS)
        names = list(fields)[: node.by_position]
        args = [fields.pop(name) for name in names] + list(extra)
        return {"__cb__": "new", "class": node.cls, "args": args, "kwargs": fields}
    return {"__cb__": "record", "fields": fields}


def plain_value(value: Any) -> Any:
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


def plain_node(node: Node, values: dict[InputPath, Any]) -> Any:
    if node.custom is not None:  # evidence: a recorded argument
        return node.custom.plain(values)
    if node.kind == "leaf":
        assert node.leaf is not None
        return plain_value(values[node.leaf.path])
    if node.kind in ("list", "mapping", "frame", "series"):
        assert node.item is not None
        peer = peer_values(node.item, values)
        pair = [plain_node(node.item, values), plain_node(node.item, peer)]
        if node.kind == "frame":
            return {k: [row[k] for row in pair] for k in node.item.fields}
        return dict(zip(MAPPING_KEYS, pair, strict=True)) if node.kind == "mapping" else pair
    if node.kind == "made":
        return f"{node.cls}()"
    fields = {name: plain_node(sub, values) for name, sub in node.fields.items()}
    return list(fields.values()) if node.kind == "tuple" else fields


# The keys of a dict of people: the one tried, and the peer.
MAPPING_KEYS = ("id-1", "id-2")


def peer_path(path: InputPath) -> InputPath:
    """Where a context holds the fixed peer's value of an item's leaf."""
    return (PEER, *path)


def peer_index(leaf: Leaf) -> int:
    """The index in the pool of the peer's own value: the typical value for a protected
    leaf, the next one for the others, so the two items are told apart (`best.name`)."""
    index = leaf.typical if leaf.protected or len(leaf.pool) < 2 else leaf.typical + 1
    return index % len(leaf.pool)


def peer_values(item: Node, tried: dict[InputPath, Any]) -> dict[InputPath, Any]:
    """The fixed second item of a list: a ranking, a best-of or a group rule needs someone to
    compare with. Protected fields rest on their typical value (on the tried item's, in an
    ALIKE context); the others on their own (`peer_index`), unless the context sets the
    peer's value (`PEER`)."""
    alike = ALIKE in tried
    values: dict[InputPath, Any] = {}
    for leaf in leaves_of(item):
        if alike and leaf.protected and leaf.path in tried:
            values[leaf.path] = tried[leaf.path]
        elif peer_path(leaf.path) in tried:
            values[leaf.path] = tried[peer_path(leaf.path)]
        else:
            values[leaf.path] = leaf.pool[peer_index(leaf)]
    return values


def groups_of(node: Node) -> list[Node]:
    """The items of every list, mapping and frame in a shape (each has a peer)."""
    if node.item is not None:
        return [node.item, *groups_of(node.item)]
    return [group for sub in node.fields.values() for group in groups_of(sub)]


def leaves_of(node: Node) -> list[Leaf]:
    if node.kind == "leaf":
        assert node.leaf is not None
        return [node.leaf]
    nodes = [node.item] if node.item is not None else list(node.fields.values())
    return [leaf for sub in nodes if sub is not None for leaf in leaves_of(sub)]


def every_item(path: InputPath, model: InputModel) -> InputPath:
    """The path with each step into an item of a collection written `[*]`: in an ALIKE
    context the value tried is every item's (`applicants[*]['gender']`, `df['sex'][*]`)."""
    steps = list(path)

    def holds(node: Node) -> bool:
        return any(leaf.path == path for leaf in leaves_of(node))

    def walk(node: Node, i: int) -> None:
        if node.kind == "series":
            steps.append(("index", "*"))  # the leaf is the parameter itself
        elif node.kind == "frame" and node.item is not None and i + 1 < len(steps):
            steps[i + 1] = ("index", "*")  # a column, then its row
        elif node.kind in ("list", "mapping") and node.item is not None and i < len(steps):
            steps[i] = ("index", "*")
            walk(node.item, i + 1)
        else:
            inner = next((sub for sub in node.fields.values() if holds(sub)), None)
            if inner is not None:
                walk(inner, i + 1)

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
