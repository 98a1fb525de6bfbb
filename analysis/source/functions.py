"""Finding the functions of a module: qualified names, lines, and how each can be called."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TypeAlias

FunctionNode: TypeAlias = ast.FunctionDef | ast.AsyncFunctionDef
# How a closure's qualified name joins its factory's and its own, as Python's does.
CLOSURE = ".<locals>."


@dataclass(frozen=True)
class FunctionInfo:
    qualname: str  # dotted, classes included: "Screener.assess"
    node: FunctionNode
    owner: ast.ClassDef | None  # the class it is defined in, if any
    line: int  # of the `def` (decorators excluded), 1-based
    end_line: int

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def first_line(self) -> int:
        """The first line of the definition, decorators included."""
        return min([self.node.lineno, *(d.lineno for d in self.node.decorator_list)])

    @property
    def is_async(self) -> bool:
        return isinstance(self.node, ast.AsyncFunctionDef)

    @property
    def decorators(self) -> set[str]:
        names = set()
        for dec in self.node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if isinstance(target, ast.Name):
                names.add(target.id)
            elif isinstance(target, ast.Attribute):
                names.add(target.attr)
        return names


def list_functions(tree: ast.Module) -> list[FunctionInfo]:
    """Module-level functions and methods of (nested) classes, in source order.

    Functions nested inside functions are part of their enclosing function's behaviour and
    are not listed on their own, but for the closure a module-level factory that needs no
    argument returns (`read_anthro()` returns `inner_function(param, agedays, sex, ...)`):
    the function its callers call, listed as `read_anthro.<locals>.inner_function`.
    """
    found: list[FunctionInfo] = []

    def visit(body: list[ast.stmt], prefix: str, owner: ast.ClassDef | None) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                end = stmt.end_lineno or stmt.lineno
                found.append(FunctionInfo(prefix + stmt.name, stmt, owner, stmt.lineno, end))
                if owner is None and not prefix:
                    for inner in returned_closures(stmt):
                        qualname = f"{stmt.name}{CLOSURE}{inner.name}"
                        last = inner.end_lineno or inner.lineno
                        found.append(FunctionInfo(qualname, inner, None, inner.lineno, last))
            elif isinstance(stmt, ast.ClassDef):
                visit(stmt.body, f"{prefix}{stmt.name}.", stmt)
            elif isinstance(stmt, (ast.If, ast.Try)):
                # Definitions under `if TYPE_CHECKING:` / `try: ... except ImportError:` blocks.
                for block in (stmt.body, stmt.orelse, getattr(stmt, "finalbody", [])):
                    visit(block, prefix, owner)

    visit(tree.body, "", None)
    return found


def returned_closures(factory: FunctionNode) -> list[FunctionNode]:
    """The functions `factory` defines in its body and returns by name, when it can be
    called with no argument (its defaults make the closure)."""
    if required_parameters(factory):
        return []
    returned = {
        node.value.id
        for node in ast.walk(factory)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name)
    }
    return [
        stmt
        for stmt in factory.body
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in returned
    ]


def own_nodes(fn: FunctionNode) -> Iterator[ast.AST]:
    """The nodes of `fn`'s body outside the functions, lambdas and classes defined in it."""
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def find_function(tree: ast.Module, qualname: str) -> FunctionInfo | None:
    """The function or method of a module by its dotted qualified name."""
    return next((info for info in list_functions(tree) if info.qualname == qualname), None)


def attribute_path(qualname: str) -> str:
    """The attributes that reach a function from its module: `Measurement.__ages` is stored
    as `Measurement._Measurement__ages`, as Python mangles private names in a class body."""
    parts = qualname.split(".")
    for i in range(1, len(parts)):
        name, owner = parts[i], parts[i - 1].lstrip("_")
        if name.startswith("__") and not name.endswith("__") and owner:
            parts[i] = f"_{owner}{name}"
    return ".".join(parts)


def record_class_kind(
    cls: ast.ClassDef, classes: Mapping[str, ast.ClassDef] | None = None
) -> str | None:
    """'dataclass', 'namedtuple', 'pydantic', 'typeddict' or 'enum' when `cls` declares
    fields, by its own decorators and bases or, given the module's `classes`, by those of
    the project's classes it derives from (`class Request(StrictModel)` where `class
    StrictModel(BaseModel)` sets the project's model config)."""
    for current in lineage(cls, classes or {}):
        kind = own_record_kind(current)
        if kind is not None:
            return kind
    return None


def lineage(cls: ast.ClassDef, classes: Mapping[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """`cls` and the classes of `classes` it derives from, nearest first, each once."""
    found = [cls]
    for current in found:  # grows as the bases are found
        for base in current.bases:
            name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
            parent = classes.get(ast.unparse(base)) or classes.get(name)
            if parent is not None and all(parent is not known for known in found):
                found.append(parent)
    return found


def instance_assignment(node: ast.AST) -> tuple[ast.Attribute, ast.expr] | None:
    """(target, value) of `x.attr = value` or `x.attr: T = value`; None for other nodes."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    return (target, value) if isinstance(target, ast.Attribute) else None


def own_record_kind(cls: ast.ClassDef) -> str | None:
    """The record kind `cls`'s own decorators and bases declare (see record_class_kind)."""
    for dec in cls.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("dataclass", "define", "frozen", "attrs"):
            return "dataclass"
    for base in cls.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name == "NamedTuple":
            return "namedtuple"
        if name in ("BaseModel", "BaseSettings"):
            return "pydantic"
        if name == "TypedDict":
            return "typeddict"
        if name in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"):
            return "enum"
    return None


def functional_records(body: list[ast.stmt]) -> list[ast.ClassDef]:
    """`Parameters = TypedDict('Parameters', {'Age (years)': int, 'Male': bool})` (and
    `NamedTuple('P', [('age', int)])`) as the class statement it stands for, so that it
    annotates like one: its keys need not be identifiers."""
    found: list[ast.ClassDef] = []
    for stmt in body:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
            and len(stmt.value.args) >= 2
        ):
            continue
        func = stmt.value.func
        kind = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        spec = stmt.value.args[1]
        if kind == "TypedDict" and isinstance(spec, ast.Dict):
            pairs = list(zip(spec.keys, spec.values, strict=True))
        elif kind == "NamedTuple" and isinstance(spec, (ast.List, ast.Tuple)):
            pairs = [
                (item.elts[0], item.elts[1])
                for item in spec.elts
                if isinstance(item, ast.Tuple) and len(item.elts) == 2
            ]
        else:
            continue
        fields: list[ast.stmt] = [
            ast.AnnAssign(
                target=ast.Name(id=key.value, ctx=ast.Store()),
                annotation=annotation,
                value=None,
                simple=1,
            )
            for key, annotation in pairs
            if isinstance(key, ast.Constant) and isinstance(key.value, str)
        ]
        if not fields:
            continue
        cls = ast.ClassDef(
            name=stmt.targets[0].id,
            bases=[ast.Name(id=kind, ctx=ast.Load())],
            keywords=[],
            body=fields,
            decorator_list=[],
        )
        found.append(ast.fix_missing_locations(ast.copy_location(cls, stmt)))
    return found


def is_classvar(annotation: ast.expr) -> bool:
    target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return isinstance(target, (ast.Name, ast.Attribute)) and (
        getattr(target, "id", None) == "ClassVar" or getattr(target, "attr", None) == "ClassVar"
    )


def all_args(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


# Methods of a mapping that read the key they are given first, with a default when it is
# missing: `record.get("age", 0)`, `record.setdefault("age", 0)`.
KEY_READERS = frozenset({"get", "setdefault"})


def required_parameters(fn: FunctionNode) -> list[str]:
    """The parameters a call must pass: those without a default (not `*args`, `**kwargs`)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    required = [x.arg for x in positional[: len(positional) - len(a.defaults)]]
    return required + [x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None]


def called_function(
    call: ast.Call, functions: dict[str, FunctionNode]
) -> tuple[FunctionNode, bool] | None:
    """The function of the module (or project) a call runs, and whether it is a method called
    on `self`/`cls` or on one of its components (its first parameter is then bound):
    `helper(x)`, `self._score(x)`, `self.scorer.score(x)` or `Rates.factor(x)`."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in functions:
        return functions[func.id], False
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        dotted = f"{func.value.id}.{func.attr}"  # `rating.gender_factor(d)`, module imported
        if dotted in functions:
            # or `scorer.score(applicant)` of an instance (facts/components.py): bound
            return functions[dotted], takes_self(functions[dotted])
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("self", "cls")
        and func.attr in functions
    ):
        return functions[func.attr], True
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Attribute)
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id == "self"
    ):
        # `self.scorer.score(applicant)`: a method of the component's class
        # (facts/components.py)
        component = f"self.{func.value.attr}.{func.attr}"
        if component in functions:
            return functions[component], True
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id[:1].isupper()
        and func.attr in functions
    ):
        # `PolicyGenerator._occupation_factor(occ)`: a static or class method called through
        # its class (a class method's `cls` is bound)
        method = functions[func.attr]
        bound = any(getattr(d, "id", "") == "classmethod" for d in method.decorator_list)
        return method, bound
    return None


def takes_self(fn: FunctionNode) -> bool:
    """Whether `fn` is an instance method: its first parameter `self`, not a static method."""
    first = [*fn.args.posonlyargs, *fn.args.args][:1]
    static = any(getattr(d, "id", "") == "staticmethod" for d in fn.decorator_list)
    return bool(first) and first[0].arg == "self" and not static


def constructor(cls: ast.ClassDef) -> ast.FunctionDef | None:
    """The `__init__` a class body defines."""
    return next(
        (s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )


def parameter_defaults(fn: FunctionNode) -> list[tuple[ast.arg, ast.expr]]:
    """Each parameter that has a default, with it."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    )
    return pairs + [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d]


def function_defaults(
    fn: FunctionNode, functions: dict[str, FunctionNode]
) -> dict[str, FunctionNode]:
    """Parameters whose default is a function of the project: `factor=rating.gender_factor`
    (the function passed in when the caller passes none)."""
    found: dict[str, FunctionNode] = {}
    for arg, default in parameter_defaults(fn):
        name = ast.unparse(default) if isinstance(default, (ast.Name, ast.Attribute)) else ""
        if name in functions:
            found[arg.arg] = functions[name]
    return found


def call_bindings(callee: FunctionNode, call: ast.Call, bound: bool) -> list[tuple[str, ast.expr]]:
    """(parameter, argument) pairs of a call, by position and by keyword."""
    params = [a.arg for a in [*callee.args.posonlyargs, *callee.args.args]][int(bound) :]
    pairs = list(zip(params, call.args, strict=False))
    pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
    return pairs


def renamed_by_decorator(
    info: FunctionInfo, functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> bool:
    """Whether a decorator defined in the project returns a wrapper that takes named
    positional parameters and no `**kwargs`: keyword arguments would not reach the function."""
    for decorator in info.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = ast.unparse(target) if isinstance(target, (ast.Name, ast.Attribute)) else ""
        outer = functions.get(name) or functions.get(name.rsplit(".", 1)[-1])
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


def signature_defaults(args: ast.arguments) -> dict[str, ast.expr]:
    """The default of every parameter that has one, by name."""
    defaults = dict(
        zip(
            [a.arg for a in [*args.posonlyargs, *args.args]][::-1],
            args.defaults[::-1],
            strict=False,
        )
    )
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d})
    return defaults


def all_arguments(fn: FunctionNode) -> list[ast.arg]:
    """Every parameter of `fn`: positional, keyword-only, `*args` and `**kwargs`."""
    args = fn.args
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]
