"""Only real people: weak categories count only where the code is about a person.

Some protected names are as often infrastructure as people: a cloud `region`, an HTTP
`Location` or `Age` header, the age of a policy, a file or a token. The policy calls these
categories weak (`people.weak`); a weak input stays protected only in a person context.
For each weak leaf, the first rule that applies decides:

1. its own path names a person (`applicant_age`, `customer.region`, a `people.markers` word),
   or its record holds a protected field of a category that is not weak (`policy.age` beside
   `policy.gender`: the record is the insured's, whatever it is called): a person;
2. its own path names infrastructure (`policy.age`, `cache_age`, a `people.not_people`
   phrase): not a person;
3. the function names a person (its name, class, parameters or the fields it reads carry a
   marker) or has a protected input of a category that is not weak (`greet(gender, age)`):
   a person;
4. the function names infrastructure (`redirect(location)`, `set_headers`, `ttl=600`), or the
   input is annotated as a duration (`age: timedelta`): not a person;
5. otherwise a person: code that decides by a bare `age` or `region`, with nothing else to
   go on, is taken to decide about people, as the labelled corpus has it.
"""

from __future__ import annotations

import ast

from analysis.functions import FunctionInfo
from analysis.inputs import InputModel, Leaf
from config.policy import Policy, contains_run, name_tokens

# Annotations of values that are no person's attribute (`age: timedelta`).
DURATION_TYPES = frozenset({"timedelta", "duration", "relativedelta"})


def only_people(model: InputModel, info: FunctionInfo, policy: Policy) -> InputModel:
    """The model with weak-category leaves outside any person context made unprotected."""
    people = policy.people
    weak = set(people.weak)
    if not weak or not any(leaf.category in weak for leaf in model.leaves):
        return model
    markers = [name_tokens(m) for m in people.markers]
    infra = [name_tokens(p) for p in people.not_people]
    context = function_names(info, model)
    strong = any(leaf.category not in weak for leaf in model.protected)
    about_people = strong or names(context, markers)
    durations = duration_params(info.node)
    # Records that hold a sex, a race...: a person's records, and their weak fields hers.
    persons = {
        leaf.path[:-1]
        for leaf in model.leaves
        if leaf.category is not None and leaf.category not in weak and len(leaf.path) > 1
    }
    # Whether the function names infrastructure: asked once, not once per weak input.
    about_infra = not about_people and names(context, infra)
    for leaf in model.leaves:
        if leaf.category not in weak:
            continue
        own = path_names(leaf)
        if names(own, markers) or leaf.path[:-1] in persons:
            continue
        duration = len(leaf.path) == 1 and leaf.path[0][1] in durations
        if names(own, infra) or (not about_people and (about_infra or duration)):
            leaf.category = None
    return model


def names(found: list[tuple[str, ...]], phrases: list[tuple[str, ...]]) -> bool:
    """Whether any phrase is a run of tokens inside one of the names."""
    return any(p and contains_run(tokens, p) for tokens in found for p in phrases)


def path_names(leaf: Leaf) -> list[tuple[str, ...]]:
    """The tokens of the leaf's path as one name: `policy.age` reads (policy, age)."""
    tokens: list[str] = []
    for _step, value in leaf.path:
        if isinstance(value, str):
            tokens += name_tokens(value)
    return [tuple(tokens)]


def function_names(info: FunctionInfo, model: InputModel) -> list[tuple[str, ...]]:
    """The names that say what a function is about: its own, its class's, its parameters'
    and those of the fields it reads."""
    found = [name_tokens(info.name)]
    if info.owner is not None:
        found.append(name_tokens(info.owner.name))
    args = info.node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None and arg.arg not in ("self", "cls"):
            found.append(name_tokens(arg.arg))
    found += [name_tokens(leaf.name) for leaf in model.leaves]
    return [f for f in found if f]


def duration_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters annotated as durations: `age: timedelta | int | None`."""
    out = set()
    args = fn.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if arg.annotation is None:
            continue
        mentioned = {
            n.id if isinstance(n, ast.Name) else n.attr
            for n in ast.walk(arg.annotation)
            if isinstance(n, (ast.Name, ast.Attribute))
        }
        if mentioned & DURATION_TYPES:
            out.add(arg.arg)
    return out
