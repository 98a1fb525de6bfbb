"""Reads of the items of a list or mapping parameter: `for c in candidates: c["age"]`,
`max(candidates, key=lambda c: c.score)`, `candidates[0].age`, `groups["a"].age`."""

from __future__ import annotations

import ast

from analysis.caches import Cache
from analysis.facts.fieldreads import KEY_NAMES, FieldRead, Matcher, record_accesses, with_aliases
from analysis.facts.module import ModuleFacts
from analysis.source.mentions import mentions
from analysis.source.reads_input import aliases, constant_key, input_subscript, is_input
from config.policy import Policy

# (function, list's or mapping's name, mapping) -> the fields read from its items.
ITEM_FIELDS: Cache[tuple[int, str, bool], dict[str, FieldRead]] = Cache("fields of items")


def element_accesses(
    fn: ast.AST, name: str, facts: ModuleFacts, mapping: bool = False
) -> dict[str, FieldRead]:
    """Fields read from the items of a list parameter: `for c in name: c["age"]`, a key
    function given the list (`sorted(name, key=lambda c: c["age"])`, `key=adjusted`,
    `filter(lambda c: ..., name)`, `name.sort(key=...)`), items taken by index (`name[0].age`)
    or picked out (`best = max(name, key=...)`; `best["name"]`).

    With `mapping`, the values of a dict parameter instead: `for k, v in name.items()`,
    `for v in name.values()`."""
    key = (id(fn), name, mapping)
    kept = facts.caches[ITEM_FIELDS]
    if key in kept:
        return dict(kept[key])
    names = list_aliases(fn, name)
    fields: dict[str, FieldRead] = {}
    items: set[str] = set()  # local names bound to one item
    for node in mentions(fn).around(names):  # a loop, a call or a pick mentions the list
        if isinstance(node, (ast.For, ast.comprehension)):
            target = item_target(node.iter, node.target, names, mapping)
            if target is not None:
                scope = node if isinstance(node, ast.For) else fn
                fields.update(record_accesses(scope, target, facts))
        elif not mapping and isinstance(node, ast.Call) and given_the_list(node, names):
            fields.update(key_function_reads(node, facts))
        elif not mapping and isinstance(node, ast.Assign) and picks_one(node.value, names):
            items |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    if not mapping:
        for field_name, where in picked_reads(fn, name, names, items, facts).items():
            fields.setdefault(field_name, where)
    kept[key] = dict(fields)
    return fields


def held_item_accesses(fn: ast.AST, held: Matcher, facts: ModuleFacts) -> dict[str, FieldRead]:
    """Fields read from the items of a list a record holds (`held` matches it: the
    `members` of `household["members"]` or `household.members`): `for m in
    household["members"]: m["age"]`, through a local (`members = household["members"]`,
    then as any list), or one item taken by position (`household.members[0].sex`)."""
    fields: dict[str, FieldRead] = {}
    # Only the nodes around the list's mentions: a record of 3,000 fields asks for each.
    for node in held.nodes(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and held(node.iter):
            if isinstance(node.target, ast.Name):
                scope = node if isinstance(node, ast.For) else fn
                fields.update(record_accesses(scope, node.target.id, facts))
        elif isinstance(node, ast.Assign) and held(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    fields.update(element_accesses(fn, target.id, facts))
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Subscript)
            and held(node.value.value)
            and not isinstance(constant_key(node.value), str)
        ):
            for target in node.targets:  # `head = household.members[0]`
                if isinstance(target, ast.Name):
                    fields.update(record_accesses(fn, target.id, facts))

    def by_position(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Subscript)
            and held(node.value)
            and not isinstance(constant_key(node), str)
        )

    for field_name, read in record_accesses(
        fn, "", facts, Matcher(by_position, held.words)
    ).items():
        fields.setdefault(field_name, read)
    return fields


def key_function_reads(call: ast.Call, facts: ModuleFacts) -> dict[str, FieldRead]:
    """The fields a function given the list reads of each item: a lambda's first parameter
    (`key=lambda c: c["age"]`), or a module function's (`key=adjusted`)."""
    fields: dict[str, FieldRead] = {}
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(arg, ast.Lambda) and arg.args.args:
            fields.update(record_accesses(arg, arg.args.args[0].arg, facts))
        elif isinstance(arg, ast.Name) and arg.id in facts.functions:
            helper = facts.functions[arg.id]
            params = [a.arg for a in [*helper.args.posonlyargs, *helper.args.args]]
            if params:
                fields.update(record_accesses(helper, params[0], facts))
    return fields


def picked_reads(
    fn: ast.AST, name: str, names: set[str], items: set[str], facts: ModuleFacts
) -> dict[str, FieldRead]:
    """The fields read of the items picked out (`best = max(name, ...)`, `items`) or taken
    by index (`name[0].age`)."""
    fields: dict[str, FieldRead] = {}
    for item in sorted(items):
        for field_name, where in record_accesses(fn, item, facts).items():
            fields.setdefault(field_name, where)
    indexed = record_accesses(fn, name, facts, base=item_of(names))
    for field_name, where in indexed.items():
        fields.setdefault(field_name, where)
    return fields


def item_target(iterated: ast.expr, target: ast.expr, names: set[str], mapping: bool) -> str | None:
    """The loop variable that holds one item: `for c in name` (a list), `for k, v in
    name.items()` or `for v in name.values()` (a mapping)."""
    if not mapping:
        if isinstance(iterated, ast.Call) and getattr(iterated.func, "id", "") == "enumerate":
            if iterated.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                iterated, target = iterated.args[0], target.elts[1]  # for i, c in enumerate(name)
        if is_input(iterated, names) or holds_items(iterated, names):
            return target.id if isinstance(target, ast.Name) else None
        return None
    if not (
        isinstance(iterated, ast.Call)
        and isinstance(iterated.func, ast.Attribute)
        and is_input(iterated.func.value, names)
    ):
        return None
    method = iterated.func.attr
    if method == "values" and isinstance(target, ast.Name):
        return target.id
    if method == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        value = target.elts[1]
        return value.id if isinstance(value, ast.Name) else None
    return None


# Calls that pick one of the people: `best = max(candidates, key=...)`.
PICK_ONE = frozenset({"max", "min", "next", "choice"})


def picks_one(value: ast.expr, names: set[str]) -> bool:
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return called in PICK_ONE and any(is_input(a, names) for a in value.args)


# Calls that give back the same people, reordered or filtered: `ranked = sorted(candidates)`.
SAME_ITEMS = frozenset({"sorted", "list", "tuple", "set", "reversed", "filter", "iter"})


def list_aliases(fn: ast.AST, name: str) -> set[str]:
    """`name`, and the local names that hold its items: `ranked = sorted(name, key=...)`,
    `adults = [p for p in name if ...]`, `rest = name[1:]`."""
    names = {name}
    index = mentions(fn)
    fresh = {name}

    def takes_items(value: ast.expr) -> bool:
        return holds_items(value, names)

    while fresh:  # aliases of aliases: an assignment of items mentions what it takes them from
        found = aliases(index.around(fresh), takes_items)
        fresh = found - names
        names |= fresh
    return names


def holds_items(value: ast.expr, names: set[str]) -> bool:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id in SAME_ITEMS and any(is_input(a, names) for a in value.args)
    if isinstance(value, ast.Subscript):
        return input_subscript(value, names) and isinstance(value.slice, ast.Slice)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        first = value.generators[0]
        return (
            is_input(first.iter, names)
            and isinstance(first.target, ast.Name)
            and is_input(value.elt, {first.target.id})
        )
    return False


def given_the_list(call: ast.Call, names: set[str]) -> bool:
    """`f(name, ...)`, `f(..., key=name)` or `name.sort(...)`."""
    if any(is_input(a, names) for a in [*call.args, *(k.value for k in call.keywords)]):
        return True
    return isinstance(call.func, ast.Attribute) and is_input(call.func.value, names)


def item_of(names: set[str]) -> Matcher:
    """An item of a list taken by position: `name[0]`, `name[-1]`, `name[i]`."""

    def matches(node: ast.AST) -> bool:
        # `name["age"]` reads a field by its name: no item taken by position
        return input_subscript(node, names) and not isinstance(constant_key(node), str)

    return Matcher(matches, frozenset(names))


# Items of a row unpacked by a loop (`for name, age, sex in people`), at most.
MAX_ROW_ITEMS = 12
UNPACKING_LOOPS: Cache[int, dict[str, list[list[str]]]] = Cache("loops unpacking items")


def unpacked_rows(fn: ast.AST, name: str, facts: ModuleFacts) -> dict[int, str]:
    """The names a loop unpacks each item of the list `name` into: `for name, age in people`,
    `for i, (name, age) in enumerate(people)` -> {0: "name", 1: "age"}; {} when no loop
    unpacks its items (or two loops disagree)."""
    loops = facts.caches.value(UNPACKING_LOOPS, id(fn), lambda: unpacking_loops(fn))
    if not loops:
        return {}
    found: dict[int, str] = {}
    for iterated in list_aliases(fn, name) & loops.keys():
        for unpacked in loops[iterated]:
            if found and len(found) != len(unpacked):
                return {}
            for i, local in enumerate(unpacked):
                if local and not found.get(i):
                    found[i] = local
                found.setdefault(i, "")
    return found


def unpacking_loops(fn: ast.AST) -> dict[str, list[list[str]]]:
    """The loops of `fn` that unpack the items of a name they walk, by that name: the local
    each position goes to ("" for one that is no plain name). One walk per function: a
    record's thousand fields each ask."""
    found: dict[str, list[list[str]]] = {}
    for node in ast.walk(fn):
        if not isinstance(node, (ast.For, ast.comprehension)):
            continue
        iterated, target = node.iter, node.target
        if isinstance(iterated, ast.Call) and getattr(iterated.func, "id", "") == "enumerate":
            if iterated.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                iterated, target = iterated.args[0], target.elts[1]
        if not isinstance(iterated, ast.Name) or not isinstance(target, ast.Tuple):
            continue
        locals_ = [t.id if isinstance(t, ast.Name) else "" for t in target.elts]
        if 2 <= len(locals_) <= MAX_ROW_ITEMS:
            found.setdefault(iterated.id, []).append(locals_)
    return found


# function -> the locals assigned from a protected input in it (one walk per function).
PERSON_KEYS: Cache[int, set[str]] = Cache("locals of protected inputs")


def person_keyed_reads(
    fn: ast.AST, base: Matcher, facts: ModuleFacts, policy: Policy
) -> Matcher | None:
    """Reads of what `base` matches by a key the person's own input gives: `rates[state]`,
    `tables.provinces[province.value]` after `province = req.province`; a matcher of those
    reads (the table's item, followed through `params = rates[state]`), or None. A key
    is the person's when it names a protected attribute (`sex`, `req.province`) or is a local
    worked out from one; a name of a column or key (`sex_col`) is not."""
    matcher = with_aliases(fn, base)
    keyed = facts.caches.value(PERSON_KEYS, id(fn), lambda: person_key_names(fn, policy))
    reads = {
        id(node)
        for node in matcher.nodes(fn)
        if isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and matcher(node.value)
        and keyed_by(node.slice, keyed, policy)
    }
    if not reads:
        return None
    return Matcher(lambda node: id(node) in reads, matcher.words)


def person_key_names(fn: ast.AST, policy: Policy) -> set[str]:
    """Locals assigned from a protected input (`province = req.province`, `g = sex.lower()`)."""
    return {
        target.id
        for node in ast.walk(fn)
        if isinstance(node, ast.Assign) and names_protected(node.value, set(), policy)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def keyed_by(key: ast.expr, locals_: set[str], policy: Policy) -> bool:
    if isinstance(key, (ast.Constant, ast.Slice)):
        return False
    return names_protected(key, locals_, policy)


def names_protected(node: ast.AST, locals_: set[str], policy: Policy) -> bool:
    """Whether an expression reads a protected input by its name, or a local worked out from
    one; never a name of a column or key that holds one (`sex_col`, `age_key`)."""
    for sub in ast.walk(node):
        word = (
            sub.id
            if isinstance(sub, ast.Name)
            else sub.attr
            if isinstance(sub, ast.Attribute)
            else None
        )
        if word is None or word.lower().rsplit("_", 1)[-1] in KEY_NAMES:
            continue
        if word in locals_ or policy.canonical_category(word) is not None:
            return True
    return False
