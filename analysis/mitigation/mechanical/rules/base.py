"""What a mechanical rule is: a small class that turns one form of bias into the code the
reference group already gets, by edits to the module's text."""

from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from typing import ClassVar, TypeVar

from analysis.mitigation.mechanical.edits import Edit
from analysis.mitigation.mechanical.target import Target


class Rule(ABC):
    """One form of bias and its mechanical fix.

    `edits` returns the changes of one pass over the function (edits that do not overlap);
    the fixer makes them, parses the result and calls the rule again until it has nothing
    left to change, so a rule only ever sees code as it is after its last pass.
    """

    name: ClassVar[str]  # as the fix reports it: `collapse-branch`
    does: ClassVar[str]  # what it did, for the note: "a branch on {attribute} ..."

    @abstractmethod
    def edits(self, target: Target) -> list[Edit]: ...


class NodeRule(Rule):
    """A rule that rewrites one node a pass: the next pass sees the text as it is then."""

    def edits(self, target: Target) -> list[Edit]:
        for node in target.walk():
            edit = self.rewrite(target, node)
            if edit is not None:
                return [edit]
        return []

    @abstractmethod
    def rewrite(self, target: Target, node: ast.AST) -> Edit | None: ...


RULES: dict[str, type[Rule]] = {}
R = TypeVar("R", bound=type[Rule])


def register(rule: R) -> R:
    RULES[rule.name] = rule
    return rule
