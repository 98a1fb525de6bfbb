"""Static review: where protected inputs reach a branch or the output, without running anything.

Used for functions that cannot run (their findings carry `method: static`), to point a
dynamic finding at the line most responsible, and to prove that a protected parameter is
never read (so no execution is spent on it).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from analysis.functions import KEY_READERS, FunctionNode, call_bindings, called_function
from analysis.inputs import InputPath, Leaf

OPAQUE_CALLS = frozenset({"locals", "vars", "eval", "exec", "globals"})


@dataclass(frozen=True)
class Reach:
    leaf: Leaf
    line: int
    how: str  # "branch" | "return" | "lookup" | "match" | "call"


def leaf_matches(node: ast.AST, path: InputPath) -> bool:
    """Whether `node` reads exactly the leaf at `path` (param, key, attribute or index steps):
    `p["age"]`, `p.get("age", 0)`, `p.setdefault("age", 0)`, `p.age`, `getattr(p, "age")`,
    `p("age", period)`."""
    steps = list(path)
    current: ast.AST = node
    while len(steps) > 1:
        step, value = steps.pop()
        if step in ("key", "attr"):
            if isinstance(current, ast.Subscript) and isinstance(current.slice, ast.Constant):
                if current.slice.value != value:
                    return False
                current = current.value
            elif isinstance(current, ast.Attribute):
                if current.attr != value:
                    return False
                current = current.value
            elif (
                isinstance(current, ast.Call)
                and isinstance(current.func, ast.Attribute)
                and current.func.attr in KEY_READERS
                and current.args
                and isinstance(current.args[0], ast.Constant)
                and current.args[0].value == value
            ):
                current = current.func.value
            elif (
                isinstance(current, ast.Call)
                and isinstance(current.func, ast.Name)
                and current.func.id == "getattr"
                and len(current.args) >= 2
                and isinstance(current.args[1], ast.Constant)
                and current.args[1].value == value
            ):
                current = current.args[0]
            elif (  # an accessor: `person("age", period)`
                isinstance(current, ast.Call)
                and current.args
                and isinstance(current.args[0], ast.Constant)
                and current.args[0].value == value
            ):
                current = current.func
            else:
                return False
        else:  # an element of a list parameter: any loop variable over it is accepted
            return isinstance(current, ast.Name)
    return isinstance(current, ast.Name) and current.id == steps[0][1]


def none_check(node: ast.AST) -> bool:
    """`age is None`, `sex != None`: whether a value was given, no decision about it."""
    return (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))
        and any(
            isinstance(c, ast.Constant) and c.value is None for c in [node.left, *node.comparators]
        )
    )


class NoneChecks(ast.NodeTransformer):
    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        return ast.Constant(True) if none_check(node) else self.generic_visit(node)


def without_none_checks(test: ast.expr) -> ast.AST:
    """A test with its None checks taken out: `if age is None or age > 60` still decides."""
    if not any(none_check(n) for n in ast.walk(test)):
        return test
    stripped: ast.AST = NoneChecks().visit(copy.deepcopy(test))
    return stripped


# Methods that put their arguments into the container they are called on.
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft"})


class Tainter:
    """Follows one protected leaf through assignments inside one function."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> None:
        self.fn = fn
        self.leaf = leaf
        self.names: set[str] = set()
        self.loop_vars = self.element_vars() if any(s == "index" for s, _ in leaf.path) else set()
        changed = True
        while changed:  # to a fixpoint: the order of statements does not matter here
            changed = False
            for node in ast.walk(fn):
                targets: list[ast.expr] = []
                value: ast.expr | None = None
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                    targets, value = [node.target], node.value
                elif isinstance(node, ast.NamedExpr):
                    targets, value = [node.target], node.value
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in MUTATORS
                    and isinstance(node.func.value, ast.Name)
                    and node.args
                ):
                    # `rows.append(...)`, `by_sex.update({sex: data})`: the container holds it
                    targets, value = [node.func.value], ast.Tuple(elts=list(node.args))
                if value is None or not self.tainted(value):
                    continue
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name) and name.id not in self.names:
                            self.names.add(name.id)
                            changed = True

    def element_vars(self) -> set[str]:
        param = self.leaf.path[0][1]
        found = set()
        for node in ast.walk(self.fn):
            if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, ast.Name):
                if node.iter.id == param and isinstance(node.target, ast.Name):
                    found.add(node.target.id)
        return found

    def tainted(self, expr: ast.AST) -> bool:
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.id in self.names:
                return True
            if leaf_matches(node, self.leaf.path):
                return True
            if self.leaf.read_in and self.hands_record(node):
                return True
            if self.loop_vars and self.reads_element(node):
                return True
        return False

    def hands_record(self, node: ast.AST) -> bool:
        """A call of the helper that reads the leaf, given the record that holds it."""
        if not isinstance(node, ast.Call):
            return False
        if call_name(node) != self.leaf.read_in:
            return False
        root = self.leaf.path[0][1]
        arguments = [*node.args, *(k.value for k in node.keywords)]
        return any(
            isinstance(n, ast.Name) and n.id == root for a in arguments for n in ast.walk(a)
        )

    def hands_helper(self, node: ast.AST) -> bool:
        """A call of a helper that decides with the leaf, given the leaf (or what it became)."""
        if not isinstance(node, ast.Call):
            return False
        if call_name(node) not in self.leaf.passed_to:
            return False
        return any(self.tainted(a) for a in [*node.args, *(k.value for k in node.keywords)])

    def reads_element(self, node: ast.AST) -> bool:
        field = self.leaf.path[-1][1]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return node.value.id in self.loop_vars and getattr(node.slice, "value", None) == field
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return node.value.id in self.loop_vars and node.attr == field
        return False

    def reaches(self) -> list[Reach]:
        found: list[Reach] = []
        for node in ast.walk(self.fn):
            how = None
            if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) and self.tainted(
                without_none_checks(node.test)
            ):
                how = "branch"
            elif isinstance(node, ast.comprehension) and any(
                self.tainted(without_none_checks(c)) for c in node.ifs
            ):
                how = "branch"
            elif isinstance(node, ast.Match) and self.tainted(node.subject):
                how = "match"
            elif isinstance(node, (ast.Return, ast.Yield)) and node.value is not None:
                if self.tainted(node.value):
                    how = "return"
            elif isinstance(node, ast.Subscript) and self.tainted(node.slice):
                how = "lookup"
            elif isinstance(node, ast.Compare) and not none_check(node) and self.tainted(node):
                how = "branch"
            elif self.leaf.passed_to and self.hands_helper(node):
                how = "call"
            if how is not None:
                # A comprehension clause has no line of its own: take its `if`'s.
                where = node.ifs[0] if isinstance(node, ast.comprehension) else node
                found.append(Reach(self.leaf, getattr(where, "lineno", self.fn.lineno), how))
        found.sort(key=lambda r: (r.line, r.how != "branch"))
        return found


def reaches(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> list[Reach]:
    return Tainter(fn, leaf).reaches()


def first_reach(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> Reach | None:
    found = reaches(fn, leaf)
    branches = [r for r in found if r.how != "return"]
    chosen = branches or found
    return chosen[0] if chosen else None


def never_read(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> bool:
    """True when a parameter leaf is provably unused: no read, no opaque introspection."""
    if len(leaf.path) != 1:
        return field_never_read(fn, leaf)
    name = leaf.path[0][1]
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Store):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in OPAQUE_CALLS:
                return False
    # The body of a nested function or lambda is walked above too, so closures count.
    return True


def field_never_read(fn: ast.FunctionDef | ast.AsyncFunctionDef, leaf: Leaf) -> bool:
    """A field of a declared class is unread when its parameter is only ever used for other
    fields: every use of the parameter is `p.other` / `p["other"]`, none is a method call,
    and nothing receives the whole object."""
    root = leaf.path[0][1]
    step, first = leaf.path[1]
    if step not in ("attr", "key"):
        return False
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in OPAQUE_CALLS:
                return False
        if not (isinstance(node, ast.Name) and node.id == root):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.Attribute):
            grand = parents.get(id(parent))
            if isinstance(grand, ast.Call) and grand.func is parent:
                return False  # a method of the object may read anything
            if parent.attr == first:
                return False
        elif isinstance(parent, ast.Subscript) and parent.value is node:
            key = parent.slice
            if not isinstance(key, ast.Constant) or key.value == first:
                return False
        else:
            return False
    return True


def call_name(call: ast.Call) -> str:
    """The name a call is made by: `helper(...)`, `self.helper(...)`, `module.helper(...)`."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


# How deep the static review follows a protected value into helpers of the project.
HELPER_DEPTH = 2


def passed_to_helpers(
    fn: FunctionNode, leaf: Leaf, functions: dict[str, FunctionNode], memo: dict[object, bool],
    depth: int = 0,
) -> tuple[str, ...]:
    """Names of the project's helpers `fn` hands the leaf to (as it is or as what it became)
    whose parameter then reaches a branch, a lookup or a match there, or in their helpers."""
    tainter = Tainter(fn, leaf)
    found: list[str] = []
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        called = called_function(node, functions)
        if called is None or called[0] is fn:
            continue
        callee, bound = called
        name = call_name(node)
        if name in found:
            continue
        for param, arg in call_bindings(callee, node, bound):
            if tainter.tainted(arg) and decides_with(callee, param, leaf, functions, memo, depth):
                found.append(name)
                break
    return tuple(found)


def decides_with(
    callee: FunctionNode, param: str, leaf: Leaf, functions: dict[str, FunctionNode],
    memo: dict[object, bool], depth: int,
) -> bool:
    key = ("decides", id(callee), param, depth)
    if key not in memo:
        memo[key] = False  # a helper that calls itself ends here
        inner = Leaf((("param", param),), param, param, [], leaf.category)
        decided = any(r.how != "return" for r in Tainter(callee, inner).reaches())
        if not decided and depth + 1 < HELPER_DEPTH:
            decided = bool(passed_to_helpers(callee, inner, functions, memo, depth + 1))
        memo[key] = decided
    return memo[key]


# Nodes whose test decides which way the code goes; with the tests nested in their bodies
# they make one scope of conditions.
CONDITIONALS = (ast.If, ast.While, ast.IfExp, ast.Assert, ast.Match)


def tainters(fn: FunctionNode, leaves: list[Leaf]) -> dict[str, Tainter]:
    """Each leaf's walk through `fn`, by display: built once, read by condition_scopes and
    acting_with alike."""
    return {leaf.display: Tainter(fn, leaf) for leaf in leaves}


def condition_scopes(
    fn: FunctionNode, leaves: list[Leaf], walks: dict[str, Tainter] | None = None
) -> dict[str, frozenset[int]]:
    """For each leaf the function itself decides with, the conditional scopes it is read in:
    a scope is one `if`/`while`/`match`/conditional expression, its test and every test
    nested in its body. Two inputs and a third can only act together where one scope reads
    all three (`if method == GIRTH and age >= 18 and sex == "female"`). A leaf that may be
    decided on in a helper or a method is left out: nothing is known of it."""
    scopes: list[tuple[int, list[ast.expr]]] = []
    for node in ast.walk(fn):
        if isinstance(node, CONDITIONALS):
            scopes.append((id(node), [t for inner in ast.walk(node) for t in tests_of(inner)]))
        elif isinstance(node, ast.comprehension) and node.ifs:
            scopes.append((id(node), list(node.ifs)))
    found: dict[str, frozenset[int]] = {}
    for leaf in leaves:
        if leaf.passed_to or leaf.read_in or (len(leaf.path) > 1 and escapes(fn, leaf)):
            continue  # it may decide in a helper or a method too: scopes here do not say
        tainter = walks[leaf.display] if walks and leaf.display in walks else Tainter(fn, leaf)
        found[leaf.display] = frozenset(
            scope
            for scope, tests in scopes
            if any(tainter.tainted(without_none_checks(t)) for t in tests)
        )
    return found


def escapes(fn: FunctionNode, leaf: Leaf) -> bool:
    """Whether the object holding a field leaf goes where this function's code cannot be
    read: passed whole to a call, or asked to run a method (`self._rate()` reading
    `self.sex`)."""
    root = leaf.path[0][1]
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id == root:
                return True
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if any(isinstance(a, ast.Name) and a.id == root for a in arguments):
            return True
    return False


def tests_of(node: ast.AST) -> list[ast.expr]:
    """The expressions a node decides with: a test, a match subject and its guards, the
    `if`s of a comprehension."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return [node.test]
    if isinstance(node, ast.Match):
        return [node.subject, *(case.guard for case in node.cases if case.guard)]
    if isinstance(node, ast.comprehension):
        return list(node.ifs)
    return []


def acting_with(
    fn: FunctionNode, leaves: list[Leaf], walks: dict[str, Tainter] | None = None
) -> frozenset[str]:
    """The other inputs the function hands to one call beside a protected input
    (`self._troponin_score(patient.presentation_hstni, patient.sex)`) or reads in a
    conditional that also reads it, in its test or in what it guards (`if reference ==
    UK_WHO: return uk_who_chart(..., sex=sex)`): how far the attribute acts depends on them,
    so the search varies them before the rest (a troponin between the two sexes'
    thresholds)."""
    protected = [leaf for leaf in leaves if leaf.protected]
    if not protected:
        return frozenset()
    walks = walks if walks is not None else tainters(fn, leaves)
    groups: list[list[ast.AST]] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            arguments: list[ast.AST] = [*node.args, *(k.value for k in node.keywords)]
            if len(arguments) >= 2:
                groups.append(arguments)
        elif isinstance(node, CONDITIONALS):
            # A test and what it guards: `if reference == UK_WHO: return uk_who(..., sex)`
            groups.append([node])
    found: set[str] = set()
    for parts in groups:
        reading = [{d for d, walk in walks.items() if walk.tainted(part)} for part in parts]
        names = set().union(*reading)
        if any(leaf.display in names for leaf in protected):
            found |= {d for d in names if d not in {leaf.display for leaf in protected}}
    return frozenset(found)
