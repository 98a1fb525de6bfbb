"""The names one module defines at its top level, and those it imports from its project:
what `analysis.facts.imports` reads and `ModuleFacts` starts from."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from analysis.source.functions import FunctionNode, called_function

# The helpers of one imported function followed: enough for a rule file's private helpers.
MAX_HELPERS = 40


@dataclass
class Exports:
    """The names one module defines at its top level, and those it imports from the project."""

    constants: dict[str, Any] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    # The functions of its own module each imported function calls, by the name it is
    # imported under: `scored_rule(base, person)` hands `person["zip_code"]` to its module's
    # `_weight(v)`, which compares it with "rural". Without them the caller's input would
    # not learn what the helper compares it with.
    helpers: dict[str, list[FunctionNode]] = field(default_factory=dict)
    # The helpers of each of its own functions, by id, once worked out: every module that
    # imports the function asks (a star import of a large module, each of its functions).
    helpers_of: dict[int, list[FunctionNode]] = field(default_factory=dict, compare=False)
    public: list[str] | None = None  # `__all__`, when it is a literal
    # Constants of the modules imported functions come from: what their comparisons name.
    context: dict[str, Any] = field(default_factory=dict)
    # Classes the fields of imported classes are annotated with (`sex: Sex` of an imported
    # `UserProfile`), though this module does not name them: what a built record needs.
    field_classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    # The words (identifiers, attributes, short strings) of the module itself, and those of
    # each project module it imports from, and theirs in turn, by module: a function whose
    # module only hands a frame to `prepare_features` may still be about the people
    # `schema.py` names.
    words: frozenset[str] = frozenset()
    imported_words: dict[str, frozenset[str]] = field(default_factory=dict)

    def update(self, other: Exports, names: dict[str, str] | None = None) -> None:
        """Take `other`'s names: all of its public ones (a star import), or `names`
        mapped from theirs to ours (`from m import a as b`)."""
        if names is None:
            wanted = other.public
            names = {
                n: n
                for n in [*other.constants, *other.classes, *other.functions]
                if (n in wanted if wanted is not None else not n.startswith("_"))
            }
        for theirs, ours in names.items():
            if theirs in other.constants:
                self.constants[ours] = other.constants[theirs]
            if theirs in other.classes:
                self.classes[ours] = other.classes[theirs]
                known = {**other.field_classes, **other.classes}
                for name in field_class_names(other.classes[theirs], known):
                    self.field_classes.setdefault(name, known[name])
                # `identity: Identity`, a name its module gives a `Literal[...]`
                for name in annotation_names(other.classes[theirs]) & other.constants.keys():
                    self.context.setdefault(name, other.constants[name])
                prefix = f"{theirs}."
                for key, value in other.constants.items():
                    if key.startswith(prefix):
                        self.constants[ours + key[len(theirs) :]] = value
            if theirs in other.functions:
                self.functions[ours] = other.functions[theirs]
                self.helpers[ours] = other.called_helpers(other.functions[theirs])
                for key, value in [*other.constants.items(), *other.context.items()]:
                    self.context.setdefault(key, value)

    def imported_from(self, module: str, other: Exports) -> None:
        """Keep the words of `other`, project module `module`, and of those it imports."""
        self.imported_words.update(other.imported_words)
        self.imported_words[module] = other.words

    def called_helpers(self, function: FunctionNode) -> list[FunctionNode]:
        """The helpers `function`, one of this module's, calls (see `called_helpers`)."""
        if id(function) not in self.helpers_of:
            self.helpers_of[id(function)] = called_helpers(function, self)
        return self.helpers_of[id(function)]

    def prefixed(self, other: Exports, alias: str) -> None:
        """`import pkg.codes as codes`: `codes.MALE`, `codes.Sex` and `codes.helper` are
        reached through the alias."""
        for name, value in other.constants.items():
            self.constants[f"{alias}.{name}"] = value
        known = {**other.field_classes, **other.classes}
        for name, cls in other.classes.items():
            self.classes[f"{alias}.{name}"] = cls
            for used in field_class_names(cls, known):
                self.field_classes.setdefault(used, known[used])
        for name, function in other.functions.items():
            self.functions[f"{alias}.{name}"] = function
            self.helpers[f"{alias}.{name}"] = other.called_helpers(function)
        for key, value in other.context.items():
            self.context.setdefault(key, value)


def annotation_names(cls: ast.ClassDef) -> set[str]:
    """The names the annotations of `cls`'s fields use."""
    used = [stmt.annotation for stmt in cls.body if isinstance(stmt, ast.AnnAssign)]
    return {n.id for expr in used for n in ast.walk(expr) if isinstance(n, ast.Name)}


def field_class_names(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[str]:
    """Names of `classes` that the annotated fields of `cls` use, and the bases it derives
    from (whose fields and kind it inherits), and theirs in turn."""
    found: list[str] = []
    todo = [cls]
    while todo:
        current = todo.pop()
        used = [stmt.annotation for stmt in current.body if isinstance(stmt, ast.AnnAssign)]
        for node in [n for expr in [*used, *current.bases] for n in ast.walk(expr)]:
            name = node.id if isinstance(node, ast.Name) else None
            if name in classes and name not in found and classes[name] is not cls:
                found.append(name)
                todo.append(classes[name])
    return found


def called_helpers(function: FunctionNode, exports: Exports) -> list[FunctionNode]:
    """The functions of `exports` (one module's) that `function` calls, and those they call
    in turn, with the helpers of the ones it imported itself."""
    found: list[FunctionNode] = []
    todo = [function]
    names = {id(f): n for n, f in exports.functions.items()}
    while todo and len(found) < MAX_HELPERS:
        current = todo.pop()
        for node in ast.walk(current):
            called = (
                called_function(node, exports.functions) if isinstance(node, ast.Call) else None
            )
            if called is None or called[0] is function or any(called[0] is f for f in found):
                continue
            found.append(called[0])
            todo.append(called[0])
            inherited = exports.helpers.get(names.get(id(called[0]), ""), [])
            found += [h for h in inherited if all(h is not f for f in found)]
    return found[:MAX_HELPERS]
