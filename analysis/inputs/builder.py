"""Builds the `InputModel` of one function from its module's facts and the policy: the shape
of every parameter (a `Shape` of analysis/shapes.py) and the value pool of every leaf.

A method's instance is an object of its class (empty for `__init__`), or what the module's
own calls pass, with the objects it holds that the method reads into (instances.py); a
parameter that names a table's column holds that name. Every other input goes to
`InputBuilder.shape`, which tries `RECOGNISERS` (the end of this module) in their order of
priority, from a project enum's member to a Series; else it is a leaf.
`**kwargs` is a record spread as keywords, `*args` one leaf of whole lists. Leaves take
values from the code, docstring examples, demo calls and the policy (leaves.py, pools.py)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from analysis.caches import Cache
from analysis.execution.harness.getters import getter_field
from analysis.facts.fieldreads import (
    FieldRead,
    Matcher,
    calls_methods_of,
    json_decoded,
    keyed_by_text,
    keys_held_elsewhere,
    name_matcher,
    record_accesses,
)
from analysis.facts.frame_reads import (
    column_parameters,
    frame_columns,
    handed_to_a_table,
    is_frame,
    vectorised,
)
from analysis.facts.hint import Hint
from analysis.facts.instance_reads import methods_called
from analysis.facts.item_reads import (
    element_accesses,
    held_item_accesses,
    person_keyed_reads,
    unpacked_rows,
)
from analysis.facts.module import ModuleFacts, enum_members
from analysis.facts.param_docs import (
    DOCUMENTED_FLAGS,
    documented_flags,
    module_descriptions,
    param_descriptions,
)
from analysis.facts.people import only_people, strings_name_people
from analysis.facts.tuple_reads import tuple_positions
from analysis.inputs.age_tables import tables_by_age
from analysis.inputs.answers import ANSWERS, prompt_helpers, prompts
from analysis.inputs.classes import (
    INSTANCE_NAMES,
    MAX_DEPTH,
    annotated_class,
    annotated_enum,
    annotated_item_class,
    concrete_subclass,
    names_one_type,
    undeclared_reads,
    vararg_leaf,
)
from analysis.inputs.command_line import COMMAND_LINE, CommandLine, command_line
from analysis.inputs.doc_examples import (
    MAX_EXAMPLES,
    bind_calls,
    demonstrated_calls,
    documented_arguments,
    documented_items,
    seed_from_examples,
)
from analysis.inputs.instances import HeldObjects, object_reads
from analysis.inputs.leaves import LeafMaker, spread_typicals
from analysis.inputs.value_lists import list_of_values
from analysis.inputs.web_request import REQUEST_PARTS, request_reads
from analysis.shapes import (
    CalledShape,
    FrameShape,
    InputModel,
    InputPath,
    JsonTextShape,
    KeyedShape,
    Leaf,
    LeafShape,
    ListShape,
    MappingShape,
    ObjectShape,
    Param,
    RecordShape,
    SeriesShape,
    Shape,
    TupleShape,
    display,
)
from analysis.source.functions import (
    FunctionInfo,
    FunctionNode,
    all_args,
    called_function,
    constructor,
    function_defaults,
    is_classvar,
    lineage,
    renamed_by_decorator,
    required_parameters,
    signature_defaults,
)
from analysis.static.review import passed_to_helpers
from analysis.values import MISSING, EnumMember
from config.policy import Policy

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Record classes a mapping unpacked into (`Applicant(**data)`) gives its keys to.
UNPACKED_RECORDS = ("dataclass", "namedtuple", "pydantic", "typeddict")
UNPACKING_CALLS: Cache[int, dict[str, list[ast.Call]]] = Cache("calls unpacking a mapping")
# Fields that hold the amount of a measurement record (`{"value": 17, "unit": "years"}`).
VALUE_FIELDS = frozenset({"value", "val", "amount", "quantity", "magnitude", "number", "v"})

# What the builder keeps per module: what its docstrings say of names, the calls its demo
# makes, the documented calls of a record class, a caller's own model.
MODULE_DOCS: Cache[None, dict[str, str]] = Cache("module docs")
# The module's functions that ask at the prompt they are handed (answers.prompt_helpers).
PROMPT_HELPERS: Cache[None, dict[str, str]] = Cache("prompt helpers")
DEMONSTRATED_CALLS: Cache[None, dict[str, list[tuple[list[Any], dict[str, Any]]]]] = Cache(
    "demonstrated calls"
)
CLASS_EXAMPLES: Cache[int, list[dict[str, Any]]] = Cache("class examples")
CALLER_MODELS: Cache[int, InputModel] = Cache("caller models")


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

    def build(self, info: FunctionInfo, shown: dict[str, list[Any]] | None = None) -> InputModel:
        """The inputs of one function: a shape for every parameter, a pool for every leaf.
        `shown`: the texts the project's runs passed each parameter (they tell categories)."""
        fn = self.leaf_maker.function = info.node
        self.leaf_maker.shown = shown or {}
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
        words = command_line(fn, self.facts)
        for arg in [*positional, *args.kwonlyargs]:
            if arg.arg in passed_in and arg.arg not in posonly:
                by_keyword = True
                continue  # `factor=rating.gender_factor`: the call keeps the function passed in
            keyword = (by_keyword and arg.arg not in posonly) or arg.arg in kwonly
            if words is not None and arg.arg in words.handed_on:
                # `parser.parse_args(argv)`: None, so argparse reads the words of sys.argv
                path: InputPath = (("param", arg.arg),)
                given = Leaf(path, display(path), arg.arg, [None])
                leaves.append(given)
                params.append(Param(arg.arg, keyword, LeafShape(given)))
                continue
            params.append(self.parameter(info, arg, keyword, defaults, naming, leaves))
        if args.vararg is not None and not passed_in.keys() & {a.arg for a in positional}:
            # `def f(age, sex, *folds)`: the named ones go by position, then the extras.
            for param in params:
                param.keyword = param.keyword and param.name not in positional_names
            where: InputPath = (("param", args.vararg.arg),)
            spot = Spot(args.vararg.arg, None, MISSING, where, 0, None)
            people = self.records_collection(spot, fn, leaves)
            if people is not None and not isinstance(people, ListShape):
                for leaf in people.leaves():  # read as a mapping: no list of arguments
                    leaves.remove(leaf)
                people = None
            # `def count(*people): p["gender"] for p in people`: records, one per argument;
            # `age, income = args`: the arguments by position, each named as it is unpacked
            extras = (
                people
                or (self.small_tuple(spot, fn, leaves) if unpacked(fn, args.vararg.arg) else None)
                or vararg_leaf(fn, args.vararg, where, leaves)
            )
            params.append(Param(args.vararg.arg, False, extras, spread=True))
        if args.kwarg is not None:
            params += self.keyword_record(fn, args.kwarg, leaves)
        params += self.typed_answers(fn, leaves)
        params += self.command_line(words, leaves)
        params += self.web_request(fn, leaves)
        return self.finish(info, params, leaves)

    def web_request(self, fn: FunctionNode, leaves: list[Leaf]) -> list[Param]:
        """The keys a view reads of the global request's parts (web_request.py)."""
        params = []
        for part, fields in request_reads(fn, self.facts).items():
            key = REQUEST_PARTS[part]
            path: InputPath = (("param", key),)
            record = self.record(fn, fields, path, leaves, 0, local=True, owner=part)
            params.append(Param(key, True, record))
        return params

    def command_line(self, words: CommandLine | None, leaves: list[Leaf]) -> list[Param]:
        """The options and words the function reads from its command line (command_line.py)."""
        if words is None:
            return []
        fields: dict[str, Shape] = {}
        for option in words.options:
            step: InputPath = (("param", COMMAND_LINE), ("key", option.key))
            fields[option.key] = self.leaf(
                option.name,
                step,
                leaves,
                option.choices,
                option.annotation,
                option.default,
                self.told(option.name, option.help),  # `--who`, help="the patient's sex"
                closed=bool(option.choices),
            )
        return [Param(COMMAND_LINE, True, RecordShape(fields))]

    def typed_answers(self, fn: FunctionNode, leaves: list[Leaf]) -> list[Param]:
        """The answers the function reads at its own `input()` prompts (answers.py)."""
        functions = self.facts.functions
        helpers = self.facts.caches.once(PROMPT_HELPERS, lambda: prompt_helpers(functions))
        asked = prompts(fn, helpers)
        if not asked:
            return []
        items: dict[str, Shape] = {}
        for i, (name, prompt, annotation, defaulted) in enumerate(asked):
            step: InputPath = (("param", ANSWERS), ("index", i))
            # `reply = input("Where do you live (urban/rural)? ")`: the prompt says what
            asked_for = self.told(name, prompt)
            default = "" if defaulted else MISSING  # Enter, the program's default kept
            items[str(i)] = self.leaf(name, step, leaves, [], annotation, default, asked_for)
        return [Param(ANSWERS, True, TupleShape(items))]

    def told(self, name: str, text: str) -> str | None:
        """The text a program asks for an input by (a prompt, an option's help), when it
        names a category that the input's own name does not."""
        category_of = self.policy.canonical_category
        return text if not category_of(name) and category_of(text) else None

    def keyword_record(self, fn: FunctionNode, kwarg: ast.arg, leaves: list[Leaf]) -> list[Param]:
        """`def score(**applicant)`: the keys it reads are keyword arguments of the call."""
        spread = self.shape(fn, kwarg.arg, None, MISSING, (("param", kwarg.arg),), leaves, 0)
        if isinstance(spread, RecordShape):
            return [Param(kwarg.arg, True, spread, spread=True)]
        return []

    def read_docs(self, fn: FunctionNode) -> None:
        """`x: the age as integer number`: what the docstring says a parameter holds (or,
        when its own is silent, what the module's other docstrings say of the name)."""
        tree = self.facts.tree
        module_docs = self.facts.caches.once(MODULE_DOCS, lambda: module_descriptions(tree))
        self.leaf_maker.docs = {**module_docs, **param_descriptions(fn)}
        self.facts.caches.once(DOCUMENTED_FLAGS, lambda: documented_flags(tree))

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
            demonstrated = self.facts.caches.once(
                DEMONSTRATED_CALLS, lambda: demonstrated_calls(self.facts.tree, self.facts.const)
            )
            shown = demonstrated.get(fn.name, [])
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
            return [Param(first.arg, False, ObjectShape({}, cls=cls))]
        # A method gets a real instance of its class, built from the fields or constructor
        # parameters it declares, which become inputs like any other; a mix-in's method, an
        # instance of a class that mixes it in.
        owner = concrete_subclass(info.owner, info.node, self.facts) or info.owner
        instance = HeldObjects(self, info.node, leaves).instance(owner, first.arg)
        return [Param(first.arg, False, instance)]

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
            instance = HeldObjects(self, fn, leaves).instance(given, arg.arg)
            return Param(arg.arg, keyword, instance)
        if arg.arg in naming:  # the column's name, fixed: no value of what it holds
            column = Leaf(path, display(path), arg.arg, [naming[arg.arg]])
            leaves.append(column)
            return Param(arg.arg, keyword, LeafShape(column))
        own: list[Leaf] = []
        shape = self.shape(fn, arg.arg, arg.annotation, default, path, own, depth=0)
        cls = (
            plain_class(arg.annotation, self.facts)
            if arg.annotation is not None
            else duck_class(fn, arg.arg, self.facts)
        )
        if cls is not None and not any(leaf.protected for leaf in own):
            # `child: Child`, or a `holder` whose methods only Policyholder has
            # (`holder.loading()`), that its own reads find no person in: an instance built
            # as a method's is, through its constructor, when the person sits in it. One
            # that holds none (a life table) is left to the values the project's runs
            # passed (evidence/bases.py borrowed_model): made up, its calls only raise.
            held: list[Leaf] = []
            instance = HeldObjects(self, fn, held).instance(cls, arg.arg)
            if any(leaf.protected for leaf in held) or made_plainly(cls, fn, path):
                shape, own = instance, held
        leaves += own
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
                leaf.passed_to = passed_to_helpers(
                    fn, leaf, self.facts.functions, self.facts.caches
                )
        return only_people(InputModel(params, leaves), info, self.policy, self.facts)

    def class_fields(
        self,
        cls: ast.ClassDef,
        path: InputPath,
        leaves: list[Leaf],
        depth: int,
        kind: Literal["record", "new"],
        step: str | None = None,  # how the fields are read; by the kind's way if None
    ) -> ObjectShape | RecordShape:
        """A record (a TypedDict's) or an instance ("new") of the fields a class declares,
        those of the record classes of the project it derives from first."""
        step = step or ("key" if kind == "record" else "attr")
        fields: dict[str, Shape] = {}
        first = len(leaves)
        records = [c for c in lineage(cls, self.facts.classes) if self.facts.record_kind(c)]
        for stmt in [stmt for record in reversed(records) for stmt in record.body]:
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and not is_classvar(stmt.annotation)
            ):
                fname = stmt.target.id
                fdefault = self.facts.const(stmt.value) if stmt.value else MISSING
                where = (*path, (step, fname))
                alias = field_alias(stmt)
                if alias and not self.policy.canonical_category(fname):
                    if self.policy.canonical_category(alias):
                        # `years: int = Field(alias="Age")`: the data's own name says what it is
                        fields[fname] = self.leaf(
                            fname, where, leaves, [], stmt.annotation, fdefault, category_name=alias
                        )
                        continue
                fields[fname] = self.shape(
                    cls, fname, stmt.annotation, fdefault, where, leaves, depth + 1
                )
        # `>>> PatientData(age=55, sex="male", region="moderate")` in the class's docstring
        examples = self.facts.caches.value(  # every method taking the record asks again
            CLASS_EXAMPLES,
            id(cls),
            lambda: documented_arguments(cls, list(fields), self.facts.const),
        )
        seed_from_examples(examples, leaves[first:], depth=len(path))
        if kind == "new":
            return ObjectShape(fields, cls=self.facts.qualname(cls))
        return RecordShape(fields)

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
    ) -> Shape:
        """The shape of one input, read in `fn`: what the first of RECOGNISERS that applies
        builds; else a leaf (the amount of a measurement carrying its owner's category).
        `base`: the matcher of the record this is a field of, `owner` its name (`age` of
        `age["value"]`)."""
        spot = Spot(name, annotation, default, path, depth, base)
        for recogniser in RECOGNISERS:
            if recogniser.applies(spot):
                found = recogniser.build(self, spot, fn, leaves)
                if found is not None:
                    return found
        if owner and name.lower() in VALUE_FIELDS and not self.policy.canonical_category(name):
            # `patient["age"]["value"]`: the amount of a measurement is what its owner names
            return self.leaf(name, path, leaves, [], annotation, default, category_name=owner)
        return self.leaf(name, path, leaves, [], annotation, default)

    def list_of_class(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
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
        if not isinstance(item, LeafShape) or members:
            return ListShape(item)  # `list[AgeBand]`: members, the item's and a peer's
        leaves.remove(item.leaf)
        return None

    def of_enum(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """An input annotated with an enum of the project is one of its members at any depth
        (a value, not a record): code that validates it refuses made-up values."""
        annotation = spot.annotation
        if annotation is None and len(spot.path) == 1:
            annotation = self.enum_named(spot.name)
        cls = annotated_enum(annotation, self.facts)
        if cls is None:
            return None
        members = [EnumMember(self.facts.qualname(cls), m) for m in enum_members(cls)]
        # An enum whose source names no member (a base of others, members made at run time),
        # or one beside another type (`str | Sex`), leaves the leaf open to its kind's values;
        # so does a parameter only named after the enum.
        closed = bool(members) and spot.annotation is not None and names_one_type(annotation)
        name, path, annotation, default = spot.name, spot.path, spot.annotation, spot.default
        return self.leaf(name, path, leaves, members, annotation, default, closed=closed)

    def enum_named(self, name: str) -> ast.expr | None:
        """An enum of the module a parameter is named after, unannotated: `model` for `class
        Model(Enum)`, `age_band` for `AgeBand` (a member's `.name` picks a table's column)."""
        wanted = name.replace("_", "").casefold()
        for cls_name, cls in self.facts.classes.items():
            if cls_name.casefold() == wanted and self.facts.record_kind(cls) == "enum":
                return ast.Name(cls_name, ast.Load())
        return None

    def of_class(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """An input annotated with a class of the project: an instance of a dataclass, named
        tuple or pydantic model, a TypedDict's record."""
        name, path, depth, base = spot.name, spot.path, spot.depth, spot.base
        cls = annotated_class(spot.annotation, self.facts)
        if cls is None or depth >= MAX_DEPTH:
            return None
        kind = self.facts.record_kind(cls)
        if kind not in ("dataclass", "namedtuple", "pydantic", "typeddict"):
            return None
        node_kind: Literal["record", "new"] = "record" if kind == "typeddict" else "new"
        extra: dict[str, FieldRead] = {}
        if node_kind == "new":
            extra = undeclared_reads(fn, name, cls, base, self.facts, self.policy)
        if extra:
            # `patient.prior_stroke_tia` where PatientData declares no such field:
            # callers hand a duck-typed object, which no instance could stand for.
            declared = self.class_fields(cls, path, leaves, depth, "record", "attr")
            read = self.record(fn, extra, path, leaves, depth, local=True, owner=name)
            return RecordShape({**declared.fields, **read.fields})
        built = self.class_fields(cls, path, leaves, depth, node_kind)
        if node_kind == "new" and isinstance(fn, FUNCTIONS):
            # `p.age`, a property of Person worked out from `self.birth_date`: the birth
            # date is read, by the property
            HeldObjects(self, fn, leaves).mark_read_by_members(built, cls, name)
        return built

    def declared_table(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """`dict[str, Params]`, `dict[str, list[ClaimCode]]`: a table of the project's records
        by keys the declaration does not list (the provinces' parameters), read by whatever
        key; unless the function goes through its entries (then its items are people)."""
        values = mapped_values(spot.annotation)
        if values is None or spot.depth >= MAX_DEPTH:
            return None
        facts = self.facts
        if annotated_class(values, facts) is None and annotated_item_class(values, facts) is None:
            return None
        if isinstance(fn, FUNCTIONS) and iterated(fn, spot.base or name_matcher(spot.name)):
            return None
        item_path = (*spot.path, KeyedShape.first_item)
        item = self.shape(fn, spot.name, values, MISSING, item_path, leaves, spot.depth + 1)
        return KeyedShape(item)

    def person_keyed_table(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A table read by a key the person's input gives (`rates[state]`,
        `tables.provinces[province.value]`): the same item under every key, a record of what
        is read from it (`rates[state]["rate"]`, `params = rates[state]; params.credit`),
        else one value."""
        if not isinstance(fn, FUNCTIONS):
            return None
        if spot.base is None and self.facts.hints.get(spot.name.lower(), Hint()).given:
            return None  # the project passes its own table (`_clamp(bw, _WILKS_RANGE, sex)`)
        reads = person_keyed_reads(
            fn, spot.base or name_matcher(spot.name), self.facts, self.policy
        )
        if reads is None:
            return None
        item_path = (*spot.path, KeyedShape.first_item)
        accessed = record_accesses(fn, spot.name, self.facts, reads)
        if accessed:
            record = self.record(fn, accessed, item_path, leaves, spot.depth + 1, local=True)
            return KeyedShape(record)
        # one value under every key: no category of its own (`age_factors[sex]` is no age)
        return KeyedShape(
            self.leaf(spot.name, item_path, leaves, [], None, MISSING, category_name="item")
        )

    def frame(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A DataFrame of the columns the function reads; a cell is reached as df["AGEP"][0]:
        the column, then the row tried."""
        name, annotation, path = spot.name, spot.annotation, spot.path
        depth, base = spot.depth, spot.base
        if not isinstance(fn, FUNCTIONS) or base is not None or not is_frame(fn, name, annotation):
            return None
        columns = frame_columns(fn, name, self.facts)
        if depth == 0:
            columns += [c for c in self.named_columns.get(name, []) if c not in columns]
        if not columns:
            return None
        held_elsewhere = keys_held_elsewhere(fn, name, self.facts)
        return self.columns_frame(fn, columns, path, leaves, depth, held_elsewhere)

    def columns_frame(
        self,
        fn: ast.AST,
        columns: list[str],
        path: InputPath,
        leaves: list[Leaf],
        depth: int,
        held_elsewhere: bool = False,
    ) -> FrameShape:
        """A DataFrame of `columns`, one row; a cell is reached as df["AGEP"][0].
        `held_elsewhere`: it is also read by columns the source does not give."""
        cells: dict[str, InputPath] = {c: (*path, ("key", c), ("index", 0)) for c in columns}
        columns_shape = {
            col: self.shape(fn, col, None, MISSING, cell, leaves, depth + 1)
            for col, cell in cells.items()
        }
        return FrameShape(RecordShape(columns_shape, open=held_elsewhere))

    def fields_record(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A record of the keys or attributes the function reads."""
        name, path, depth = spot.name, spot.path, spot.depth
        if not isinstance(fn, FUNCTIONS):
            return None
        # `dob.year`, `gender.value`: a protected value, not a record
        accessed = object_reads(name, record_accesses(fn, name, self.facts, spot.base), self.policy)
        called = [
            attr
            for attr in called_attributes(fn, spot.base or name_matcher(name))
            if attr not in accessed and self.policy.canonical_category(attr)
        ]
        if not accessed and not called:
            return None
        record = self.record(fn, accessed, path, leaves, depth, local=True, owner=name)
        for attr in called:  # `person.age()`: a method named for the person's attribute
            where = (*path, ("attr", attr))
            value = self.shape(fn, attr, None, MISSING, where, leaves, depth + 1)
            record.fields[attr] = CalledShape(value)
        return record

    def unpacked_record(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A mapping unpacked into a call of the project (`IndividualCoreFields(**core_data)`,
        `score(**applicant)`): its keys are the fields the class declares, its constructor's
        parameters or the function's, each shaped where it is declared; with the keys the
        function reads itself."""
        if not isinstance(fn, FUNCTIONS):
            return None
        target = unpacked_into(fn, spot.name, self.facts)
        if target is None:
            return None
        path, depth = spot.path, spot.depth
        fields: dict[str, Shape] = {}
        if isinstance(target, ast.ClassDef):
            fields = dict(self.class_fields(target, path, leaves, depth, "record", "key").fields)
        else:
            callee, skip, named = target
            skip = min(skip, len(callee.args.posonlyargs) + len(callee.args.args))
            defaults = signature_defaults(callee.args)
            for arg in all_args(callee)[skip:]:
                if arg.arg in named:
                    continue  # `f(income, agi=agi, **kwargs)`: the call gives it already
                if arg.arg in defaults and self.policy.canonical_category(arg.arg) is None:
                    continue  # its own default stands: fewer inputs to search
                default = self.facts.const(defaults[arg.arg]) if arg.arg in defaults else MISSING
                where = (*path, ("key", arg.arg))
                fields[arg.arg] = self.shape(
                    callee, arg.arg, arg.annotation, default, where, leaves, depth + 1
                )
        reads = record_accesses(fn, spot.name, self.facts, spot.base)
        accessed = object_reads(spot.name, reads, self.policy)
        read = self.record(fn, accessed, path, leaves, depth, local=True, owner=spot.name)
        return RecordShape({**fields, **read.fields}) if fields or read.fields else None

    def json_text(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """Text the function decodes as JSON (`data = json.loads(payload)`, a request's
        `json.loads(event["body"])`): an object of the keys it reads from what it decodes."""
        if not isinstance(fn, FUNCTIONS):
            return None
        decoded = json_decoded(spot.base or name_matcher(spot.name))
        if not any(decoded(node) for node in decoded.nodes(fn)):
            return None
        reads = record_accesses(fn, spot.name, self.facts, decoded)
        accessed = object_reads(spot.name, reads, self.policy)
        if not accessed:
            return None
        record = self.record(fn, accessed, spot.path, leaves, spot.depth, local=True)
        return JsonTextShape(record.fields)

    def records_collection(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A list, or a mapping by id, of records whose keys or attributes the function reads
        (`for c in candidates: c["age"]`)."""
        name, path, depth = spot.name, spot.path, spot.depth
        if not isinstance(fn, FUNCTIONS):
            return None
        if spot.base is not None:  # a list a record holds: a household's members
            held = held_item_accesses(fn, spot.base, self.facts)
            if not held:
                return None
            step = ListShape.first_item
            return ListShape(self.record(fn, held, (*path, step), leaves, depth, local=False))
        collections: tuple[type[ListShape | MappingShape], ...] = (ListShape, MappingShape)
        for collection in collections:
            element = element_accesses(fn, name, self.facts, collection is MappingShape)
            if element:
                step = collection.first_item
                item = self.record(fn, element, (*path, step), leaves, depth, local=False)
                return collection(item)
        return None

    def unpacked_rows(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A list of rows a loop unpacks (`for name, age in people`): each item a tuple whose
        positions are named by the locals they go to."""
        if not isinstance(fn, FUNCTIONS) or spot.base is not None:
            return None
        named = unpacked_rows(fn, spot.name, self.facts)
        if not named:
            return None
        row = (*spot.path, ListShape.first_item)
        items: dict[str, Shape] = {
            str(i): self.shape(
                fn, local or f"{spot.name}[{i}]", None, MISSING, (*row, ("index", i)), leaves,
                spot.depth + 2,
            )
            for i, local in sorted(named.items())
        }  # fmt: skip
        return ListShape(TupleShape(items))

    def small_tuple(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A small tuple read by position: `(17, "years")`."""
        name, annotation, default = spot.name, spot.annotation, spot.default
        path, base = spot.path, spot.base
        if not isinstance(fn, FUNCTIONS):
            return None
        if annotation is not None and not sequence_annotation(annotation):
            return None
        positions = tuple_positions(fn, name, self.facts, base)
        documented = documented_items(self.examples, path) if annotation is None else 0
        if documented:
            # Documented as `(17, 'years')`: that many items, whether read in a loop
            # (`input[count + 1]`) or by branches for other shapes (`len(h) == 4`).
            positions = {i: positions.get(i, "") for i in range(documented)}
        if annotation is not None and not self.leaf_maker.named_row(name, positions):
            return None  # `months: list` read at [0] and [1]: a list of numbers, not a row
        if self.leaf_maker.held_as_tuple(name, positions):
            return self.leaf_maker.tuple_shape(name, positions, path, leaves, default)
        return None

    def keyed_record(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """`params[key]` for keys held elsewhere: a record whose keys the calls will tell."""
        facts = self.facts
        if strings_name_people(facts, self.policy) and keyed_by_text(fn, spot.name, facts):
            return RecordShape({})
        return None

    def model_table(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A table whose columns are named elsewhere: handed to a DataFrame's constructor or
        to a fitted model, its columns are learnt from the calls that fail for them."""
        if isinstance(fn, FUNCTIONS) and handed_to_a_table(fn, spot.name, self.facts.classes):
            return FrameShape(RecordShape({}))
        return None

    def series(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """A Series: one value per person, written through a boolean mask."""
        name, annotation, default, path = spot.name, spot.annotation, spot.default, spot.path
        if annotation is None and isinstance(fn, FUNCTIONS) and vectorised(fn, name):
            # `kappa = 0.9 - 0.2 * female; kappa[ratio < 1] = ...`: a Series, tried in its
            # first row with a peer in the second (the leaf is the parameter itself: the
            # static review reads the column as the code does)
            return SeriesShape(self.leaf(name, path, leaves, [], annotation, default))
        return None

    def value_list(self, spot: Spot, fn: ast.AST, leaves: list[Leaf]) -> Shape | None:
        """Many people's values, one per item (`for a in ages`, value_lists.py)."""
        return list_of_values(spot.name, spot.annotation, spot.path, fn, leaves, self)

    def caller_model(self, info: FunctionInfo) -> InputModel:
        """A caller's inputs by their own names, built once per module."""

        def build() -> InputModel:
            return InputBuilder(self.facts, self.policy, from_callers=False).build(info)

        return self.facts.caches.value(CALLER_MODELS, id(info.node), build)

    def record(
        self,
        fn: ast.AST,
        accessed: dict[str, FieldRead],
        path: InputPath,
        leaves: list[Leaf],
        depth: int,
        local: bool,
        owner: str = "",
    ) -> RecordShape:
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
                for leaf in fields[fname].leaves():
                    leaf.read_in = leaf.read_in or where.name  # the helper reading it
        return RecordShape(fields)


@dataclass(frozen=True)
class Recogniser:
    """One shape `InputBuilder.shape` can recognise: where it `applies` (a cheap test of the
    spot: how deep, whether a field of a record), and its `build`, which reads the code and
    gives the shape, or None when the code does not read the input so after all."""

    name: str
    applies: Callable[[Spot], bool]
    build: Callable[[InputBuilder, Spot, ast.AST, list[Leaf]], Shape | None]


def anywhere(spot: Spot) -> bool:
    return True


def plain_class(annotation: ast.expr | None, facts: ModuleFacts) -> ast.ClassDef | None:
    """The class of the project an annotation names, when it is no record or enum (those
    have recognisers of their own: their fields are declared)."""
    cls = annotated_class(annotation, facts)
    return cls if cls is not None and facts.record_kind(cls) is None else None


def duck_class(fn: FunctionNode, name: str, facts: ModuleFacts) -> ast.ClassDef | None:
    """The one class of the module whose methods include every method `fn` calls on
    parameter `name` (`table.npx(age, n)`), when it calls some."""
    called = methods_called(fn, name)
    if not called:
        return None
    found = {
        id(cls): cls
        for cls in facts.classes.values()
        if facts.record_kind(cls) is None and called <= method_names(cls)
    }
    return next(iter(found.values())) if len(found) == 1 else None


def method_names(cls: ast.ClassDef) -> set[str]:
    return {
        stmt.name
        for stmt in cls.body
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name != "__init__"
    }


def unpacked(fn: FunctionNode, name: str) -> bool:
    """Whether `fn` unpacks `name` whole into names (`age, income = args`): each argument
    is then one input; read now and then by position (`if args: args[0]`), it is not."""
    return any(
        isinstance(node, ast.Assign)
        and isinstance(node.targets[0], (ast.Tuple, ast.List))
        and isinstance(node.value, ast.Name)
        and node.value.id == name
        for node in ast.walk(fn)
    )


def made_plainly(cls: ast.ClassDef, fn: ast.AST, path: InputPath) -> bool:
    """Whether an object whose methods `fn` calls (`engine.evaluate(applicant)`) is one its
    class makes without being given anything: a real one, not made up."""
    init = constructor(cls)
    required = required_parameters(init)[1:] if init is not None else []
    return not required and calls_methods_of(fn, path)


def within_depth(spot: Spot) -> bool:
    """Not nested so deep that reading on would not end (a record of itself)."""
    return spot.depth < MAX_DEPTH


def whole_parameter(spot: Spot) -> bool:
    """A parameter of the function itself, not a field of one."""
    return spot.depth == 0 and spot.base is None


# The order is the priority. What an annotation declares beats what reads suggest (an enum's
# member first: a value at any depth, where a record's depth is bounded); a frame
# is read by keys as a record is, so it is tried first; a record's own fields before its
# items; the shapes only a whole parameter takes come last, and what is left is a leaf.
RECOGNISERS: tuple[Recogniser, ...] = (
    Recogniser("member of a project enum", anywhere, InputBuilder.of_enum),
    Recogniser("list of a project class", anywhere, InputBuilder.list_of_class),
    Recogniser("instance of a project class", anywhere, InputBuilder.of_class),
    Recogniser("table of a declared type", anywhere, InputBuilder.declared_table),
    Recogniser("DataFrame", within_depth, InputBuilder.frame),
    Recogniser("text of JSON", within_depth, InputBuilder.json_text),
    Recogniser("mapping unpacked into a call", within_depth, InputBuilder.unpacked_record),
    Recogniser("table read by the person's key", within_depth, InputBuilder.person_keyed_table),
    Recogniser("record of the fields read", within_depth, InputBuilder.fields_record),
    Recogniser("list or mapping of records", within_depth, InputBuilder.records_collection),
    Recogniser("list of rows a loop unpacks", within_depth, InputBuilder.unpacked_rows),
    Recogniser("small tuple", within_depth, InputBuilder.small_tuple),
    Recogniser("record keyed by text held elsewhere", whole_parameter, InputBuilder.keyed_record),
    Recogniser("table of columns named elsewhere", whole_parameter, InputBuilder.model_table),
    Recogniser("Series", whole_parameter, InputBuilder.series),
    Recogniser("list of values", whole_parameter, InputBuilder.value_list),
)


def unpacked_into(
    fn: FunctionNode, name: str, facts: ModuleFacts
) -> ast.ClassDef | tuple[FunctionNode, int, frozenset[str]] | None:
    """What `fn` unpacks the mapping `name` into (`Record(**name)`, `helper(**name)`): a
    record class of the project, or a function of it (or a plain class's constructor) with
    how many of its first parameters the mapping does not give (`self`, what the call passes
    by position) and the ones the call names."""
    calls = facts.caches.value(UNPACKING_CALLS, id(fn), lambda: unpacking_calls(fn))
    for node in calls.get(name, []):
        cls = annotated_class(node.func, facts)
        if cls is not None and facts.record_kind(cls) in UNPACKED_RECORDS:
            return cls
        given = len([a for a in node.args if not isinstance(a, ast.Starred)])
        if cls is not None and (init := constructor(cls)) is not None:
            return init, 1 + given, named_keywords(node)
        called = called_function(node, facts.functions)
        if called is not None:
            return called[0], (1 if called[1] else 0) + given, named_keywords(node)
    return None


def named_keywords(call: ast.Call) -> frozenset[str]:
    """The keywords a call gives by name (`f(income, agi=agi, **kwargs)`: "agi"), which the
    mapping it unpacks beside them must not hold again."""
    return frozenset(k.arg for k in call.keywords if k.arg is not None)


def unpacking_calls(fn: FunctionNode) -> dict[str, list[ast.Call]]:
    """The calls of `fn` that unpack a name as keywords (`f(**name)`), by that name: one walk
    per function, however many of its inputs ask."""
    found: dict[str, list[ast.Call]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            for k in node.keywords:
                if k.arg is None and isinstance(k.value, ast.Name):
                    found.setdefault(k.value.id, []).append(node)
    return found


# The keywords of pydantic's `Field` that give the name a field has in the data.
ALIAS_KEYWORDS = frozenset({"alias", "validation_alias", "serialization_alias"})


def field_alias(stmt: ast.AnnAssign) -> str | None:
    """The name a declared field has in the data: `Field(alias="Age")`, as its value or in
    its `Annotated[int, Field(alias="Age")]`."""
    calls = [stmt.value] if isinstance(stmt.value, ast.Call) else []
    annotation = stmt.annotation
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple):
        calls += [e for e in annotation.slice.elts[1:] if isinstance(e, ast.Call)]
    for call in calls:
        for keyword in call.keywords:
            if keyword.arg in ALIAS_KEYWORDS and isinstance(keyword.value, ast.Constant):
                if isinstance(keyword.value.value, str):
                    return keyword.value.value
    return None


# Annotations of a mapping: `dict[str, Params]`, `Mapping[str, float]`.
MAPPING_TYPES = frozenset({"dict", "Dict", "Mapping", "MutableMapping"})


def called_attributes(fn: FunctionNode, holder: Matcher) -> list[str]:
    """The attributes of what `holder` matches that `fn` calls with no arguments
    (`person.age()`), in order."""
    found: list[str] = []
    for node in holder.nodes(fn):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and not node.args
            and not node.keywords
            and holder(node.func.value)
            and not node.func.attr.startswith("_")
            and getter_field(node.func.attr) is None  # `get_age()`: a getter (reads_input)
            and node.func.attr not in found
        ):
            found.append(node.func.attr)
    return found


# What goes through a mapping's entries: `offers.items()`, `for k in table`.
ENTRY_METHODS = frozenset({"items", "values", "keys"})


def iterated(fn: FunctionNode, mapping: Matcher) -> bool:
    """Whether `fn` goes through the entries of what `mapping` matches."""
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and mapping(node.iter):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ENTRY_METHODS
            and mapping(node.func.value)
        ):
            return True
    return False


def mapped_values(annotation: ast.expr | None) -> ast.expr | None:
    """The annotation of the values of a mapping annotated `dict[K, V]` (`dict[str,
    Params]`, `Mapping[str, list[ClaimCode]]`)."""
    if not isinstance(annotation, ast.Subscript):
        return None
    container = annotation.value
    name = container.attr if isinstance(container, ast.Attribute) else getattr(container, "id", "")
    items = annotation.slice
    if name not in MAPPING_TYPES or not isinstance(items, ast.Tuple) or len(items.elts) != 2:
        return None
    return items.elts[1]


# A list or tuple declared without saying what is where: `patient: list` read as `patient[0]`
# for the age and `patient[3]` for the sex.
SEQUENCE_TYPES = frozenset({"list", "tuple", "List", "Tuple", "Sequence"})


def sequence_annotation(annotation: ast.expr) -> bool:
    """Whether an annotation says only that a value is a list or tuple (`list`,
    `tuple[float, ...]`, `typing.List`)."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if isinstance(annotation, ast.Attribute):
        return annotation.attr in SEQUENCE_TYPES
    return isinstance(annotation, ast.Name) and annotation.id in SEQUENCE_TYPES
