"""The inputs of one function: its parameters, what it reads from them, and value pools.

Every input the search can set is a `Leaf`: a parameter, a key or attribute of a record
parameter (`applicant["age"]`, `person.gender`), or a field of a declared dataclass,
NamedTuple or pydantic model. `InputModel.assemble` turns one value per leaf back into the
arguments of a call, encoded for the harness.
"""

from __future__ import annotations

import ast
import datetime
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from analysis.functions import FunctionInfo, is_classvar, record_class_kind
from analysis.hints import (
    MISSING,
    DateValue,
    EnumMember,
    Hint,
    ModuleFacts,
    all_args,
    annotation_kind,
    literal_choices,
    neighbours,
)
from config.policy import Category, Policy, name_tokens

# Steps from a parameter to a leaf: ("key", "age"), ("attr", "gender"), ("index", 0).
Step = tuple[str, Any]
Path = tuple[Step, ...]

DEFAULTS_BY_KIND: dict[str, list[Any]] = {
    "int": [0, 1, 3, 10, 100],
    "float": [0.0, 0.5, 1.0, 10.0, 1000.0],
    "num": [0, 1, 3, 10, 1000.0],
    "str": ["", "yes", "no", "other"],
    "bool": [True, False],
    "truthy": [True, False],
    "list": [[], [1, 10], ["a", "b"]],
    "dict": [{}],
}
UNKNOWN_DEFAULTS: list[Any] = [1, 5, 0, "yes", True]
MAX_POOL = 40
# Attributes that values themselves have: reading them does not make a record.
VALUE_ATTRIBUTES = frozenset({"year", "month", "day", "value", "name", "days", "real"})
MAX_DEPTH = 3


@dataclass
class Leaf:
    path: Path  # first step is ("param", name)
    display: str  # how the function receives it: applicant['age'], person.gender, age
    name: str  # the leaf's own name, for hints and categories
    pool: list[Any]
    category: str | None = None
    typical: int = 0  # index in pool of the base value used while other leaves vary
    from_code: int = 0  # the first `from_code` values of the pool come from the code itself

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
            return self.pool
        chosen = self.pool[: self.from_code] + [self.pool[self.typical]]
        numbers = [v for v in self.pool if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if numbers:
            chosen += [min(numbers), max(numbers)]
        else:
            chosen += self.pool[self.from_code : self.from_code + 2]
        return dedupe(chosen)

    @property
    def protected(self) -> bool:
        return self.category is not None


@dataclass
class Node:
    """The shape of one argument: a leaf, a record, an instance of a module class, or a list."""

    kind: str  # leaf | record | new | list
    leaf: Leaf | None = None
    fields: dict[str, Node] = field(default_factory=dict)
    cls: str | None = None
    item: Node | None = None


@dataclass
class Param:
    name: str
    keyword: bool  # pass by keyword (False: positional-only)
    shape: Node
    spread: bool = False  # `**name`: each field of the record is its own keyword argument


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

    def assemble(self, values: dict[Path, Any]) -> tuple[list[Any], dict[str, Any]]:
        """Harness-encoded (args, kwargs) for one value per leaf."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for param in self.params:
            if param.spread:
                kwargs.update(
                    {k: encode_node(sub, values) for k, sub in param.shape.fields.items()}
                )
                continue
            encoded = encode_node(param.shape, values)
            if param.keyword:
                kwargs[param.name] = encoded
            else:
                args.append(encoded)
        return args, kwargs

    def plain(self, values: dict[Path, Any]) -> dict[str, Any]:
        """The same inputs as plain JSON-able data, for reports."""
        out: dict[str, Any] = {}
        for p in self.params:
            if p.spread:
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
        return {str(k): encode_value(v) for k, v in value.items()}
    return value


def encode_node(node: Node, values: dict[Path, Any]) -> Any:
    if node.kind == "leaf":
        assert node.leaf is not None
        return encode_value(values[node.leaf.path])
    if node.kind == "list":
        assert node.item is not None
        return [encode_node(node.item, values)]
    fields = {name: encode_node(sub, values) for name, sub in node.fields.items()}
    if node.kind == "new":
        return {"__cb__": "new", "class": node.cls, "kwargs": fields}
    return {"__cb__": "record", "fields": fields}


def plain_value(value: Any) -> Any:
    if isinstance(value, DateValue):
        return value.iso
    if isinstance(value, EnumMember):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, tuple):
        return [plain_value(v) for v in value]
    return value


def plain_node(node: Node, values: dict[Path, Any]) -> Any:
    if node.kind == "leaf":
        assert node.leaf is not None
        return plain_value(values[node.leaf.path])
    if node.kind == "list":
        assert node.item is not None
        return [plain_node(node.item, values)]
    return {name: plain_node(sub, values) for name, sub in node.fields.items()}


def display(path: Path) -> str:
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


class InputBuilder:
    """Builds the InputModel of one function from the module's facts and the policy."""

    def __init__(self, facts: ModuleFacts, policy: Policy) -> None:
        self.facts = facts
        self.policy = policy

    def build(self, info: FunctionInfo) -> InputModel:
        fn = info.node
        args = fn.args
        positional = [*args.posonlyargs, *args.args]
        leaves: list[Leaf] = []
        params: list[Param] = []
        decorators = info.decorators
        if info.owner is not None and "staticmethod" not in decorators and positional:
            first, positional = positional[0], positional[1:]
            if "classmethod" not in decorators:
                # A method gets a real instance of its class, built from the fields or
                # constructor parameters it declares, which become inputs like any other.
                self_shape = self.instance_shape(info.owner, first.arg, leaves)
                params.append(Param(first.arg, False, self_shape))
        posonly = {a.arg for a in args.posonlyargs}
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
        for arg in [*positional, *args.kwonlyargs]:
            default = self.facts.const(defaults[arg.arg]) if arg.arg in defaults else MISSING
            path: Path = (("param", arg.arg),)
            shape = self.shape(fn, arg.arg, arg.annotation, default, path, leaves, depth=0)
            params.append(Param(arg.arg, arg.arg not in posonly, shape))
        if args.kwarg is not None:
            # `def score(**applicant)`: the keys it reads are keyword arguments of the call.
            spread = self.shape(
                fn, args.kwarg.arg, None, MISSING, (("param", args.kwarg.arg),), leaves, 0
            )
            if spread.kind == "record":
                params.append(Param(args.kwarg.arg, True, spread, spread=True))
        return InputModel(params, leaves)

    def instance_shape(self, cls: ast.ClassDef, self_name: str, leaves: list[Leaf]) -> Node:
        path: Path = (("param", self_name),)
        if record_class_kind(cls) in ("dataclass", "namedtuple", "pydantic"):
            return self.class_fields(cls, path, leaves, 0, "new")
        init = next(
            (s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
        )
        fields: dict[str, Node] = {}
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
            for arg in named:
                if arg.arg in defaults:
                    continue  # keep the constructor's own default; fewer inputs to search
                fields[arg.arg] = self.shape(
                    init, arg.arg, arg.annotation, MISSING, (*path, ("attr", arg.arg)), leaves, 1
                )
        return Node("new", fields=fields, cls=self.facts.qualname(cls))

    def class_fields(
        self, cls: ast.ClassDef, path: Path, leaves: list[Leaf], depth: int, kind: str
    ) -> Node:
        step = "key" if kind == "record" else "attr"
        fields: dict[str, Node] = {}
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
        return Node(kind, fields=fields, cls=self.facts.qualname(cls) if kind == "new" else None)

    # -- shapes --------------------------------------------------------------------------
    def shape(
        self,
        fn: ast.AST,
        name: str,
        annotation: ast.expr | None,
        default: Any,
        path: Path,
        leaves: list[Leaf],
        depth: int,
        base: Matcher | None = None,
    ) -> Node:
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
                return self.class_fields(cls, path, leaves, depth, node_kind)
        if depth < MAX_DEPTH and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            accessed = record_accesses(fn, name, self.facts, base)
            if set(accessed) <= VALUE_ATTRIBUTES and self.policy.canonical_category(name):
                accessed = {}  # `dob.year`, `gender.value`: a protected value, not a record
            if accessed:
                fields: dict[str, Node] = {}
                for fname, (where, matcher, style) in accessed.items():
                    fields[fname] = self.shape(
                        where,
                        fname,
                        None,
                        MISSING,
                        (*path, (style, fname)),
                        leaves,
                        depth + 1,
                        matcher if where is fn else None,
                    )
                return Node("record", fields=fields)
            element = element_accesses(fn, name, self.facts) if base is None else {}
            if element:
                fields = {}
                item_path: Path = (*path, ("index", 0))
                for fname, (where, matcher, style) in element.items():
                    fields[fname] = self.shape(
                        where,
                        fname,
                        None,
                        MISSING,
                        (*item_path, (style, fname)),
                        leaves,
                        depth + 1,
                        matcher,
                    )
                return Node("list", item=Node("record", fields=fields))
        return self.leaf(name, path, leaves, [], annotation, default)

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

    def leaf(
        self,
        name: str,
        path: Path,
        leaves: list[Leaf],
        choices: list[Any],
        annotation: ast.expr | None,
        default: Any,
    ) -> Node:
        category = self.policy.canonical_category(name)
        hint = Hint()
        hint.merge(self.facts.hints.get(name.lower(), Hint()))
        if category is not None:
            # Other names of the same category (`sex` in a helper, `gender` here) share values.
            for other, other_hint in list(self.facts.hints.items()):
                if self.policy.canonical_category(other) == category:
                    hint.merge(other_hint)
        if annotation is not None:
            kind = annotation_kind(annotation)
            if kind:
                hint.kinds.add(kind)
            choices = choices or literal_choices(annotation, self.facts)
        # How this input carries an age is its own business: `dob.year` in one function says
        # nothing about a `dateOfBirth` string in another.
        own = set(self.facts.hints.get(name.lower(), Hint()).kinds)
        if annotation is not None:
            own.add(annotation_kind(annotation) or "")
        form = age_form(name, own) if category == "age" else None
        pool, from_code = value_pool(hint, choices, category, self.policy, default, form)
        leaf = Leaf(
            path,
            display(path),
            name,
            pool,
            category,
            typical_index(pool, category, self.policy, default),
            from_code=from_code,
        )
        leaves.append(leaf)
        return Node("leaf", leaf=leaf)


def value_pool(
    hint: Hint,
    choices: list[Any],
    category: str | None,
    policy: Policy,
    default: Any,
    form: str | None = None,
) -> tuple[list[Any], int]:
    """Values to try for one leaf: the code's own first, then the category's or the kind's.

    Returns the pool and how many of its first values come from the code itself.
    """
    kinds = set(hint.kinds)
    pool: list[Any] = list(choices)
    numeric = bool(kinds & {"int", "float", "num"})
    for value in hint.constants:
        pool += neighbours(value) if numeric or isinstance(value, (int, float)) else [value]
        if isinstance(value, str) and value:
            # Code that normalises case still receives raw input: try the usual spellings.
            pool += [value.lower(), value.capitalize(), value.upper()]
    for size in hint.lengths:
        for n in range(max(0, size - 1), size + 2):
            pool.append([f"item{i}" for i in range(n)])
    for needle in hint.contains:
        if "list" in kinds:
            pool.append([needle])
        elif isinstance(needle, str):
            pool += [needle, f"{needle} degree", needle.upper()]
        else:
            pool.append([needle])
    if form in ("date", "isodate"):
        pool = [v for v in pool if isinstance(v, (str, DateValue))]  # `age > 70` is no date
    from_code = len(dedupe(pool))
    if category is not None:
        cat_values = [as_form(v, form) for v in policy.protected[category].values]
        if "bool" in kinds:
            pool += [True, False]  # `is_male: bool`: the category's words would all be truthy
        pool += [v for v in cat_values if fits(v, kinds)] or ([] if "bool" in kinds else cat_values)
    if default is not MISSING and default is not None and default not in pool:
        pool.append(default)
    if category is not None:
        pool = realistic(pool, policy.protected[category])
    if category is None or not pool:
        # Ordinary values besides the code's thresholds: a pool of only 0.399/0.4/0.401
        # would hide any difference that needs a realistic magnitude.
        pool += kind_defaults(kinds)
    pool = dedupe(pool)[:MAX_POOL]
    return pool, min(from_code, len(pool))


AGE_DATE_TOKENS = frozenset({"dob", "birthdate", "birthday"})


def age_form(name: str, kinds: set[str]) -> str | None:
    """How an age-category input carries the age: a birth "year", a "date" object, an
    "isodate" string, or None for the age itself."""
    tokens = set(name_tokens(name))
    dated = bool(tokens & AGE_DATE_TOKENS) or {"date", "birth"} <= tokens
    if "dateobj" in kinds:
        return "date"
    if dated or "isodate" in kinds:
        return "isodate"
    if tokens & {"year", "born", "birthyear"}:
        return "year"
    return None


def as_form(age: Any, form: str | None) -> Any:
    """A default age as the input carries it: 30 -> 1996, "1996-06-15" or date(1996-06-15)."""
    if form is None or isinstance(age, bool) or not isinstance(age, (int, float)):
        return age
    year = datetime.date.today().year - int(age)
    if form == "year":
        return year
    iso = f"{year:04d}-06-15"
    return DateValue(iso) if form == "date" else iso


def realistic(pool: list[Any], category: Category) -> list[Any]:
    """Drop numbers outside the category's realistic range (neighbours of `age < 0`)."""

    def fits_range(value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True
        low, high = category.minimum, category.maximum
        return (low is None or value >= low) and (high is None or value <= high)

    return [v for v in pool if fits_range(v)]


def typical_index(pool: list[Any], category: str | None, policy: Policy, default: Any) -> int:
    """A protected leaf rests on its category's first value; others on their default or first."""
    if default is not MISSING and default in pool:
        return pool.index(default)
    if category is not None:
        for value in policy.protected[category].values:
            if value in pool:
                return pool.index(value)
    return 0


def fits(value: Any, kinds: set[str]) -> bool:
    """Whether a category default suits how the code uses the leaf."""
    if not kinds or kinds <= {"truthy"}:
        return True
    if isinstance(value, bool):
        return bool(kinds & {"bool", "truthy"})
    if isinstance(value, (int, float)):
        return bool(kinds & {"int", "float", "num"})
    if isinstance(value, str):
        return bool(kinds & {"str", "list", "dict", "literal"})
    return False


def kind_defaults(kinds: set[str]) -> list[Any]:
    for kind in ("float", "int", "num", "bool", "str", "list", "dict", "truthy"):
        if kind in kinds:
            return list(DEFAULTS_BY_KIND[kind])
    return list(UNKNOWN_DEFAULTS)


def dedupe(values: list[Any]) -> list[Any]:
    seen: list[tuple[type, str]] = []
    out = []
    for value in values:
        key = (type(value), repr(value))
        if key not in seen:
            seen.append(key)
            out.append(value)
    return out


Matcher = Callable[[ast.AST], bool]


def name_matcher(name: str) -> Matcher:
    return lambda node: isinstance(node, ast.Name) and node.id == name


def field_read(node: ast.AST, base: Matcher, method_calls: set[int]) -> tuple[str, str] | None:
    """(field, "key" or "attr") when `node` reads a field of an object `base` matches:
    b["k"], b.get("k"), b.k, getattr(b, "k")."""
    if isinstance(node, ast.Subscript) and base(node.value):
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return node.slice.value, "key"
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if base(node.func.value) and node.func.attr == "get" and node.args:
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


def field_key(node: ast.AST, base: Matcher, method_calls: set[int]) -> str | None:
    read = field_read(node, base, method_calls)
    return read[0] if read else None


def with_aliases(fn: ast.AST, base: Matcher) -> Matcher:
    """`base`, or any local name assigned from what `base` matches (`p = applicant`)."""
    names: set[str] = set()
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and base(node.value)
        ):
            names.add(node.targets[0].id)
    if not names:
        return base
    return lambda node: base(node) or (isinstance(node, ast.Name) and node.id in names)


def field_matcher(parent: Matcher, key: str) -> Matcher:
    """Matches reads of field `key` of whatever `parent` matches: `driver.profile`."""
    return lambda node: field_key(node, parent, set()) == key


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
    method_calls: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method_calls.add(id(node.func))
    matcher = with_aliases(fn, base or name_matcher(name))
    fields: dict[str, tuple[ast.AST, Matcher, str]] = {}
    for node in ast.walk(fn):
        read = field_read(node, matcher, method_calls)
        if read is not None and read[0] not in fields:
            fields[read[0]] = (fn, field_matcher(matcher, read[0]), read[1])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callee = facts.functions.get(node.func.id)
            if callee is not None and callee is not fn and helper_depth > 0:
                for param, arg in call_bindings(callee, node):
                    if matcher(arg):
                        found = record_accesses(callee, param, facts, None, helper_depth - 1)
                        for sub, where in found.items():
                            fields.setdefault(sub, where)
    if base is None:
        facts.memo[key] = dict(fields)
    return fields


def element_accesses(
    fn: ast.AST, name: str, facts: ModuleFacts
) -> dict[str, tuple[ast.AST, Matcher, str]]:
    """Fields read from the items of a list parameter: `for c in name: c["age"]`."""
    key = ("items", id(fn), name)
    if key in facts.memo:
        return dict(facts.memo[key])
    fields: dict[str, tuple[ast.AST, Matcher, str]] = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and is_name(node.iter, {name}):
            if isinstance(node.target, ast.Name):
                scope = node if isinstance(node, ast.For) else fn
                fields.update(record_accesses(scope, node.target.id, facts))
    facts.memo[key] = dict(fields)
    return fields


def call_bindings(
    callee: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call
) -> list[tuple[str, ast.expr]]:
    params = [a.arg for a in all_args(callee)]
    pairs = list(zip(params, call.args, strict=False))
    pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
    return pairs


def is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names
