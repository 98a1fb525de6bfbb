"""Builds the `InputModel` of one function from its module's facts and the policy: the shape
of every parameter (a leaf, a record, an instance of a module class, a list of records) and
the value pool of every leaf."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from analysis.facts.annotations import annotation_kind, literal_choices
from analysis.facts.callers import category_from_callers
from analysis.facts.fieldreads import (
    Matcher,
    calls_methods_of,
    column_parameters,
    element_accesses,
    field_matcher,
    frame_columns,
    is_frame,
    name_matcher,
    record_accesses,
    required_attributes,
    tuple_positions,
    vectorised,
)
from analysis.facts.hint import Hint
from analysis.facts.module import ModuleFacts
from analysis.facts.param_docs import documented_flags, module_descriptions, param_descriptions
from analysis.facts.people import only_people
from analysis.inputs.doc_examples import (
    MAX_EXAMPLES,
    bind_calls,
    demonstrated_calls,
    documented_arguments,
    documented_items,
    seed_from_examples,
)
from analysis.inputs.pools import age_form, typical_index, value_pool
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
    call_bindings,
    called_function,
    function_defaults,
    is_classvar,
    record_class_kind,
)
from analysis.static.review import passed_to_helpers
from analysis.static.taint import leaf_matches
from analysis.values import MISSING, EnumMember, is_number
from config.policy import FLAG_PREFIXES, Policy, contains_run, name_tokens

# Attributes that values themselves have: reading them does not make a record.
VALUE_ATTRIBUTES = frozenset({"year", "month", "day", "value", "name", "days", "real"})
# What a method's first parameter is called when it is the instance. Any other name is a
# function kept in a class and called through it: `formula(person, period, parameters)` of a
# tax-benefit `Variable`.
INSTANCE_NAMES = frozenset({"self", "cls", "mcs", "klass", "this"})
LIST_ANNOTATIONS = frozenset(
    {"list", "List", "Sequence", "Iterable", "Iterator", "Collection", "tuple", "Tuple", "set",
     "Set", "frozenset", "FrozenSet", "MutableSequence", "AbstractSet"}
)  # fmt: skip


MAX_DEPTH = 3
# Categories whose words name a person's attribute in any description ("the age", "sex of").
UNAMBIGUOUS_IN_PROSE = frozenset({"age", "gender", "race"})
# How a module names the function that makes a thing: `load_tables()` for `tables`.
MAKER_VERBS = ("load", "get", "make", "build", "create", "default", "read", "new")
# Fields that hold the amount of a measurement record (`{"value": 17, "unit": "years"}`).
VALUE_FIELDS = frozenset({"value", "val", "amount", "quantity", "magnitude", "number", "v"})


class InputBuilder:
    """Builds the InputModel of one function from the module's facts and the policy."""

    def __init__(self, facts: ModuleFacts, policy: Policy, from_callers: bool = True) -> None:
        """`from_callers`: a parameter its names leave open takes what the module's calls
        pass it (analysis.facts.callers); off for the callers themselves, one step only."""
        self.facts = facts
        self.policy = policy
        self.docs: dict[str, str] = {}
        self.examples: list[dict[str, Any]] = []
        self.from_callers = from_callers
        self.function: FunctionNode | None = None
        # The columns parameters of the function name, by the table they name them in.
        self.named_columns: dict[str, list[str]] = {}

    def build(self, info: FunctionInfo) -> InputModel:
        fn = self.function = info.node
        # `x: the age as integer number`: what the docstring says a parameter holds (or,
        # when its own is silent, what the module's other docstrings say of the name)
        key = ("module docs",)
        if key not in self.facts.memo:
            self.facts.memo[key] = module_descriptions(self.facts.tree)
        self.docs = {**self.facts.memo[key], **param_descriptions(fn)}
        if ("documented flags",) not in self.facts.memo:
            self.facts.memo[("documented flags",)] = documented_flags(self.facts.tree)
        args = fn.args
        positional = [*args.posonlyargs, *args.args]
        leaves: list[Leaf] = []
        params: list[Param] = []
        decorators = info.decorators
        # `>>> f(...)` in the docstring: values its author wrote down, in the shape wanted
        bound_first = info.owner is not None and "staticmethod" not in decorators
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
        if (
            info.owner is not None
            and "staticmethod" not in decorators
            and positional
            and positional[0].arg in INSTANCE_NAMES
        ):
            first, positional = positional[0], positional[1:]
            if "classmethod" not in decorators and info.name == "__init__":
                # The constructor itself sets the instance up from its own parameters: the
                # instance it is given starts empty (what it ends as is the output).
                cls = self.facts.qualname(info.owner)
                params.append(Param(first.arg, False, Node("new", fields={}, cls=cls)))
            elif "classmethod" not in decorators:
                # A method gets a real instance of its class, built from the fields or
                # constructor parameters it declares, which become inputs like any other.
                self_shape = self.instance_shape(info.owner, first.arg, leaves)
                params.append(Param(first.arg, False, self_shape))
        posonly = {a.arg for a in args.posonlyargs}
        positional_names = {a.arg for a in positional}
        defaults = dict(
            zip(
                [a.arg for a in [*args.posonlyargs, *args.args]][::-1],
                args.defaults[::-1],
                strict=False,
            )
        )
        defaults.update(
            {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d}
        )
        passed_in = function_defaults(fn, self.facts.functions)
        # `add_risk(df, age_col=None, sex_col=None)`: parameters that name the table's
        # columns hold those names, and the table those columns.
        naming: dict[str, str] = {}
        self.named_columns = {}
        for arg in [*positional, *args.kwonlyargs]:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_frame(
                fn, arg.arg, arg.annotation
            ):
                texts = {k: self.facts.const(v) for k, v in defaults.items()}
                columns = column_parameters(fn, arg.arg, texts)
                naming.update(columns)
                self.named_columns[arg.arg] = list(dict.fromkeys(columns.values()))
        # Parameters go by keyword, unless a decorator of the project puts a wrapper with
        # parameters of its own names in front (`def inner(data)`, no functools.wraps): then
        # by position, as callers do. Past a parameter left to its default, by keyword.
        kwonly = {a.arg for a in args.kwonlyargs}
        by_keyword = not renamed_by_decorator(info, self.facts)
        for arg in [*positional, *args.kwonlyargs]:
            if arg.arg in passed_in and arg.arg not in posonly:
                by_keyword = True
                continue  # `factor=rating.gender_factor`: the call keeps the function passed in
            keyword = (by_keyword and arg.arg not in posonly) or arg.arg in kwonly
            default = self.facts.const(defaults[arg.arg]) if arg.arg in defaults else MISSING
            path: InputPath = (("param", arg.arg),)
            given = (
                self.facts.given_self(fn, arg.arg)
                if info.owner is not None and arg.annotation is None
                else None
            )
            if given is not None:  # the module's own calls pass an instance of one class
                params.append(Param(arg.arg, keyword, self.instance_shape(given, arg.arg, leaves)))
                continue
            if arg.arg in naming:  # the column's name, fixed: no value of what it holds
                column = Leaf(path, display(path), arg.arg, [naming[arg.arg]])
                leaves.append(column)
                params.append(Param(arg.arg, keyword, Node("leaf", leaf=column)))
                continue
            shape = self.shape(fn, arg.arg, arg.annotation, default, path, leaves, depth=0)
            params.append(Param(arg.arg, keyword, shape))
        if args.vararg is not None and not passed_in.keys() & {a.arg for a in positional}:
            # `def f(age, sex, *folds)`: the named ones go by position, then the extras.
            for param in params:
                param.keyword = param.keyword and param.name not in positional_names
            extras = vararg_leaf(fn, args.vararg, (("param", args.vararg.arg),), leaves)
            params.append(Param(args.vararg.arg, False, extras, spread=True))
        if args.kwarg is not None:
            # `def score(**applicant)`: the keys it reads are keyword arguments of the call.
            spread = self.shape(
                fn, args.kwarg.arg, None, MISSING, (("param", args.kwarg.arg),), leaves, 0
            )
            if spread.kind == "record":
                params.append(Param(args.kwarg.arg, True, spread, spread=True))
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

    def names_a_column(self, default: Any, category: str) -> bool:
        """Whether a default names where the attribute is kept rather than giving one:
        `AKIFlagger(age="age", sex="sex")` takes a frame's column names. A value of the
        category (`sex="female"`) is a value."""
        if not isinstance(default, str) or self.policy.canonical_category(default) != category:
            return False
        values = {str(v).casefold() for v in self.policy.protected[category].values}
        return default.strip().casefold() not in values

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
    ) -> dict[str, tuple[ast.AST, Matcher, str]]:
        """Attributes a function reads from its record that the record's class (and its bases
        in the module) never declares; none when it calls the record's own methods, which a
        stand-in would lack."""
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or calls_methods_of(
            fn, name
        ):
            return {}
        declared = self.declared_names(cls)
        # Needed (`patient.prior_stroke_tia`, `hasattr(patient, "creatinine")` or raise):
        # `getattr(patient, "x", False)` copes with an instance that lacks it, as the class's
        # callers' instances do.
        reads = record_accesses(fn, name, self.facts, base)
        # A person's attribute it looks for with a default (`getattr(patient,
        # "education_high", False)`) is one the callers' objects carry: tried too.
        asked = {attr for attr in reads if self.policy.canonical_category(attr)}
        needed = (required_attributes(fn, name, self.facts) | asked) - declared
        return {
            attr: reads.get(attr) or (fn, field_matcher(name_matcher(name), attr), "attr")
            for attr in sorted(needed)
            if not attr.startswith(("_", "model_"))
        }

    def declared_names(self, cls: ast.ClassDef, depth: int = 0) -> set[str]:
        """Every name a class body binds (fields, methods, properties), with its bases'."""
        names: set[str] = set()
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                names.add(stmt.target.id)
            elif isinstance(stmt, ast.Assign):
                names |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(stmt.name)
        for parent in cls.bases:
            found = self.annotated_class(parent)
            if found is not None and found is not cls and depth < MAX_DEPTH:
                names |= self.declared_names(found, depth + 1)
        return names

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
        """`owner`: the name of the record this is a field of (`age` of `age["value"]`)."""
        item_class = self.annotated_item_class(annotation)
        if item_class is not None and depth < MAX_DEPTH:
            # `list[Applicant]`: items are instances of a class of the project.
            list_item: InputPath = (*path, ("index", 0))
            item = self.shape(fn, name, item_class, MISSING, list_item, leaves, depth + 1)
            if item.kind != "leaf":
                return Node("list", item=item)
            leaves.remove(item.leaf)  # type: ignore[arg-type]
        cls = self.annotated_class(annotation)
        if cls is not None and depth < MAX_DEPTH:
            kind = record_class_kind(cls)
            if kind == "enum":
                members = [
                    EnumMember(self.facts.qualname(cls), m)
                    for m in self.facts.enums.get(cls.name, [])
                ]
                return self.leaf(name, path, leaves, members, annotation, default)
            if kind in ("dataclass", "namedtuple", "pydantic", "typeddict"):
                node_kind = "record" if kind == "typeddict" else "new"
                extra = self.undeclared_reads(fn, name, cls, base) if node_kind == "new" else {}
                if extra:
                    # `patient.prior_stroke_tia` where PatientData declares no such field:
                    # callers hand a duck-typed object, which no instance could stand for.
                    declared = self.class_fields(cls, path, leaves, depth, "record", "attr")
                    read = self.record(fn, extra, path, leaves, depth, local=True, owner=name)
                    return Node("record", fields={**declared.fields, **read.fields})
                return self.class_fields(cls, path, leaves, depth, node_kind)
        if (
            depth < MAX_DEPTH
            and base is None
            and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            and is_frame(fn, name, annotation)
        ):
            columns = frame_columns(fn, name, self.facts)
            if depth == 0:
                columns += [c for c in self.named_columns.get(name, []) if c not in columns]
            if columns:
                # A cell is reached as df["AGEP"][0]: the column, then the row tried.
                cells: dict[str, InputPath] = {
                    c: (*path, ("key", c), ("index", 0)) for c in columns
                }
                columns_shape = {
                    col: self.shape(fn, col, None, MISSING, cell, leaves, depth + 1)
                    for col, cell in cells.items()
                }
                return Node("frame", item=Node("record", fields=columns_shape))
        if depth < MAX_DEPTH and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            accessed = record_accesses(fn, name, self.facts, base)
            if (
                set(accessed) <= VALUE_ATTRIBUTES
                and all(style == "attr" for _, _, style in accessed.values())
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
            if annotation is None and self.held_as_tuple(name, positions):
                return self.tuple_shape(name, positions, path, leaves, default)
        if (
            depth == 0
            and base is None
            and self.strings_name_people()
            and keyed_by_text(fn, name, self.facts)
        ):
            # `params[key]` for keys held elsewhere: a record whose keys the calls will tell
            return Node("record", fields={})
        if (
            depth == 0
            and base is None
            and annotation is None
            and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            and vectorised(fn, name)
        ):
            # `kappa = 0.9 - 0.2 * female; kappa[ratio < 1] = ...`: a Series, tried in its
            # first row with a peer in the second (the leaf is the parameter itself: the
            # static review reads the column as the code does)
            return Node("series", item=self.leaf(name, path, leaves, [], annotation, default))
        if owner and name.lower() in VALUE_FIELDS and not self.policy.canonical_category(name):
            # `patient["age"]["value"]`: the amount of a measurement is what its owner names
            return self.leaf(name, path, leaves, [], annotation, default, category_name=owner)
        return self.leaf(name, path, leaves, [], annotation, default)

    def names_a_value(self, name: str, category: str, kinds: set[str]) -> bool:
        """`female`, `black`: a parameter named for one value of its category, only tested for
        truth or used as a number (`0.9 - 0.2 * female`), is the flag of that value."""
        values = {str(v).lower() for v in self.policy.protected[category].values}
        return bool(kinds) and kinds <= FLAG_KINDS and name.lower() in values

    def caller_model(self, info: FunctionInfo) -> InputModel:
        """A caller's inputs by their own names, built once per module."""
        key = ("caller model", id(info.node))
        if key not in self.facts.memo:
            builder = InputBuilder(self.facts, self.policy, from_callers=False)
            self.facts.memo[key] = builder.build(info)
        model: InputModel = self.facts.memo[key]
        return model

    def documented_category(self, description: str, name: str) -> str | None:
        """The category a parameter's description names: "the age as integer number" is an
        age. Words that name other things too ("the degree of the node") count only beside a
        person ("degree of the applicant"). Another parameter named in it is that parameter,
        not this one ("unit of `start_age`")."""
        others = [n for n in self.docs if n != name and len(n) > 2]
        if others:
            description = re.sub(
                r"\b(?:" + "|".join(map(re.escape, others)) + r")\b", " ", description
            )
        category = self.policy.canonical_category(description)
        if category is None or category in UNAMBIGUOUS_IN_PROSE:
            return category
        tokens = name_tokens(description)
        markers = [name_tokens(m) for m in self.policy.people.markers]
        return category if any(m and contains_run(tokens, m) for m in markers) else None

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

    def held_as_tuple(self, name: str, positions: dict[int, str]) -> bool:
        """Whether a value is a small tuple read by position: `age[0]` of `(17, "years")`, or
        unpacked (`value, unit = weight`). One read of `x[0]` alone is the first letter of a
        word as often: so only for a value the code never compares with text, of no category
        but age."""
        if not positions:
            return False
        if len(positions) >= 2 or min(positions) > 0:
            return True
        category = self.policy.canonical_category(name)
        if category not in (None, "age"):
            return False
        return "str" not in self.facts.hints.get(name.lower(), Hint()).kinds

    def tuple_shape(
        self,
        name: str,
        positions: dict[int, str],
        path: InputPath,
        leaves: list[Leaf],
        default: Any,
    ) -> Node:
        """The tuple's items: the one that carries the value (the local named for its
        category, else the first) keeps the name; the others (a unit...) take the names the
        code gives them, and are no protected input."""
        category = self.policy.canonical_category(name)
        carrier = next(
            (
                i
                for i, local in sorted(positions.items())
                if category and local and self.policy.canonical_category(local) == category
            ),
            0,
        )
        items: dict[str, Node] = {}
        for i in range(max(positions) + 1):
            step: InputPath = (*path, ("index", i))
            if i == carrier:
                items[str(i)] = self.leaf(name, step, leaves, [], None, MISSING)
            else:
                local = positions.get(i) or f"{name}[{i}]"
                item = self.leaf(local, step, leaves, [], None, MISSING, category_name="")
                if category == "age" and item.leaf is not None:
                    in_years(item.leaf)
                items[str(i)] = item
        return Node("tuple", fields=items)

    def record(
        self,
        fn: ast.AST,
        accessed: dict[str, tuple[ast.AST, Matcher, str]],
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
                where,
                fname,
                None,
                MISSING,
                (*path, (style.split()[0], fname)),
                leaves,
                depth + 1,
                # a read through a helper (`get_value(p, "age")`) goes on in the helper
                matcher if (where is fn or not local or style.endswith("via helper")) else None,
                owner,
            )
            for fname, (where, matcher, style) in accessed.items()
        }
        for fname, (where, _, _) in accessed.items():
            if where is not fn and isinstance(where, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for leaf in leaves_of(fields[fname]):
                    leaf.read_in = leaf.read_in or where.name  # the helper reading it
        return Node("record", fields=fields)

    def annotated_class(self, annotation: ast.expr | None) -> ast.ClassDef | None:
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            return self.facts.classes.get(annotation.value.strip("'\"").split(".")[-1])
        if isinstance(annotation, ast.Name):
            return self.facts.classes.get(annotation.id)
        if isinstance(annotation, ast.Attribute):  # `League.Level`, `models.Applicant`
            return self.facts.classes.get(annotation.attr)
        if isinstance(annotation, ast.BinOp):
            return self.annotated_class(annotation.left) or self.annotated_class(annotation.right)
        if isinstance(annotation, ast.Subscript):
            base = getattr(annotation.value, "id", "")
            if base == "Optional":
                return self.annotated_class(annotation.slice)
        return None

    def annotated_item_class(self, annotation: ast.expr | None) -> ast.expr | None:
        """`Applicant` of `list[Applicant]` (or Sequence, Iterable, set...) when it names a
        class of the project."""
        if not isinstance(annotation, ast.Subscript):
            return None
        base = annotation.value
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name == "Optional":
            return self.annotated_item_class(annotation.slice)
        if name not in LIST_ANNOTATIONS:
            return None
        inner = annotation.slice
        if isinstance(inner, ast.Tuple) and inner.elts:  # tuple[Applicant, ...]
            inner = inner.elts[0]
        return inner if self.annotated_class(inner) is not None else None

    def name_hint(self, name: str, category: str | None) -> Hint:
        """What the module says of `name`, and of every name of its category (`sex` in a
        helper, `gender` here share values); computed once per module, never mutated."""
        key = ("hint", name.lower(), category)
        if key not in self.facts.memo:
            merged = Hint()
            merged.merge(self.facts.hints.get(name.lower(), Hint()))
            if category is not None:
                merged.merge(self.category_hint(category))
            for value in self.facts.domain_of(merged.constants):
                merged.add(value)
            self.facts.memo[key] = merged
        hint: Hint = self.facts.memo[key]
        return hint

    def category_hint(self, category: str) -> Hint:
        """What the module says of every name of a category, merged once per module (a
        function reading a thousand keys of one category asks for each)."""
        key = ("category hint", category)
        if key not in self.facts.memo:
            merged = Hint()
            for other, other_hint in list(self.facts.hints.items()):
                if self.policy.canonical_category(other) == category:
                    merged.merge(other_hint)
            self.facts.memo[key] = merged
        hint: Hint = self.facts.memo[key]
        return hint

    def leaf(
        self,
        name: str,
        path: InputPath,
        leaves: list[Leaf],
        choices: list[Any],
        annotation: ast.expr | None,
        default: Any,
        category_name: str | None = None,
    ) -> Node:
        """`category_name`: the name whose category the leaf carries, when not its own
        ("" for none): the "value" of `patient["age"]["value"]` is an age."""
        category = self.policy.canonical_category(name if category_name is None else category_name)
        if (
            category is None
            and category_name is None
            and len(path) == 1
            and name in self.docs
            and not self.policy.excluded_name(name)  # `age_unit`: its name says what it is
        ):
            category = self.documented_category(self.docs[name], name)
        if (
            category is None
            and category_name is None
            and len(path) == 1
            and self.from_callers
            and self.function is not None
            and not self.policy.excluded_name(name)
        ):
            category = category_from_callers(self.function, name, self.facts, self.caller_model)
        if category is not None and self.names_a_column(default, category):
            category = None  # `age="age"`: the name of a column of ages, not an age
        hint = self.name_hint(name, category)
        declared: list[Any] = []
        if annotation is not None:
            kind = annotation_kind(annotation)
            if kind and kind not in hint.kinds:
                hint = replace(hint, kinds=hint.kinds | {kind})
            declared = literal_choices(annotation, self.facts)
            choices = choices or declared
        # How this input carries an age is its own business: `dob.year` in one function says
        # nothing about a `dateOfBirth` string in another.
        own_hint = self.facts.hints.get(name.lower(), Hint())
        own = set(own_hint.kinds)
        if all(c is None or isinstance(c, bool) for c in own_hint.constants):
            own.discard("other")  # `if is_male is None:` checks for a missing flag
        if annotation is not None:
            own.add(annotation_kind(annotation) or "")
            if own & {"int", "float"}:
                # `d: float` here, whatever `d` is elsewhere in the module (`d.year`)
                own -= {"dateobj", "isodate"}
        elif name in self.facts.memo.get(("documented flags",), ()):
            own.add("bool")  # `is_north_american (bool): ...`
        form = age_form(name, own) if category == "age" else None
        if category is not None and (
            is_flag(name, own)
            or self.names_a_value(name, category, own)
            or (
                coded_field(path, own, self.facts.hints.get(name.lower()))
                and not any(is_number(v) for v in self.policy.protected[category].values)
            )
        ):
            # `is_female: bool`, `isBlack`: the flag's own two values, never the category's
            # words (a non-empty string is always truthy).
            choices, hint = [True, False], Hint(kinds={"bool"})
        # The same name in many functions gets the same pool: computed once per module.
        key = (
            "pool", name.lower(), category, frozenset(hint.kinds), repr(choices), form,
            type(default), repr(default), frozenset(own),
        )  # fmt: skip
        if key not in self.facts.memo:
            self.facts.memo[key] = value_pool(
                hint, choices, category, self.policy, default, form, name, frozenset(own)
            )
        pool, from_code = self.facts.memo[key]
        pool = list(pool)
        if declared:  # `Literal["white", "black"]`: "White" is refused, rest on one declared
            hint = replace(hint, accepted=[*hint.accepted, *declared])
        leaf = Leaf(
            path,
            display(path),
            name,
            pool,
            category,
            typical_index(pool, category, self.policy, default, hint, frozenset(own)),
            from_code=from_code,
            declared=tuple(declared),
        )
        leaves.append(leaf)
        return Node("leaf", leaf=leaf)


TIME_UNITS = frozenset({"year", "years", "month", "months", "week", "weeks", "day", "days"})


def in_years(unit: Leaf) -> None:
    """The unit beside an age (`(49, "years")`), when the code names units of time, rests on
    years: the policy's ages are years, and 70 months is no one of 70."""
    words = [v for v in unit.pool if isinstance(v, str) and v.strip().casefold() in TIME_UNITS]
    if not words:
        return
    years = next((v for v in words if v.strip().casefold() in ("year", "years")), None)
    if years is None:
        years = "years"
        unit.pool.insert(0, years)
        unit.from_code += 1
    unit.typical = unit.pool.index(years)


def spread_typicals(leaves: list[Leaf], policy: Policy) -> None:
    """Numeric inputs of one category rest on different values: the ages of four reference
    rows around a child's age, all at 30, only divide by zero (`age_one_below - age_one_above`)."""
    groups: dict[str, list[Leaf]] = {}
    for leaf in leaves:
        value = leaf.pool[leaf.typical] if leaf.pool else None
        in_group = any(step in ("index", "key") for step, _ in leaf.path[1:])
        if leaf.category is not None and isinstance(value, (int, float)) and not in_group:
            if not isinstance(value, bool):
                groups.setdefault(leaf.category, []).append(leaf)
    for category, group in groups.items():
        taken: set[Any] = set()
        ordered = [
            v
            for v in policy.protected[category].values
            if isinstance(v, (int, float)) and not isinstance(v, bool)
        ]
        for leaf in group:
            value = leaf.pool[leaf.typical]
            if value in taken:  # only a clash moves: `start=0.0, end=20.0` keep their defaults
                value = next((v for v in ordered if v not in taken and v in leaf.pool), value)
                leaf.typical = leaf.pool.index(value)
            taken.add(value)


def vararg_leaf(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    vararg: ast.arg,
    path: InputPath,
    leaves: list[Leaf],
) -> Node:
    """`__init__(self, age, sex, *args)`: the extra positional arguments, as one input (at
    `path`) whose values are whole lists of them. How many the code wants comes from the
    lengths it checks (`if len(self.skinfolds) != 4: raise`); each is a number, or a list of
    numbers when annotated as one (`*args: Sequence[int]`). Without a length check, none is
    the base, as a caller that passes nothing."""
    lengths = sorted(checked_lengths(init)) or [0, 1, 2, 3]
    sequences = annotation_kind(vararg.annotation) == "list" if vararg.annotation else False
    pool: list[Any] = []
    for n in lengths:
        numbers = [12 + 3 * i for i in range(n)]
        pool.append([numbers] if sequences else numbers)
    leaf = Leaf(path, display(path), vararg.arg, pool)
    leaves.append(leaf)
    return Node("leaf", leaf=leaf)


def required_parameters(fn: ast.FunctionDef) -> list[str]:
    """The parameters a call must pass: those without a default (not `*args`, `**kwargs`)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    required = [x.arg for x in positional[: len(positional) - len(a.defaults)]]
    return required + [x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None]


def checked_lengths(init: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """Whole numbers a constructor compares a `len(...)` with."""
    found: set[int] = set()
    for node in ast.walk(init):
        if not isinstance(node, ast.Compare) or len(node.comparators) != 1:
            continue
        sides = [node.left, node.comparators[0]]
        if any(isinstance(s, ast.Call) and getattr(s.func, "id", "") == "len" for s in sides):
            found |= {
                s.value
                for s in sides
                if isinstance(s, ast.Constant) and type(s.value) is int and 0 < s.value <= 64
            }
    return found


def stored_attributes(init: ast.FunctionDef) -> dict[str, str]:
    """Constructor parameters and the attribute each is kept in, when the constructor keeps
    it in exactly one: `self.sex = sex.upper()` -> {"sex": "sex"}, `self.age =
    D(age_in_months)` -> {"age_in_months": "age"}."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(init):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id in INSTANCE_NAMES
        ):
            continue
        for read in ast.walk(node.value):
            if isinstance(read, ast.Name) and isinstance(read.ctx, ast.Load):
                found.setdefault(read.id, set()).add(target.attr)
    return {name: next(iter(attrs)) for name, attrs in found.items() if len(attrs) == 1}


def is_flag(name: str, kinds: set[str]) -> bool:
    """Whether a protected input is a yes/no flag: annotated `bool`, or named `is_male`,
    `isBlack`, `has_...` and only ever tested for truth or used as a number (`0.2467 *
    (is_male - 0.5642)` in a clinical equation: True is 1)."""
    if "bool" in kinds:
        return True
    tokens = name_tokens(name)
    return bool(tokens) and tokens[0] in FLAG_PREFIXES and kinds <= FLAG_KINDS


FLAG_KINDS = frozenset({"truthy", "bool", "", "int", "float", "num"})


# Names a key held in a variable goes by: `row[key]`, `record[field_name]`.
KEY_NAMES = frozenset({"key", "k", "field", "field_name", "name", "column", "col", "attr", "item"})


def coded_field(path: InputPath, kinds: set[str], hint: Hint | None) -> bool:
    """A record's field only computed with, never compared with a number or text: a 1/0
    code of its category when the category's values are words (a region's indicator times
    its weight in a score's table)."""
    numbers = [c for c in (hint.constants if hint else []) if is_number(c)]
    return (
        len(path) > 1
        and bool(kinds & {"num", "int", "float"})
        and not kinds & {"str", "literal", "list", "dict"}
        and not numbers
    )


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


def renamed_by_decorator(info: FunctionInfo, facts: ModuleFacts) -> bool:
    """Whether a decorator defined in the project returns a wrapper that takes named
    positional parameters and no `**kwargs`: keyword arguments would not reach the function."""
    for decorator in info.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = ast.unparse(target) if isinstance(target, (ast.Name, ast.Attribute)) else ""
        outer = facts.functions.get(name) or facts.functions.get(name.rsplit(".", 1)[-1])
        if outer is None:
            continue
        returned = {
            node.value.id
            for node in ast.walk(outer)
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Name)
        }
        for inner in ast.walk(outer):
            if (
                isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef))
                and inner is not outer
                and inner.name in returned
                and inner.args.kwarg is None
                and [*inner.args.posonlyargs, *inner.args.args]
            ):
                return True
    return False


def age_table(kind: int) -> list[float]:
    """A table looked up by age (`mt.qx[x]`, `rates[age]`): one entry per year of age, falling
    like a survival table (Gompertz: the fall steepens with age, so that `lx[x + n] / lx[x]`
    still changes with x) and reaching 0 only at the last entry, as a life table closes; each
    table of a function has its own parameters, so one divided by another still changes."""
    hazard, growth = 0.0003 * (1 + 0.3 * (kind % 10)), 0.06 + 0.002 * (kind % 10)
    table = [
        float(f"{100000 * math.exp(-hazard / growth * (math.exp(growth * year) - 1)):.6g}")
        for year in range(150)
    ]
    return [*table, 0.0]


def tables_by_age(fn: ast.AST, leaves: list[Leaf], facts: ModuleFacts) -> None:
    """Give an input indexed by an age parameter a table to index: a list, a number or a
    string in its place would fail or read one character. Helpers count: `qx(mt, x + n)`
    whose `qx` reads `mt.qx[x]` indexes the caller's `mt.qx` by its age too."""
    ages = {leaf.path[0][1] for leaf in leaves if leaf.category == "age" and len(leaf.path) == 1}
    if not ages:
        return
    others = [leaf for leaf in leaves if not leaf.protected]
    roots = {leaf.path[0][1]: leaf.path[0][1] for leaf in leaves}
    tabled: list[Leaf] = []
    for indexed, names, keyed in age_subscripts(fn, ages, roots, facts, HELPER_DEPTH):
        for leaf in others:
            inner = [name for name, outer in names.items() if outer == leaf.path[0][1]]
            if leaf in tabled or not any(
                leaf_matches(indexed, (("param", name), *leaf.path[1:])) for name in inner
            ):
                continue
            table = age_table(len(tabled))
            leaf.pool.insert(0, dict(enumerate(table)) if keyed else table)
            leaf.from_code += 1
            leaf.typical = 0
            tabled.append(leaf)


HELPER_DEPTH = 2  # helpers of helpers, as record reads follow them


def age_subscripts(
    fn: ast.AST, ages: set[str], roots: dict[str, str], facts: ModuleFacts, depth: int
) -> Iterator[tuple[ast.expr, dict[str, str], bool]]:
    """Expressions `fn` indexes by an age (`mt.qx` of `mt.qx[x]`; `tbl` of `tbl.get(round(d))`,
    a mapping: True), with `roots`: which of the caller's parameters each name of `fn` stands
    for."""
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Subscript)
            and not isinstance(node.slice, ast.Slice)
            and mentions(node.slice, ages)
        ):
            yield node.value, roots, False
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and mentions(node.args[0], ages)
        ):
            yield node.func.value, roots, True
        if not depth or not isinstance(node, ast.Call):
            continue
        called = called_function(node, facts.functions)
        if called is None or called[0] is fn:
            continue
        bindings = call_bindings(called[0], node, called[1])
        callee_ages = {param for param, arg in bindings if mentions(arg, ages)}
        callee_roots = {
            param: roots[arg.id]
            for param, arg in bindings
            if isinstance(arg, ast.Name) and arg.id in roots
        }
        if callee_ages and callee_roots:
            yield from age_subscripts(called[0], callee_ages, callee_roots, facts, depth - 1)


def mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))
