"""A method of a class that cannot make its own instance (a mix-in reading what the classes
mixing it in set up, an abstract base) is given an instance of the module's class that
derives from it and sets that up (analysis/inputs/classes.py `concrete_subclass`)."""

from __future__ import annotations

import ast

from analysis_kit import verdict

from analysis.facts.module import ModuleFacts
from analysis.inputs.classes import concrete_subclass

TABLES = """\
from abc import ABC, abstractmethod


class Table(ABC):
    def __init__(self):
        self.rates = {}

    @abstractmethod
    def rate(self, age): ...

    def premium(self, age, amount):
        return amount * self.rate(age)


class OneDimensionMixIn:
    def qx(self, age):
        return self.rates[age]


class Loaded(Table):
    def __init__(self, path):
        super().__init__()
        self.rates = {a: a / 1000 for a in range(18, 101)}


class Example(OneDimensionMixIn, Table):
    def __init__(self):
        super().__init__()
        self.rates = {a: a / 1000 for a in range(18, 101)}

    def rate(self, age):
        return self.rates[age]
"""


def classes(source: str) -> tuple[ModuleFacts, dict[str, ast.ClassDef], dict[str, ast.FunctionDef]]:
    facts = ModuleFacts(ast.parse(source))
    methods = {
        f"{c.name}.{m.name}": m
        for c in facts.classes.values()
        for m in c.body
        if isinstance(m, ast.FunctionDef)
    }
    return facts, facts.classes, methods


def test_a_mix_in_s_method_gets_the_class_that_mixes_it_in() -> None:
    facts, found, methods = classes(TABLES)
    subclass = concrete_subclass(found["OneDimensionMixIn"], methods["OneDimensionMixIn.qx"], facts)
    assert subclass is found["Example"]
    # An abstract base: the subclass that needs no constructor argument, and is not abstract.
    subclass = concrete_subclass(found["Table"], methods["Table.premium"], facts)
    assert subclass is found["Example"]
    # A whole class keeps its own.
    assert concrete_subclass(found["Example"], methods["Example.rate"], facts) is None


def test_the_mix_in_s_method_is_proved_on_the_subclass_s_instance() -> None:
    report = verdict(TABLES, "OneDimensionMixIn.qx")
    assert report.status == "biased", (report.reason, report.findings)
    assert report.biased_attributes == ["age"]


def test_without_a_subclass_that_sets_it_up_nothing_is_chosen() -> None:
    source = "class MixIn:\n    def qx(self, age):\n        return self.rates[age]\n"
    facts, found, methods = classes(source)
    assert concrete_subclass(found["MixIn"], methods["MixIn.qx"], facts) is None
