"""The instance a method is given (`self`, or the object its module's calls pass it): built
from the fields or constructor parameters its class declares, which become inputs like any
other. An object the instance holds that the method reads into (`self.settings.age`, through
an alias, or in a property or method of the class it reaches through `self`: see
analysis/facts/instance_reads.py) is built in turn, to MAX_DEPTH: an instance of the class its
annotation names, made by that class's own constructor, or else a record of the fields read.
A person kept there is then an input the search varies."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal, Protocol, TypeVar

from analysis.facts.fieldreads import (
    FieldRead,
    Matcher,
    calls_methods_of,
    field_matcher,
    name_matcher,
    record_accesses,
)
from analysis.facts.frame_reads import frame_name
from analysis.facts.instance_reads import (
    branched_on,
    held_reads,
    instance_inputs,
    instance_name,
    reached_methods,
    state_set_elsewhere,
    state_set_outside,
)
from analysis.facts.module import ModuleFacts
from analysis.inputs.classes import (
    MAX_DEPTH,
    annotated_class,
    guarded_parameters,
    kept_as_given,
    loaded_when_missing,
    maker_of,
    shared_attributes,
    stored_attributes,
    vararg_leaf,
)
from analysis.shapes import (
    SET_AFTER,
    VARARGS,
    FieldsShape,
    FrameShape,
    InputPath,
    Leaf,
    LeafShape,
    MadeShape,
    ObjectShape,
    RecordShape,
    Shape,
)
from analysis.source.functions import FunctionNode, constructor, lineage
from analysis.values import MISSING
from config.policy import Policy

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Attributes that values themselves have: reading them does not make a record.
VALUE_ATTRIBUTES = frozenset({"year", "month", "day", "value", "name", "days", "real"})
DATE_PARTS = frozenset({"year", "month", "day"})
# Classes whose instances are built from the fields they declare, not by a constructor.
DECLARED_FIELDS = ("dataclass", "namedtuple", "pydantic")
MAX_BARE = 12  # attributes of an instance made without its constructor, set by hand at most

# The fields a method reads of one attribute of an object: `age` of `settings` for
# `self.settings.age`.
Reads = Callable[[str], dict[str, FieldRead]]
Fields = TypeVar("Fields", bound=FieldsShape)


class Shaper(Protocol):
    """What the held objects are built with: the shapes `InputBuilder` gives any input
    (analysis/inputs/builder.py), by the parameters they pass."""

    facts: ModuleFacts
    policy: Policy

    def shape(
        self,
        fn: ast.AST,
        name: str,
        annotation: ast.expr | None,
        default: Any,
        path: InputPath,
        leaves: list[Leaf],
        depth: int,
        base: Matcher | None = None,
    ) -> Shape: ...

    def class_fields(
        self,
        cls: ast.ClassDef,
        path: InputPath,
        leaves: list[Leaf],
        depth: int,
        kind: Literal["record", "new"],
    ) -> ObjectShape | RecordShape: ...

    def columns_frame(
        self, fn: ast.AST, columns: list[str], path: InputPath, leaves: list[Leaf], depth: int
    ) -> FrameShape: ...

    def record(
        self,
        fn: ast.AST,
        accessed: dict[str, FieldRead],
        path: InputPath,
        leaves: list[Leaf],
        depth: int,
        local: bool,
        owner: str = "",
    ) -> RecordShape: ...


def object_reads(name: str, accessed: dict[str, FieldRead], policy: Policy) -> dict[str, FieldRead]:
    """The fields read of `name` that make it an object; none when they are what a protected
    value has itself (`dob.year`, `gender.value`), or what any date has (`today.year`,
    `today.month`: the day an age is counted to): a value, not a record."""
    own = all(read.step == "attr" and not read.via_helper for read in accessed.values())
    if own and accessed and set(accessed) <= DATE_PARTS:
        return {}
    if own and set(accessed) <= VALUE_ATTRIBUTES and policy.canonical_category(name):
        return {}
    return accessed


def reads_attribute(fn: FunctionNode, path: InputPath, attribute: str) -> bool:
    """Whether `fn` reads `attribute` of the parameter at `path` (`self.days`)."""
    if len(path) != 1:
        return False
    name = path[0][1]
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == attribute
        and isinstance(node.value, ast.Name)
        and node.value.id == name
        for node in ast.walk(fn)
    )


class HeldObjects:
    """Builds the instance method `fn` is given, its leaves going to `leaves`."""

    def __init__(self, builder: Shaper, fn: FunctionNode, leaves: list[Leaf]) -> None:
        self.builder = builder
        self.facts = builder.facts
        self.policy = builder.policy
        self.fn = fn
        self.leaves = leaves

    def instance(self, cls: ast.ClassDef, name: str) -> ObjectShape | RecordShape:
        """The instance of `cls` that `fn` is given as `name`."""
        path: InputPath = (("param", name),)

        def reads(attribute: str) -> dict[str, FieldRead]:
            return held_reads(self.fn, name, cls, attribute, self.facts)

        built: ObjectShape | RecordShape
        if self.facts.record_kind(cls) in DECLARED_FIELDS:
            shape = self.builder.class_fields(cls, path, self.leaves, 0, "new")
            built = self.reach_fields(shape, cls, reads, path, 0)
        else:
            built = self.constructed(cls, path, 0, reads)
        state: list[str] = []
        if isinstance(built, ObjectShape):
            state = state_set_elsewhere(self.fn, name, cls)
            protected = self.policy.canonical_category
            family, known = self.family(cls)
            outside = state_set_outside(
                self.fn, name, family, lambda a: protected(a) is not None, known
            )
            state += [attr for attr in outside if attr not in state and attr not in built.fields]
        if state:
            fields = dict(built.fields)
            for attr in state:
                fields[SET_AFTER + attr] = self.state(path, attr)
            built = replace(built, fields=fields)
        if isinstance(built, ObjectShape) and not any(
            leaf.protected for leaf in self.leaves if leaf.path[0] == path[0]
        ):
            built = self.bare(cls, name, path) or built
        # After the attributes set outside the constructor are in: `calc_tax` reads
        # `self.state`, set after construction, through its property `church_tax_rate`.
        self.mark_read_by_members(built, cls, name)
        return built

    def family(self, cls: ast.ClassDef) -> tuple[list[ast.ClassDef], bool]:
        """`cls` and the project's classes it derives from, and whether every base it names
        is one of them (or `object`)."""
        family = lineage(cls, self.facts.classes)
        names = {c.name for c in family}
        bases = [b for c in family for b in c.bases]
        known = all(
            (b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")) in names | {"object"}
            for b in bases
        )
        return family, known

    def state(self, path: InputPath, attr: str, leaves: list[Leaf] | None = None) -> Shape:
        where = (*path, ("attr", attr))
        held = field_matcher(name_matcher(path[0][1]), attr)  # `self.people`, read as such
        return self.builder.shape(
            self.fn, attr, None, MISSING, where, self.leaves if leaves is None else leaves, 1, held
        )

    def bare(self, cls: ast.ClassDef, name: str, path: InputPath) -> ObjectShape | None:
        """An instance whose constructor sets what `fn` reads from elsewhere (a file it
        opens, a line it parses, a database, the items a method appends): made without its
        constructor, the attributes `fn` reads set by hand, when they hold a person and `fn`
        takes nothing else (a method that also takes a record may find the person there, and
        needs what the constructor sets up). None otherwise."""
        family, known = self.family(cls)
        if not known:
            return None  # what a base outside the project sets up is not known here
        args = self.fn.args
        if len([*args.posonlyargs, *args.args, *args.kwonlyargs]) > 1 or args.vararg or args.kwarg:
            return None  # the person may come in its other inputs: the constructor's object
        found: list[Leaf] = []
        read = instance_inputs(self.fn, name, family)[:MAX_BARE]
        fields = {SET_AFTER + attr: self.state(path, attr, found) for attr in read}
        if not any(leaf.protected for leaf in found):
            return None
        self.leaves[:] = [leaf for leaf in self.leaves if leaf.path[0] != path[0]] + found
        return ObjectShape(fields, cls=self.facts.qualname(cls), bare=True)

    def constructed(
        self,
        cls: ast.ClassDef,
        path: InputPath,
        depth: int,
        reads: Reads,
        read_fields: frozenset[str] = frozenset(),
    ) -> ObjectShape:
        """An instance of a plain class, made by its constructor from the parameters it
        requires; one with a default keeps it (fewer inputs to search) unless `fn` reads
        what the constructor keeps it in (`read_fields`, or fields of it: `reads`) or the
        constructor checks it before raising (`guarded_parameters`)."""
        init = constructor(cls)
        fields: dict[str, Shape] = {}
        by_position = 0  # with `*args`, how many named fields go by position before them
        if init is not None:
            iargs = init.args
            named = [*iargs.posonlyargs, *iargs.args][1:] + list(iargs.kwonlyargs)
            defaults = dict(
                zip(
                    [a.arg for a in [*iargs.posonlyargs, *iargs.args]][::-1],
                    iargs.defaults[::-1],
                    strict=False,
                )
            )
            stored = stored_attributes(init)
            shared = shared_attributes(init)
            as_given = kept_as_given(init)
            guarded = guarded_parameters(init)
            loaded = loaded_when_missing(init)
            branched = branched_on(self.fn, path[0][1], cls) if depth == 0 else set()
            for arg in named:
                # The path names the attribute the methods read: `self.age = D(age_in_months)`.
                attribute = stored.get(arg.arg, arg.arg)
                # What the methods read into the attribute they read of the parameter only when
                # it is kept as given: `self.logger.name` is no field of `logger_name`.
                inner = (
                    object_reads(arg.arg, reads(attribute), self.policy)
                    if arg.arg in as_given
                    else {}
                )
                together = shared.get(arg.arg)
                together_read = together is not None and reads_attribute(self.fn, path, together)
                read = bool(inner) or attribute in read_fields or together_read
                read = read or attribute in branched  # a mode it branches on
                needed = read or arg.arg in guarded
                if arg.arg in defaults and iargs.vararg is None and not needed:
                    continue  # keep the constructor's own default; fewer inputs to search
                if arg.arg in loaded and arg.arg in defaults and arg.arg not in guarded:
                    continue  # the table it reads in itself when none is given
                # Before `*args`, a parameter with a default is still given, by position.
                default = defaults.get(arg.arg)
                where = (*path, ("attr", attribute))
                fields[arg.arg] = self.constructor_argument(init, arg, default, where, depth, inner)
                if together is not None and together_read:
                    for leaf in fields[arg.arg].leaves():  # read through `self.days`
                        leaf.read_in = leaf.read_in or together
            if iargs.vararg is not None:
                by_position = len(named) - len(iargs.kwonlyargs)
                where = (*path, ("attr", iargs.vararg.arg))
                fields[VARARGS] = vararg_leaf(init, iargs.vararg, where, self.leaves)
        return ObjectShape(fields, cls=self.facts.qualname(cls), by_position=by_position)

    def constructor_argument(
        self,
        init: ast.FunctionDef,
        arg: ast.arg,
        default: ast.expr | None,
        path: InputPath,
        depth: int,
        inner: dict[str, FieldRead],
    ) -> Shape:
        """One argument of the constructor, at `path` (the attribute it is kept in); the
        object it is, built in turn when `fn` reads fields of it (`inner`)."""
        maker = maker_of(arg.arg, self.facts.tree, self.policy)
        if maker is not None:  # `create_anthro(day_tables=_load_day_tables(), ...)`
            return MadeShape(maker)
        value = self.facts.const(default) if default is not None else MISSING
        shape = self.builder.shape(
            init, arg.arg, arg.annotation, value, path, self.leaves, depth + 1
        )
        return self.reach_into(shape, arg.arg, arg.annotation, path, depth + 1, inner)

    def reach_fields(
        self, shape: Fields, cls: ast.ClassDef, reads: Reads, path: InputPath, depth: int
    ) -> Fields:
        """An instance of a class of declared fields, those `fn` reads into built too."""
        fields = dict(shape.fields)
        for stmt in cls.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            name = stmt.target.id
            inner = object_reads(name, reads(name), self.policy) if name in fields else {}
            where = (*path, ("attr", name))
            if inner or (name in fields and calls_methods_of(self.fn, where)):
                fields[name] = self.reach_into(
                    fields[name], name, stmt.annotation, where, depth + 1, inner
                )
        return replace(shape, fields=fields)

    def reach_into(
        self,
        shape: Shape,
        name: str,
        annotation: ast.expr | None,
        path: InputPath,
        depth: int,
        inner: dict[str, FieldRead],
    ) -> Shape:
        """An object the instance holds, whose fields `fn` reads (`inner`), in place of the
        plain value its own code made of it (`shape`): an instance of the class its
        annotation names, made by its constructor, or a record of the fields read."""
        cls = annotated_class(annotation, self.facts)
        kind = self.facts.record_kind(cls) if cls is not None else None
        # `self.scorer.score(applicant)`: the component's own class does the work
        called = cls is not None and kind is None and calls_methods_of(self.fn, path)
        if not (inner or called) or depth >= MAX_DEPTH or kind == "enum":
            return shape  # `self.sex.value` of a `Sex` member reads the member itself

        def nested(field: str) -> dict[str, FieldRead]:
            read = inner.get(field)
            if read is None:
                return {}
            return record_accesses(read.where, field, self.facts, read.matcher)

        held: Shape
        if isinstance(shape, ObjectShape) and cls is not None and kind is not None:
            held = self.reach_fields(shape, cls, nested, path, depth)
        elif not isinstance(shape, LeafShape) or shape.leaf not in self.leaves:
            return shape
        else:
            self.leaves.remove(shape.leaf)
            if cls is not None and kind is None and (constructor(cls) is not None or called):
                held = self.constructed(cls, path, depth, nested, frozenset(inner))
            elif held_frame(name, annotation) and all(r.step == "key" for r in inner.values()):
                # `self.df = df` (a DataFrame), read as `self.df["age"]`: its columns
                held = self.builder.columns_frame(self.fn, list(inner), path, self.leaves, depth)
            else:
                held = self.builder.record(
                    self.fn, inner, path, self.leaves, depth, local=False, owner=name
                )
        self.mark_read_in(held, path, inner)
        return held

    def mark_read_by_members(self, built: Shape, cls: ast.ClassDef, name: str) -> None:
        """A field of the instance read by a property or method of its class that `fn`
        reaches through it (`risk_category` reading `self.total`, the sum of `self.age` and
        four scores), not by `fn` itself, names that member: `fn` reads it too."""
        read_by: dict[str, str] = {}
        derived = derived_attributes(cls)
        for i, (method, own) in enumerate(reached_methods(self.fn, name, cls)):
            for node in ast.walk(method):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == own
                ):
                    if i:
                        read_by.setdefault(node.attr, method.name)
                    # `self.is_female`, which the constructor made of `sex`, reads the sex
                    for source in derived.get(node.attr, ()):
                        read_by.setdefault(source, "__init__")
        for leaf in built.leaves():
            step = leaf.path[1] if len(leaf.path) > 1 else None
            if step is not None and step[0] == "attr" and step[1] in read_by:
                leaf.read_in = leaf.read_in or read_by[step[1]]

    def mark_read_in(self, held: Shape, path: InputPath, inner: dict[str, FieldRead]) -> None:
        """A leaf read by a method or property `fn` reaches (`self.total_deductions`), not by
        `fn` itself, names it: the static review looks there."""
        for leaf in held.leaves():
            step = leaf.path[len(path)] if len(leaf.path) > len(path) else None
            read = inner.get(step[1]) if step is not None else None
            if read is not None and read.where is not self.fn and isinstance(read.where, FUNCTIONS):
                leaf.read_in = leaf.read_in or read.where.name


def held_frame(name: str, annotation: ast.expr | None) -> bool:
    """Whether an object kept on the instance is a DataFrame, by its annotation or its name
    (`df`, `people_df`)."""
    if annotation is not None:
        return "DataFrame" in ast.unparse(annotation)
    return frame_name(name)


DERIVATION_PASSES = 2


def derived_attributes(cls: ast.ClassDef) -> dict[str, set[str]]:
    """The attributes the constructor sets from its parameters worked into something else
    (`self.is_female = sex == "female"`), by the parameters each is made of: through its
    locals and the attributes it set before too (`age = characteristics[0]`, `v1 = 4.3 -
    0.02 * (age - 53)`, `self.system = ss(v1)`, `self.discrete = self.system.sample(ts)`)."""
    init = next((s for s in cls.body if isinstance(s, FUNCTIONS) and s.name == "__init__"), None)
    if init is None:
        return {}
    own = instance_name(init)
    params = {a.arg for a in [*init.args.args[1:], *init.args.kwonlyargs]}
    local: dict[str, set[str]] = {p: {p} for p in params}
    made: dict[str, set[str]] = {}
    assigns = [
        (n.targets if isinstance(n, ast.Assign) else [n.target], n.value)
        for n in ast.walk(init)
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None
    ]
    for _ in range(DERIVATION_PASSES):  # a local used before the line that sets it
        for targets, value in assigns:
            if isinstance(value, ast.Name) and value.id in params:
                continue  # `self.sex = sex` keeps the parameter itself
            sources: set[str] = set()
            for node in ast.walk(value):
                if isinstance(node, ast.Name):
                    sources |= local.get(node.id, set())
                elif isinstance(node, ast.Attribute) and getattr(node.value, "id", "") == own:
                    sources |= made.get(node.attr, set())
            if not sources:
                continue
            for node in (n for target in targets for n in ast.walk(target)):
                if isinstance(node, ast.Name) and node.id not in params | {own}:
                    local.setdefault(node.id, set()).update(sources)
                elif isinstance(node, ast.Attribute) and getattr(node.value, "id", "") == own:
                    made.setdefault(node.attr, set()).update(sources)
    return made
