"""What a class of the module says an instance holds: the class an annotation names, the
names its body declares, what its constructor takes and keeps."""

from __future__ import annotations

import ast
from collections import Counter
from typing import Any

from analysis.facts.annotations import COLLECTIONS, annotation_kind
from analysis.facts.components import class_named
from analysis.facts.fieldreads import (
    FieldRead,
    Matcher,
    calls_methods_of,
    name_matcher,
    record_accesses,
    required_attributes,
)
from analysis.facts.instance_reads import attributes_set, instance_attributes
from analysis.facts.module import ModuleFacts
from analysis.shapes import InputPath, Leaf, LeafShape, display
from analysis.source.functions import (
    constructor,
    instance_assignment,
    lineage,
    required_parameters,
)
from config.policy import Policy

# What a method's first parameter is called when it is the instance. Any other name is a
# function kept in a class and called through it: `formula(person, period, parameters)` of a
# tax-benefit `Variable`.
INSTANCE_NAMES = frozenset({"self", "cls", "mcs", "klass", "this"})


# Records within records, lists of them counted: a person's rent periods in a salary in a list
# of salaries (india-tax-guru's metro flag) sit four steps below the parameter.
MAX_DEPTH = 5

# How a module names the function that makes a thing: `load_tables()` for `tables`.
MAKER_VERBS = ("load", "get", "make", "build", "create", "default", "read", "new")


def vararg_leaf(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    vararg: ast.arg,
    path: InputPath,
    leaves: list[Leaf],
) -> LeafShape:
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
    return LeafShape(leaf)


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
    it in exactly one, and nothing else in it: `self.sex = sex.upper()` -> {"sex": "sex"},
    `self.age = D(age_in_months)` -> {"age_in_months": "age"}."""
    single = single_attributes(init)
    sources = Counter(single.values())
    return {name: attr for name, attr in single.items() if sources[attr] == 1}


def shared_attributes(init: ast.FunctionDef) -> dict[str, str]:
    """Constructor parameters kept, each in one attribute, together with others: `self.days
    = (seen - born).days` -> {"seen": "days", "born": "days"}. Reading the attribute reads
    each of them."""
    single = single_attributes(init)
    sources = Counter(single.values())
    return {name: attr for name, attr in single.items() if sources[attr] > 1}


def single_attributes(init: ast.FunctionDef) -> dict[str, str]:
    """Names the constructor keeps in exactly one attribute of the instance, with it."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(init):
        kept = instance_assignment(node)
        if kept is None:
            continue
        target, value = kept
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id in INSTANCE_NAMES
        ):
            continue
        for read in ast.walk(value):
            if isinstance(read, ast.Name) and isinstance(read.ctx, ast.Load):
                found.setdefault(read.id, set()).add(target.attr)
    return {name: next(iter(attrs)) for name, attrs in found.items() if len(attrs) == 1}


# Words of the calls that read data in (`pd.read_csv`, `json.load`, `load_tables`, `open`).
LOADING_WORDS = frozenset({"read", "load", "loads", "open", "fetch", "download", "unpickle"})


def loaded_when_missing(init: ast.FunctionDef) -> set[str]:
    """Constructor parameters the constructor fills in itself by reading data when they are
    not given: `if mortality_df is None: self._mortality_df = pd.read_csv(path)`, `self.df =
    df if df is not None else load_table()`. Left to their default, the instance holds the
    real table; a record made up of the fields its methods read would stand in for it."""
    found: set[str] = set()
    for node in ast.walk(init):
        if isinstance(node, (ast.If, ast.IfExp)):
            tested = missing_test(node.test)
            if tested is None:
                continue
            name, missing_first = tested
            fallback = node.body if missing_first else node.orelse
            parts = fallback if isinstance(fallback, list) else [fallback]
            if any(reads_data(part) for part in parts):
                found.add(name)
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            first, *rest = node.values
            if isinstance(first, ast.Name) and any(reads_data(v) for v in rest):
                found.add(first.id)
    return found


def missing_test(test: ast.expr) -> tuple[str, bool] | None:
    """(name, True) for `name is None` and `not name`; (name, False) for `name is not None`
    and a bare `name`; None for any other test."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name):
        right = test.comparators[0]
        if isinstance(right, ast.Constant) and right.value is None:
            if isinstance(test.ops[0], ast.Is):
                return test.left.id, True
            if isinstance(test.ops[0], ast.IsNot):
                return test.left.id, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        if isinstance(test.operand, ast.Name):
            return test.operand.id, True
    if isinstance(test, ast.Name):
        return test.id, False
    return None


def reads_data(node: ast.AST) -> bool:
    """Whether `node` calls something that reads data in (LOADING_WORDS in its name)."""
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if LOADING_WORDS & set(name.lower().split("_")):
                return True
    return False


def kept_as_given(init: ast.FunctionDef) -> set[str]:
    """Constructor parameters kept as they are given (`self.settings = settings`, `self.salary
    = salary or SalaryIncome()`, a copy of it): what the methods read of that attribute they
    read of the parameter. `self.logger = logging.getLogger(logger_name)` keeps what the
    constructor made of it instead."""
    kept: set[str] = set()
    for node in ast.walk(init):
        assigned = instance_assignment(node)
        if assigned is not None:
            target, value = assigned
            if isinstance(target.value, ast.Name) and target.value.id in INSTANCE_NAMES:
                kept |= may_be(value)
    return kept


def guarded_parameters(init: ast.FunctionDef) -> set[str]:
    """Parameters the constructor checks before it raises (`if wt is None and length is
    None: raise ValueError(...)`, `assert sex in SEXES`): left to their defaults, the
    instance may never be made, so they are inputs even when no method reads them."""
    found: set[str] = set()
    for node in ast.walk(init):
        if isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body):
            tested: ast.AST = node.test
        elif isinstance(node, ast.Assert):
            tested = node.test
        else:
            continue
        found |= {n.id for n in ast.walk(tested) if isinstance(n, ast.Name)}
    return found


COPIES = frozenset({"copy", "deepcopy"})


def may_be(value: ast.expr) -> set[str]:
    """The names whose own value an expression may be: `x`, `x or D()`, `x if x else D()`,
    `copy(x)`."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.BoolOp):
        return set().union(*(may_be(v) for v in value.values))
    if isinstance(value, ast.IfExp):
        return may_be(value.body) | may_be(value.orelse)
    if isinstance(value, ast.Call) and len(value.args) == 1:
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in COPIES:
            return may_be(value.args[0])
    return set()


def declared_names(cls: ast.ClassDef, facts: ModuleFacts, depth: int = 0) -> set[str]:
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
        found = annotated_class(parent, facts)
        if found is not None and found is not cls and depth < MAX_DEPTH:
            names |= declared_names(found, facts, depth + 1)
    return names


def annotated_class(annotation: ast.expr | None, facts: ModuleFacts) -> ast.ClassDef | None:
    """The class of the module (or project) an annotation names (facts/components.py)."""
    return class_named(annotation, facts.classes)


def annotated_enum(annotation: ast.expr | None, facts: ModuleFacts) -> ast.ClassDef | None:
    """The enum of the project an annotation names (defined in the module or imported, by
    name or through its module)."""
    cls = annotated_class(annotation, facts)
    return cls if cls is not None and facts.record_kind(cls) == "enum" else None


def names_one_type(annotation: ast.expr | None) -> bool:
    """`Sex`, `Optional[Sex]`, `Sex | None`, `"Sex"`: one type, None aside; `str | Sex` names
    two, and takes the values of either."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value.strip(), mode="eval").body
        except SyntaxError:
            return True
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        members = [annotation.left, annotation.right]
    elif isinstance(annotation, ast.Subscript):
        base = annotation.value
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        inner = annotation.slice
        if name in ("Optional", "Annotated"):
            first = inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
            return names_one_type(first)
        if name != "Union" or not isinstance(inner, ast.Tuple):
            return True
        members = list(inner.elts)
    else:
        return True
    typed = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    return len(typed) == 1 and names_one_type(typed[0])


def annotated_item_class(annotation: ast.expr | None, facts: ModuleFacts) -> ast.expr | None:
    """`Applicant` of `list[Applicant]` (or Sequence, Iterable, set...) when it names a
    class of the project."""
    if not isinstance(annotation, ast.Subscript):
        return None
    base = annotation.value
    name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
    if name == "Optional":
        return annotated_item_class(annotation.slice, facts)
    if name not in COLLECTIONS:
        return None
    inner = annotation.slice
    if isinstance(inner, ast.Tuple) and inner.elts:  # tuple[Applicant, ...]
        inner = inner.elts[0]
    return inner if annotated_class(inner, facts) is not None else None


def maker_of(name: str, tree: ast.Module, policy: Policy) -> str | None:
    """A function of the module that makes what a constructor parameter holds, called
    without arguments: `_load_day_tables()` for `day_tables`, `default_config()` for
    `config`. Tables of coefficients and loaded data sets are no input to vary, and no
    made-up value holds what the code looks up in them. Never for a protected input."""
    if policy.canonical_category(name) is not None:
        return None
    wanted = {f"{verb}_{name.strip('_')}" for verb in MAKER_VERBS}
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.FunctionDef)
            and stmt.name.lstrip("_") in wanted
            and not required_parameters(stmt)
        ):
            return stmt.name
    return None


def undeclared_reads(
    fn: ast.AST,
    name: str,
    cls: ast.ClassDef,
    base: Matcher | None,
    facts: ModuleFacts,
    policy: Policy,
) -> dict[str, FieldRead]:
    """Attributes a function reads from its record that the record's class (and its bases
    in the module) never declares; none when it calls the record's own methods, which a
    stand-in would lack."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    if not isinstance(fn, functions) or calls_methods_of(fn, (("param", name),)):
        return {}
    declared = declared_names(cls, facts)
    # Needed (`patient.prior_stroke_tia`, `hasattr(patient, "creatinine")` or raise):
    # `getattr(patient, "x", False)` copes with an instance that lacks it, as the class's
    # callers' instances do.
    reads = record_accesses(fn, name, facts, base)
    # A person's attribute it looks for with a default (`getattr(patient,
    # "education_high", False)`) is one the callers' objects carry: tried too.
    asked = {attr for attr in reads if policy.canonical_category(attr)}
    needed = (required_attributes(fn, name, facts) | asked) - declared
    return {
        attr: reads.get(attr) or FieldRead.of(fn, name_matcher(name), attr, "attr")
        for attr in sorted(needed)
        if not attr.startswith(("_", "model_"))
    }


def concrete_subclass(
    cls: ast.ClassDef, method: ast.FunctionDef | ast.AsyncFunctionDef, facts: ModuleFacts
) -> ast.ClassDef | None:
    """The class whose instance a method of `cls` is really given, when `cls` cannot make
    one itself: a mix-in reading what only the classes mixing it in set up (`self.age_index`
    of a table the subclass loads), or an abstract base. The first class of the module that
    derives from it, sets all of that up and needs no constructor argument (else the first
    that sets it up); None when `cls` is whole, or no subclass is."""
    instance = method.args.args[0].arg if method.args.args else ""
    missing = instance_attributes(method, instance, ast.Load) - provided(cls, facts)
    if not missing and not is_abstract(cls):
        return None
    whole: list[ast.ClassDef] = []
    for other in facts.classes.values():
        family = lineage(other, facts.classes)
        if other is cls or all(c is not cls for c in family) or is_abstract(other):
            continue
        if missing <= provided(other, facts):
            whole.append(other)
    ready = [c for c in whole if not constructor_arguments(c, facts)]
    chosen = ready or whole
    return chosen[0] if chosen else None


def provided(cls: ast.ClassDef, facts: ModuleFacts) -> set[str]:
    """What an instance of `cls` has: the names its classes' bodies bind and the attributes
    their methods set on the instance."""
    found: set[str] = set()
    for current in lineage(cls, facts.classes):
        found |= declared_names(current, facts, MAX_DEPTH)
        for stmt in current.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.args.args:
                found |= attributes_set(stmt, stmt.args.args[0].arg)
    return found


def is_abstract(cls: ast.ClassDef) -> bool:
    """Whether `cls` declares an abstract method (`@abstractmethod`): it makes no instance."""
    return any(
        isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(ast.unparse(d).endswith("abstractmethod") for d in stmt.decorator_list)
        for stmt in cls.body
    )


def constructor_arguments(cls: ast.ClassDef, facts: ModuleFacts) -> list[str]:
    """The arguments the nearest constructor of `cls`'s lineage requires."""
    for current in lineage(cls, facts.classes):
        init = constructor(current)
        if init is not None:
            return required_parameters(init)[1:]
    return []
