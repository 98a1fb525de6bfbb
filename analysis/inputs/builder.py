"""Builds the `InputModel` of one function from its module's facts and the policy: the shape
of every parameter (a leaf, a record, an instance of a module class, a list of records) and
the value pool of every leaf."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from analysis.facts.fieldreads import (
    FieldRead,
    Matcher,
    calls_methods_of,
    field_matcher,
    keyed_by_text,
    name_matcher,
    record_accesses,
    required_attributes,
)
from analysis.facts.frame_reads import column_parameters, frame_columns, is_frame, vectorised
from analysis.facts.item_reads import element_accesses
from analysis.facts.module import ModuleFacts, enum_members
from analysis.facts.param_docs import documented_flags, module_descriptions, param_descriptions
from analysis.facts.people import only_people
from analysis.facts.tuple_reads import tuple_positions
from analysis.inputs.age_tables import tables_by_age
from analysis.inputs.classes import (
    INSTANCE_NAMES,
    MAX_DEPTH,
    annotated_class,
    annotated_enum,
    annotated_item_class,
    declared_names,
    names_one_type,
    required_parameters,
    stored_attributes,
    vararg_leaf,
)
from analysis.inputs.doc_examples import (
    MAX_EXAMPLES,
    bind_calls,
    demonstrated_calls,
    documented_arguments,
    documented_items,
    seed_from_examples,
)
from analysis.inputs.leaves import LeafMaker, spread_typicals
from analysis.shapes import (
    MAPPING_KEYS,
    VARARGS,
    InputModel,
    InputPath,
    Leaf,
    Node,
    Param,
    display,
    leaves_of,
)
from analysis.source.functions import (
    FunctionInfo,
    FunctionNode,
    function_defaults,
    is_classvar,
    record_class_kind,
    renamed_by_decorator,
    signature_defaults,
)
from analysis.static.review import passed_to_helpers
from analysis.values import MISSING, EnumMember
from config.policy import Policy

# Attributes that values themselves have: reading them does not make a record.
VALUE_ATTRIBUTES = frozenset({"year", "month", "day", "value", "name", "days", "real"})


# How a module names the function that makes a thing: `load_tables()` for `tables`.
MAKER_VERBS = ("load", "get", "make", "build", "create", "default", "read", "new")
# Fields that hold the amount of a measurement record (`{"value": 17, "unit": "years"}`).
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
VALUE_FIELDS = frozenset({"value", "val", "amount", "quantity", "magnitude", "number", "v"})


@dataclass(frozen=True)
class Spot:
    """One input whose shape is wanted: its name, annotation and default, its path from the
    call, how deeply it is nested, and the matcher of the record it is a field of (`base`).
    Each recogniser of `InputBuilder.shape` reads it in the function `fn` it is given."""

    name: str
    annotation: ast.expr | None
    default: Any
    path: InputPath
    depth: int
    base: Matcher | None


class InputBuilder:
    """Builds the InputModel of one function from the module's facts and the policy."""

    def __init__(self, facts: ModuleFacts, policy: Policy, from_callers: bool = True) -> None:
        """`from_callers`: a parameter its names leave open takes what the module's calls
        pass it (analysis.facts.callers); off for the callers themselves, one step only."""
        self.facts = facts
        self.policy = policy
        self.examples: list[dict[str, Any]] = []
        self.leaf_maker = LeafMaker(facts, policy, self.caller_model if from_callers else None)
        # A leaf of the function being built (evidence/ and missing fields make theirs here).
        self.leaf = self.leaf_maker.leaf
        # The columns parameters of the function name, by the table they name them in.
        self.named_columns: dict[str, list[str]] = {}

    def build(self, info: FunctionInfo) -> InputModel:
        """The inputs of one function: a shape for every parameter, a pool for every leaf."""
        fn = self.leaf_maker.function = info.node
        self.read_docs(fn)
        args = fn.args
        positional = [*args.posonlyargs, *args.args]
        leaves: list[Leaf] = []
        params: list[Param] = []
        self.read_examples(info, positional)
        if (
            info.owner is not None
            and "staticmethod" not in info.decorators
            and positional
            and positional[0].arg in INSTANCE_NAMES
        ):
            first, positional = positional[0], positional[1:]
            params += self.instance_param(info, first, leaves)
        posonly = {a.arg for a in args.posonlyargs}
        positional_names = {a.arg for a in positional}
        defaults = signature_defaults(args)
        passed_in = function_defaults(fn, self.facts.functions)
        naming = self.column_names(fn, [*positional, *args.kwonlyargs], defaults)
        # Parameters go by keyword, unless a decorator of the project puts a wrapper with
        # parameters of its own names in front (`def inner(data)`, no functools.wraps): then
        # by position, as callers do. Past a parameter left to its default, by keyword.
        kwonly = {a.arg for a in args.kwonlyargs}
        by_keyword = not renamed_by_decorator(info, self.facts.functions)
        for arg in [*positional, *args.kwonlyargs]:
            if arg.arg in passed_in and arg.arg not in posonly:
                by_keyword = True
                continue  # `factor=rating.gender_factor`: the call keeps the function passed in
            keyword = (by_keyword and arg.arg not in posonly) or arg.arg in kwonly
            params.append(self.parameter(info, arg, keyword, defaults, naming, leaves))
        if args.vararg is not None and not passed_in.keys() & {a.arg for a in positional}:
            # `def f(age, sex, *folds)`: the named ones go by position, then the extras.
            for param in params:
                param.keyword = param.keyword and param.name not in positional_names
            extras = vararg_leaf(fn, args.vararg, (("param", args.vararg.arg),), leaves)
            params.append(Param(args.vararg.arg, False, extras, spread=True))
        if args.kwarg is not None:
            params += self.keyword_record(fn, args.kwarg, leaves)
        return self.finish(info, params, leaves)

    def keyword_record(self, fn: FunctionNode, kwarg: ast.arg, leaves: list[Leaf]) -> list[Param]:
        """`def score(**applicant)`: the keys it reads are keyword arguments of the call."""
        spread = self.shape(fn, kwarg.arg, None, MISSING, (("param", kwarg.arg),), leaves, 0)
        if spread.kind == "record":
            return [Param(kwarg.arg, True, spread, spread=True)]
        return []

    def read_docs(self, fn: FunctionNode) -> None:
        """`x: the age as integer number`: what the docstring says a parameter holds (or,
        when its own is silent, what the module's other docstrings say of the name)."""
        key = ("module docs",)
        if key not in self.facts.memo:
            self.facts.memo[key] = module_descriptions(self.facts.tree)
        self.leaf_maker.docs = {**self.facts.memo[key], **param_descriptions(fn)}
        if ("documented flags",) not in self.facts.memo:
            self.facts.memo[("documented flags",)] = documented_flags(self.facts.tree)

    def read_examples(self, info: FunctionInfo, positional: list[ast.arg]) -> None:
        """`>>> f(...)` in the docstring, and the module's demo calling the function: values
        their author wrote down, in the shape wanted."""
        fn = info.node
        bound_first = info.owner is not None and "staticmethod" not in info.decorators
        named = [a.arg for a in positional]
        if bound_first and named and named[0] in INSTANCE_NAMES:
            named = named[1:]
        self.examples = documented_arguments(fn, named, self.facts.const)
        if info.owner is None and self.facts.functions.get(fn.name) is fn:
            # A module-level function its module's demo calls: `f(case)` for each case.
            key = ("demonstrated calls",)
            if key not in self.facts.memo:
                self.facts.memo[key] = demonstrated_calls(self.facts.tree, self.facts.const)
            shown = self.facts.memo[key].get(fn.name, [])
            self.examples += bind_calls(shown, named)[: MAX_EXAMPLES - len(self.examples)]

    def instance_param(self, info: FunctionInfo, first: ast.arg, leaves: list[Leaf]) -> list[Param]:
        """A method's instance: none for a classmethod's class."""
        assert info.owner is not None
        if "classmethod" in info.decorators:
            return []
        if info.name == "__init__":
            # The constructor itself sets the instance up from its own parameters: the
            # instance it is given starts empty (what it ends as is the output).
            cls = self.facts.qualname(info.owner)
            return [Param(first.arg, False, Node("new", fields={}, cls=cls))]
        # A method gets a real instance of its class, built from the fields or constructor
        # parameters it declares, which become inputs like any other.
        return [Param(first.arg, False, self.instance_shape(info.owner, first.arg, leaves))]

    def column_names(
        self, fn: FunctionNode, arguments: list[ast.arg], defaults: dict[str, ast.expr]
    ) -> dict[str, str]:
        """`add_risk(df, age_col=None, sex_col=None)`: parameters that name the table's
        columns hold those names, and the table those columns (`named_columns`)."""
        naming: dict[str, str] = {}
        self.named_columns = {}
        for arg in arguments:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_frame(
                fn, arg.arg, arg.annotation
            ):
                texts = {k: self.facts.const(v) for k, v in defaults.items()}
                columns = column_parameters(fn, arg.arg, texts)
                naming.update(columns)
                self.named_columns[arg.arg] = list(dict.fromkeys(columns.values()))
        return naming

    def parameter(
        self,
        info: FunctionInfo,
        arg: ast.arg,
        keyword: bool,
        defaults: dict[str, ast.expr],
        naming: dict[str, str],
        leaves: list[Leaf],
    ) -> Param:
        """One named parameter and its shape."""
        fn = info.node
        default = self.facts.const(defaults[arg.arg]) if arg.arg in defaults else MISSING
        path: InputPath = (("param", arg.arg),)
        given = (
            self.facts.given_self(fn, arg.arg)
            if info.owner is not None and arg.annotation is None
            else None
        )
        if given is not None:  # the module's own calls pass an instance of one class
            return Param(arg.arg, keyword, self.instance_shape(given, arg.arg, leaves))
        if arg.arg in naming:  # the column's name, fixed: no value of what it holds
            column = Leaf(path, display(path), arg.arg, [naming[arg.arg]])
            leaves.append(column)
            return Param(arg.arg, keyword, Node("leaf", leaf=column))
        shape = self.shape(fn, arg.arg, arg.annotation, default, path, leaves, depth=0)
        return Param(arg.arg, keyword, shape)

    def finish(self, info: FunctionInfo, params: list[Param], leaves: list[Leaf]) -> InputModel:
        """The model, its leaves' typical values spread, seeded from the examples, tables by
        age given, the helpers each protected leaf is passed to found; only real people."""
        fn = info.node
        spread_typicals(leaves, self.policy)
        seed_from_examples(self.examples, leaves)
        tables_by_age(fn, leaves, self.facts)
        for leaf in leaves:
            if leaf.protected:
                leaf.passed_to = passed_to_helpers(fn, leaf, self.facts.functions, self.facts.memo)
        return only_people(InputModel(params, leaves), info, self.policy, self.facts)

    def instance_shape(self, cls: ast.ClassDef, self_name: str, leaves: list[Leaf]) -> Node:
        path: InputPath = (("param", self_name),)
        if record_class_kind(cls) in ("dataclass", "namedtuple", "pydantic"):
            return self.class_fields(cls, path, leaves, 0, "new")
        init = next(
            (s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
        )
        fields: dict[str, Node] = {}
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
            for arg in named:
                if arg.arg in defaults and iargs.vararg is None:
                    continue  # keep the constructor's own default; fewer inputs to search
                default = (
                    self.facts.const(defaults[arg.arg]) if arg.arg in defaults else MISSING
                )  # before `*args`, a parameter with a default is still given, by position
                maker = self.maker_of(arg.arg)
                if maker is not None:  # `create_anthro(day_tables=_load_day_tables(), ...)`
                    fields[arg.arg] = Node("made", cls=maker)
                    continue
                # The path names the attribute the methods read: `self.age = D(age_in_months)`.
                step = ("attr", stored.get(arg.arg, arg.arg))
                fields[arg.arg] = self.shape(
                    init, arg.arg, arg.annotation, default, (*path, step), leaves, 1
                )
            if iargs.vararg is not None:
                by_position = len(named) - len(iargs.kwonlyargs)
                where = (*path, ("attr", iargs.vararg.arg))
                fields[VARARGS] = vararg_leaf(init, iargs.vararg, where, leaves)
        return Node("new", fields=fields, cls=self.facts.qualname(cls), by_position=by_position)

    def maker_of(self, name: str) -> str | None:
        """A function of the module that makes what a constructor parameter holds, called
        without arguments: `_load_day_tables()` for `day_tables`, `default_config()` for
        `config`. Tables of coefficients and loaded data sets are no input to vary, and no
        made-up value holds what the code looks up in them. Never for a protected input."""
        if self.policy.canonical_category(name) is not None:
            return None
        wanted = {f"{verb}_{name.strip('_')}" for verb in MAKER_VERBS}
        for stmt in self.facts.tree.body:
            if (
                isinstance(stmt, ast.FunctionDef)
                and stmt.name.lstrip("_") in wanted
                and not required_parameters(stmt)
            ):
                return stmt.name
        return None

    def class_fields(
        self,
        cls: ast.ClassDef,
        path: InputPath,
        leaves: list[Leaf],
        depth: int,
        kind: str,
        step: str | None = None,  # how the fields are read; by the kind's way if None
    ) -> Node:
        step = step or ("key" if kind == "record" else "attr")
        fields: dict[str, Node] = {}
        first = len(leaves)
        for stmt in cls.body:
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and not is_classvar(stmt.annotation)
            ):
                fname = stmt.target.id
                fdefault = self.facts.const(stmt.value) if stmt.value else MISSING
                fields[fname] = self.shape(
                    cls, fname, stmt.annotation, fdefault, (*path, (step, fname)), leaves, depth + 1
                )
        # `>>> PatientData(age=55, sex="male", region="moderate")` in the class's docstring
        key = ("class examples", id(cls))  # every method taking the record asks again
        if key not in self.facts.memo:
            self.facts.memo[key] = documented_arguments(cls, list(fields), self.facts.const)
        seed_from_examples(self.facts.memo[key], leaves[first:], depth=len(path))
        return Node(kind, fields=fields, cls=self.facts.qualname(cls) if kind == "new" else None)

    def undeclared_reads(
        self, fn: ast.AST, name: str, cls: ast.ClassDef, base: Matcher | None
    ) -> dict[str, FieldRead]:
        """Attributes a function reads from its record that the record's class (and its bases
        in the module) never declares; none when it calls the record's own methods, which a
        stand-in would lack."""
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or calls_methods_of(
            fn, name
        ):
            return {}
        declared = declared_names(cls, self.facts)
        # Needed (`patient.prior_stroke_tia`, `hasattr(patient, "creatinine")` or raise):
        # `getattr(patient, "x", False)` copes with an instance that lacks it, as the class's
        # callers' instances do.
        reads = record_accesses(fn, name, self.facts, base)
        # A person's attribute it looks for with a default (`getattr(patient,
        # "education_high", False)`) is one the callers' objects carry: tried too.
        asked = {attr for attr in reads if self.policy.canonical_category(attr)}
        needed = (required_attributes(fn, name, self.facts) | asked) - declared
        return {
            attr: reads.get(attr) or FieldRead(fn, field_matcher(name_matcher(name), attr), "attr")
            for attr in sorted(needed)
            if not attr.startswith(("_", "model_"))
        }

    # -- shapes --------------------------------------------------------------------------
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
        owner: str = "",
    ) -> Node:
        """The shape of one input, read in `fn`: the first of these that recognises it, in
        this order of priority: a list of a class of the project, an instance (or enum, or
        record) of one, a DataFrame, a record of the keys or attributes read, a list or
        mapping of such records, a small tuple, a record keyed by text held elsewhere, a
        Series, the amount of a measurement; else a leaf. `base`: the matcher of the record
        this is a field of, `owner` its name (`age` of `age["value"]`)."""
        spot = Spot(name, annotation, default, path, depth, base)
        found = self.of_enum(spot, leaves)
        if found is None:
            found = self.list_of_class(spot, fn, leaves)
        if found is None:
            found = self.of_class(spot, fn, leaves)
        if found is None and depth < MAX_DEPTH and isinstance(fn, FUNCTIONS):
            found = self.frame(spot, fn, leaves)
            if found is None:
                found = self.read_record(spot, fn, leaves)
        if found is None and depth == 0 and base is None:
            found = self.whole_input(spot, fn, leaves)
        if found is not None:
            return found
        if owner and name.lower() in VALUE_FIELDS and not self.policy.canonical_category(name):
            # `patient["age"]["value"]`: the amount of a measurement is what its owner names
            return self.leaf(name, path, leaves, [], annotation, default, category_name=owner)
        return self.leaf(name, path, leaves, [], annotation, default)

    def list_of_class(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Node | None:
        """`list[Applicant]`: items are instances of a class of the project."""
        name, annotation, path, depth = spot.name, spot.annotation, spot.path, spot.depth
        item_class = annotated_item_class(annotation, self.facts)
        if item_class is None:
            return None
        members = annotated_enum(item_class, self.facts) is not None
        if depth >= MAX_DEPTH and not members:
            # Records too deep to build: the one list of them that needs none, never made-up
            # items (`[1, 10]` where the code reads `component.taxable`).
            return self.leaf(name, path, leaves, [[]], annotation, spot.default, closed=True)
        list_item: InputPath = (*path, ("index", 0))
        item = self.shape(fn, name, item_class, MISSING, list_item, leaves, depth + 1)
        if item.kind != "leaf" or members:
            return Node("list", item=item)  # `list[AgeBand]`: members, the item's and a peer's
        leaves.remove(item.leaf)  # type: ignore[arg-type]
        return None

    def of_enum(self, spot: Spot, leaves: list[Leaf]) -> Node | None:
        """An input annotated with an enum of the project (defined here or imported, by name
        or through its module) is one of its members, however deep in a record: a member is
        a value, not a record whose depth is bounded, and code that validates it
        (`AssetClass(self.asset_class)`) refuses any made-up number or word."""
        cls = annotated_enum(spot.annotation, self.facts)
        if cls is None:
            return None
        qualname = self.facts.qualname(cls)
        members = [EnumMember(qualname, member) for member in enum_members(cls)]
        name, path, annotation, default = spot.name, spot.path, spot.annotation, spot.default
        # An enum whose source names no member (a base of others, members made at run time),
        # or one beside another type (`str | Sex`), leaves the leaf open to its kind's values.
        closed = bool(members) and names_one_type(spot.annotation)
        return self.leaf(name, path, leaves, members, annotation, default, closed=closed)

    def of_class(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Node | None:
        """An input annotated with a class of the project: an instance of a dataclass, named
        tuple or pydantic model, a TypedDict's record."""
        name, path, depth, base = spot.name, spot.path, spot.depth, spot.base
        cls = annotated_class(spot.annotation, self.facts)
        if cls is None or depth >= MAX_DEPTH:
            return None
        kind = record_class_kind(cls)
        if kind not in ("dataclass", "namedtuple", "pydantic", "typeddict"):
            return None
        node_kind = "record" if kind == "typeddict" else "new"
        extra = self.undeclared_reads(fn, name, cls, base) if node_kind == "new" else {}
        if extra:
            # `patient.prior_stroke_tia` where PatientData declares no such field:
            # callers hand a duck-typed object, which no instance could stand for.
            declared = self.class_fields(cls, path, leaves, depth, "record", "attr")
            read = self.record(fn, extra, path, leaves, depth, local=True, owner=name)
            return Node("record", fields={**declared.fields, **read.fields})
        return self.class_fields(cls, path, leaves, depth, node_kind)

    def frame(self, spot: Spot, fn: FunctionNode, leaves: list[Leaf]) -> Node | None:
        """A DataFrame of the columns the function reads; a cell is reached as df["AGEP"][0]:
        the column, then the row tried."""
        name, annotation, path = spot.name, spot.annotation, spot.path
        depth, base = spot.depth, spot.base
        if base is not None or not is_frame(fn, name, annotation):
            return None
        columns = frame_columns(fn, name, self.facts)
        if depth == 0:
            columns += [c for c in self.named_columns.get(name, []) if c not in columns]
        if not columns:
            return None
        cells: dict[str, InputPath] = {c: (*path, ("key", c), ("index", 0)) for c in columns}
        columns_shape = {
            col: self.shape(fn, col, None, MISSING, cell, leaves, depth + 1)
            for col, cell in cells.items()
        }
        return Node("frame", item=Node("record", fields=columns_shape))

    def read_record(self, spot: Spot, fn: FunctionNode, leaves: list[Leaf]) -> Node | None:
        """A record of the keys or attributes the function reads, a list or mapping of such
        records, or a small tuple read by position."""
        name, annotation, default = spot.name, spot.annotation, spot.default
        path, depth, base = spot.path, spot.depth, spot.base
        accessed = record_accesses(fn, name, self.facts, base)
        if (
            set(accessed) <= VALUE_ATTRIBUTES
            and all(read.step == "attr" and not read.via_helper for read in accessed.values())
            and self.policy.canonical_category(name)
        ):
            accessed = {}  # `dob.year`, `gender.value`: a protected value, not a record
        if accessed:
            return self.record(fn, accessed, path, leaves, depth, local=True, owner=name)
        for kind in ("list", "mapping"):
            mapping = kind == "mapping"
            element = element_accesses(fn, name, self.facts, mapping) if base is None else {}
            if element:
                step = ("key", MAPPING_KEYS[0]) if mapping else ("index", 0)
                item = self.record(fn, element, (*path, step), leaves, depth, local=False)
                return Node(kind, item=item)
        positions = tuple_positions(fn, name, self.facts, base)
        documented = documented_items(self.examples, path) if annotation is None else 0
        if documented:
            # Documented as `(17, 'years')`: that many items, whether read in a loop
            # (`input[count + 1]`) or by branches for other shapes (`len(h) == 4`).
            positions = {i: positions.get(i, "") for i in range(documented)}
        if annotation is None and self.leaf_maker.held_as_tuple(name, positions):
            return self.leaf_maker.tuple_shape(name, positions, path, leaves, default)
        return None

    def whole_input(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Node | None:
        """A parameter of the function itself that is a record keyed by text held elsewhere,
        or a Series."""
        name, annotation, default, path = spot.name, spot.annotation, spot.default, spot.path
        if self.strings_name_people() and keyed_by_text(fn, name, self.facts):
            # `params[key]` for keys held elsewhere: a record whose keys the calls will tell
            return Node("record", fields={})
        if annotation is None and isinstance(fn, FUNCTIONS) and vectorised(fn, name):
            # `kappa = 0.9 - 0.2 * female; kappa[ratio < 1] = ...`: a Series, tried in its
            # first row with a peer in the second (the leaf is the parameter itself: the
            # static review reads the column as the code does)
            return Node("series", item=self.leaf(name, path, leaves, [], annotation, default))
        return None

    def caller_model(self, info: FunctionInfo) -> InputModel:
        """A caller's inputs by their own names, built once per module."""
        key = ("caller model", id(info.node))
        if key not in self.facts.memo:
            builder = InputBuilder(self.facts, self.policy, from_callers=False)
            self.facts.memo[key] = builder.build(info)
        model: InputModel = self.facts.memo[key]
        return model

    def strings_name_people(self) -> bool:
        """Whether a short string of the module names a protected attribute ("Age in years",
        "sex"): only then may a record read by keys held elsewhere hold a person."""
        key = ("strings name people",)
        if key not in self.facts.memo:
            self.facts.memo[key] = any(
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and len(node.value) <= 40
                and self.policy.canonical_category(node.value) is not None
                for node in ast.walk(self.facts.tree)
            )
        return bool(self.facts.memo[key])

    def record(
        self,
        fn: ast.AST,
        accessed: dict[str, FieldRead],
        path: InputPath,
        leaves: list[Leaf],
        depth: int,
        local: bool,
        owner: str = "",
    ) -> Node:
        """A record of the fields read, each shaped in turn (a nested record, a leaf...).
        `local`: a field read in `fn` itself keeps its matcher, to follow `driver.profile.age`
        (fields of list items always do)."""
        fields = {
            fname: self.shape(
                read.where,
                fname,
                None,
                MISSING,
                (*path, (read.step, fname)),
                leaves,
                depth + 1,
                # a read through a helper (`get_value(p, "age")`) goes on in the helper
                read.matcher if (read.where is fn or not local or read.via_helper) else None,
                owner,
            )
            for fname, read in accessed.items()
        }
        for fname, read in accessed.items():
            where = read.where
            if where is not fn and isinstance(where, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for leaf in leaves_of(fields[fname]):
                    leaf.read_in = leaf.read_in or where.name  # the helper reading it
        return Node("record", fields=fields)


