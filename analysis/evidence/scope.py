"""Which functions a recording run records: those the search needs the project's own calls
for. A function with protected inputs (its calls build the person as the project does);
one whose inputs the builder cannot see into (a record read by keys held elsewhere, a
parameter of no known kind) where a person may sit inside: the function names a person
(`credit_scores(people)`, a `people.markers` word) or its module, or a project module it
imports from, speaks of a protected category somewhere. Never a test, never a function
without parameters; a general library's functions of unknown inputs are not worth running
its test suite for.
"""

from __future__ import annotations

import ast

from analysis.caches import Cache
from analysis.evidence.calls import FunctionKey
from analysis.evidence.recording import RecordingTarget
from analysis.execution.harness.datarows import names_a_file
from analysis.facts.module import ModuleFacts, tree_words
from analysis.facts.people import function_names, names
from analysis.search.missing_fields import has_opaque_record
from analysis.shapes import InputModel, LeafShape, ObjectShape, Param
from analysis.source.functions import FunctionInfo, all_arguments
from config.policy import Policy, name_tokens

# Annotations that say a parameter holds a plain value: no person inside.
PLAIN_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "bytes", "complex", "None"})
# Whether the module names a protected category anywhere.
SPEAKS_OF_PEOPLE: Cache[None, bool] = Cache("the module speaks of people")


def wanted(info: FunctionInfo, model: InputModel, facts: ModuleFacts, policy: Policy) -> bool:
    """Whether calls of `info` (whose synthesised model is `model`) are worth recording."""
    if not model.params:
        return False
    if model.protected:
        return True
    annotations = {arg.arg: arg.annotation for arg in all_arguments(info.node)}
    unknown = has_opaque_record(model) or any(
        opaque(param, annotations.get(param.name)) for param in model.params
    )
    return unknown and about_people(info, model, facts, policy)


def about_people(info: FunctionInfo, model: InputModel, facts: ModuleFacts, policy: Policy) -> bool:
    """The function names a person, or its module names a protected category anywhere (an
    identifier, an attribute, a string) by a word that is not weak: a graph's `degree`, a
    server's `location` or `region` say nothing of people (networkx's test suite was run for
    four hundred functions of unknown inputs)."""
    markers = [name_tokens(m) for m in policy.people.markers]
    if names(function_names(info, model), markers):
        return True
    return facts.caches.once(SPEAKS_OF_PEOPLE, lambda: speaks_of_people(facts, policy))


def speaks_of_people(facts: ModuleFacts, policy: Policy) -> bool:
    """The module names a protected category; or a project module it imports from, or one
    they import, names two (`age` and `sex` of a schema). One alone there is as likely
    HTTP's `Age` header (half of werkzeug imports it), and two across a whole library
    (networkx's `women` of a social graph, `alter` of a file format) say nothing."""
    if any(names_a_category(word, policy) for word in tree_words(facts.tree)):
        return True
    return any(
        len({policy.canonical_category(w) for w in words if names_a_category(w, policy)}) >= 2
        for words in facts.imported_words.values()
    )


def names_a_category(word: str, policy: Policy) -> bool:
    """Whether a word carries a protected category by a word that is not weak."""
    if policy.canonical_category(word) is None:
        return False
    found = policy.word_in(word)
    return found is None or policy.strength(found) != "weak"


def opaque(param: Param, annotation: ast.expr | None) -> bool:
    """A parameter the builder cannot see into: a bare leaf whose pool owes nothing to the
    code, not annotated as a plain value, or that the code compares with a short code; or an
    instance (a method's `self`) whose fields the builder found nothing protected in, though
    it may hold the person in an object of its own (`self.settings.age`); or a parameter
    that names a file (`profile_json`)."""
    if isinstance(param.shape, ObjectShape) or names_a_file(param.name):
        return True
    if not isinstance(param.shape, LeafShape):
        return False
    leaf = param.shape.leaf
    if leaf.from_code:
        # Compared with a letter or two and of no category: a code (`s == "M"`) the runs'
        # values may tell the category of (evidence/bases.py shown_values). Words
        # (`period == "annual"`) say what they are; recording each such function would
        # run the suite for nothing.
        codes = [v for v in leaf.pool[: leaf.from_code] if isinstance(v, str) and 0 < len(v) <= 2]
        return leaf.category is None and bool(codes)
    if isinstance(annotation, ast.Name) and annotation.id in PLAIN_ANNOTATIONS:
        return False
    return not (isinstance(annotation, ast.Constant) and annotation.value is None)


def recording_target(file: str, info: FunctionInfo, speculative: bool = False) -> RecordingTarget:
    """How the child knows the function: its code's name and first line. `speculative`: it
    has no protected input of its own (see RecordingTarget)."""
    lines = tuple(sorted({info.first_line, info.line}))
    return RecordingTarget(FunctionKey(file, info.qualname), info.name, lines, speculative)
