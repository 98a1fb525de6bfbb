"""The leaves of an input: the category each carries, what the module says of its name, the
pool of values it is tried with; flags, codes and units beside an age."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from analysis.caches import Cache
from analysis.facts.annotations import annotation_kind, declares_decimal, literal_choices
from analysis.facts.bound_names import bound_names, handed_names, unwrapped
from analysis.facts.callers import category_from_callers, category_named_by_callers, value_name
from analysis.facts.harvest import TABLE_METHODS
from analysis.facts.hint import Hint
from analysis.facts.module import ModuleFacts
from analysis.facts.param_docs import DOCUMENTED_FLAGS
from analysis.inputs.pools import age_form, typical_index, value_pool
from analysis.shapes import InputModel, InputPath, Leaf, LeafShape, Shape, TupleShape, display
from analysis.source.functions import FunctionInfo, FunctionNode
from analysis.values import MISSING, EnumMember, is_number
from config.places import REGION_CODES, names_a_place
from config.policy import FLAG_PREFIXES, Policy, contains_run, name_tokens

# Categories whose words name a person's attribute in any description ("the age", "sex of").
UNAMBIGUOUS_IN_PROSE = frozenset({"age", "gender", "race"})


TIME_UNITS = frozenset({"year", "years", "month", "months", "week", "weeks", "day", "days"})


def in_years(unit: Leaf) -> None:
    """The unit beside an age (`(49, "years")`), when the code names units of time, rests on
    years: the policy's ages are years, and 70 months is no one of 70."""
    words = [v for v in unit.pool if isinstance(v, str) and v.strip().casefold() in TIME_UNITS]
    if not words:
        return
    years = next((v for v in words if v.strip().casefold() in ("year", "years")), None)
    if years is None:
        years = "years"
        unit.pool.insert(0, years)
        unit.from_code += 1
    unit.typical = unit.pool.index(years)


def spread_typicals(leaves: list[Leaf], policy: Policy) -> None:
    """Numeric inputs of one category rest on different values: the ages of four reference
    rows around a child's age, all at 30, only divide by zero (`age_one_below - age_one_above`)."""
    groups: dict[str, list[Leaf]] = {}
    for leaf in leaves:
        value = leaf.pool[leaf.typical] if leaf.pool else None
        in_group = any(step in ("index", "key") for step, _ in leaf.path[1:])
        if leaf.category is not None and isinstance(value, (int, float)) and not in_group:
            if not isinstance(value, bool):
                groups.setdefault(leaf.category, []).append(leaf)
    for category, group in groups.items():
        taken: set[Any] = set()
        ordered = [
            v
            for v in policy.protected[category].values
            if isinstance(v, (int, float)) and not isinstance(v, bool)
        ]
        for leaf in group:
            value = leaf.pool[leaf.typical]
            if value in taken:  # only a clash moves: `start=0.0, end=20.0` keep their defaults
                # the policy's values first; else any other number of its pool (the code's
                # thresholds may fill it)
                others = [
                    v
                    for v in leaf.pool
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
                ]
                value = next(
                    (
                        v
                        for v in [*[o for o in ordered if o in leaf.pool], *others]
                        if v not in taken
                    ),
                    value,
                )
                leaf.typical = leaf.pool.index(value)
            taken.add(value)


def is_flag(name: str, kinds: set[str]) -> bool:
    """Whether a protected input is a yes/no flag: annotated `bool`, or named `is_male`,
    `isBlack`, `has_...` and only ever tested for truth or used as a number (`0.2467 *
    (is_male - 0.5642)` in a clinical equation: True is 1)."""
    if "bool" in kinds:
        return True
    tokens = name_tokens(name)
    return bool(tokens) and tokens[0] in FLAG_PREFIXES and kinds <= FLAG_KINDS


FLAG_KINDS = frozenset({"truthy", "bool", "", "int", "float", "num"})

# (name, category) -> what the module says of the name and of every name of its category.
NAME_HINTS: Cache[tuple[str, str | None], Hint] = Cache("name hints")
# category -> what the module says of every name of it.
CATEGORY_HINTS: Cache[str, Hint] = Cache("category hints")
# The values each name is compared with in one function (by the function's id).
COMPARED_VALUES: Cache[int, dict[str, list[Any]]] = Cache("compared values")
COMPARED_NAMES: Cache[int, dict[str, list[str]]] = Cache("compared names")
COMBINED_INTO: Cache[int, dict[str, list[tuple[str, set[str]]]]] = Cache("combined into")
PERSON_WORDS: Cache[None, set[str]] = Cache("words that name a person")
ACTUARIAL: Cache[None, bool] = Cache("a life table's notation")
# Names of attributes besides the categories' own (`age`, `race`...): a choice among them
# (`x_type: "age"`) picks an attribute, and is no value of it.
ATTRIBUTE_NAMES = frozenset({"sex", "ethnicity", "ethnic_group"})
# Words that make the attribute after them the axis of a measure: `weight_for_age`.
RELATING_WORDS = frozenset({"for", "by", "per", "vs", "versus", "of"})
# A life table's symbols (`l_x`, `q_x`, `n p_x`...): the first are its own, the others its
# neighbours' (a derivative's `dx`, a pixel's `px` alone say nothing of ages).
LIFE_TABLE_OWN = frozenset({"lx", "qx", "npx", "nqx", "tpx", "tqx", "ax", "axn"})
LIFE_TABLE_SYMBOLS = LIFE_TABLE_OWN | {"px", "dx", "ex", "mx", "nx", "cx", "rx", "sx"}
# The letters a sex is coded by.
SEX_LETTERS = frozenset({"m", "f"})
SEQUENCES = (ast.Tuple, ast.List, ast.Set)
# What a leaf's pool depends on: name, category, kinds, choices, age form, default (its type
# and text), own kinds. -> (pool, how many of its values come from the code)
PoolKey = tuple[str, str | None, frozenset[str], str, str | None, type[Any], str, frozenset[str]]
POOLS: Cache[PoolKey, tuple[list[Any], int]] = Cache("pools")


def coded_field(path: InputPath, kinds: set[str], hint: Hint | None) -> bool:
    """A record's field only computed with, never compared with a number or text: a 1/0
    code of its category when the category's values are words (a region's indicator times
    its weight in a score's table)."""
    numbers = [c for c in (hint.constants if hint else []) if is_number(c)]
    return (
        len(path) > 1
        and bool(kinds & {"num", "int", "float"})
        and not kinds & {"str", "literal", "list", "dict"}
        and not numbers
    )


# What a caller's inputs are, by the caller's own names (InputBuilder.caller_model).
CallerModel = Callable[[FunctionInfo], InputModel]


# The region words that also name a thing's status, when compared with words that no place is.
STATUS_HOMONYMS = frozenset({("state",)})


def a_status(name: str, texts: list[str], policy: Policy, least: int = 1) -> bool:
    """Whether an input named `state` holds a thing's status: `least` words or more, none
    of them a place (an application's "pending", a competition's "finished"). A `region`
    that holds "low" or "high" is still one (SCORE2's risk regions), as a `job` that holds
    "student" is an occupation."""
    if policy.word_in(name) not in STATUS_HOMONYMS:
        return False
    if len([text for text in texts if len(text.strip()) > 3]) < least or places_compared(texts):
        return False
    return not any(policy.category_told_by_value(text) == "region" for text in texts)


def places_compared(texts: list[str]) -> bool:
    """Whether a value is compared with places by name, or with two codes of places. The
    places must be at least half the words it is compared with: `implementation in ("quan",
    "deyo", "australia", "sweden", ...)` picks a coding scheme, two of which are named
    after the country that made them."""
    codes = {text for text in texts if text in REGION_CODES}
    # a place by a name longer than a code: `uk` beside `fr` and `de` is a language
    words = {text for text in texts if len(text) > 3}
    named = {text for text in words if names_a_place(name_tokens(text))}
    return len(codes) >= 2 or (bool(named) and 2 * len(named) >= len(words))


class LeafMaker:
    """Makes the leaves of one function's inputs: the category each carries (by its name, its
    docstring, or what the module's own calls pass it), what the module says of the name,
    and the pool of values it is tried with."""

    def __init__(self, facts: ModuleFacts, policy: Policy, callers: CallerModel | None) -> None:
        """`callers`: a parameter its names leave open takes the category of what the
        module's calls pass it (analysis.facts.callers); None for the callers themselves."""
        self.facts = facts
        self.policy = policy
        self.callers = callers
        # Of the function being built (InputBuilder.build): its parameters' descriptions.
        self.docs: dict[str, str] = {}
        self.function: FunctionNode | None = None
        # Of the function being built: the texts the project's own runs passed it, by
        # parameter (evidence/bases.py shown_values); they tell a category as compared
        # values do.
        self.shown: dict[str, list[Any]] = {}

    def names_a_column(self, default: Any, category: str) -> bool:
        """Whether a default names where the attribute is kept rather than giving one:
        `AKIFlagger(age="age", sex="sex")` takes a frame's column names. A value of the
        category (`sex="female"`) is a value."""
        if not isinstance(default, str) or self.policy.canonical_category(default) != category:
            return False
        values = {str(v).casefold() for v in self.policy.protected[category].values}
        return default.strip().casefold() not in values

    def names_a_value(self, name: str, category: str, kinds: set[str], field: bool) -> bool:
        """`female`, `black`: a parameter named for one value of its category, only tested for
        truth or used as a number (`0.9 - 0.2 * female`), is the flag of that value; so is a
        record's field or a table's column of that name whose use the code does not show
        (`df["female"].astype(float)`)."""
        values = {str(v).lower() for v in self.policy.protected[category].values}
        return (bool(kinds) or field) and kinds <= FLAG_KINDS and name.lower() in values

    def documented_category(self, description: str, name: str) -> str | None:
        """The category a parameter's description names: "the age as integer number" is an
        age. Words that name other things too ("the degree of the node") count only beside a
        person ("degree of the applicant"). Another parameter named in it is that parameter,
        not this one ("unit of `start_age`")."""
        others = [n for n in self.docs if n != name and len(n) > 2]
        if others:
            description = re.sub(
                r"\b(?:" + "|".join(map(re.escape, others)) + r")\b", " ", description
            )
        category = self.policy.canonical_category(description)
        if category is None or category in UNAMBIGUOUS_IN_PROSE:
            return category
        tokens = name_tokens(description)
        markers = [name_tokens(m) for m in self.policy.people.markers]
        return category if any(m and contains_run(tokens, m) for m in markers) else None

    def name_hint(self, name: str, category: str | None) -> Hint:
        """What the module says of `name`, and of every name of its category (`sex` in a
        helper, `gender` here share values); computed once per module, never mutated."""
        key = (name.lower(), category)
        kept = self.facts.caches[NAME_HINTS]
        if key not in kept:
            merged = Hint()
            merged.merge(self.facts.hints.get(name.lower(), Hint()))
            if category is not None:
                merged.merge(self.category_hint(category))
            for value in self.facts.domain_of(merged.constants):
                merged.add(value)
            kept[key] = merged
        return kept[key]

    def category_hint(self, category: str) -> Hint:
        """What the module says of every name of a category, merged once per module (a
        function reading a thousand keys of one category asks for each)."""
        kept = self.facts.caches[CATEGORY_HINTS]
        if category not in kept:
            merged = Hint()
            for other, other_hint in list(self.facts.hints.items()):
                if self.policy.canonical_category(other) == category:
                    merged.merge(other_hint)
            kept[category] = merged
        return kept[category]

    def leaf(
        self,
        name: str,
        path: InputPath,
        leaves: list[Leaf],
        choices: list[Any],
        annotation: ast.expr | None,
        default: Any,
        category_name: str | None = None,
        closed: bool = False,
        item_names: tuple[str, ...] | None = None,
    ) -> LeafShape:
        """`category_name`: the name whose category the leaf carries, when not its own
        ("" for none): the "value" of `patient["age"]["value"]` is an age. `closed`: the
        choices are every value the input's type holds (an enum's members), tried with its
        default alone besides; no word or number of its category or kind joins them.
        `item_names`: the leaf is an item of the list `name` holds, used as the names its
        loops bind the items to are (`for a in ages: a > 60`), not as the list is (iterated)."""
        declared = literal_choices(annotation, self.facts) if annotation is not None else []
        category = self.category_of(name, path, default, category_name)
        if category is None and category_name is None and (declared or closed):
            category = self.category_of_choices(declared or choices)
        hint = self.name_hint(name, category)
        if item_names is not None:
            hint = item_hint(hint, [self.facts.hints.get(n.lower(), Hint()) for n in item_names])
        if annotation is not None:
            kind = annotation_kind(annotation)
            if kind and kind not in hint.kinds:
                hint = replace(hint, kinds=hint.kinds | {kind})
            choices = choices or declared
        own = self.own_kinds(name, annotation) - ({"list"} if item_names is not None else set())
        if category is None and annotation is not None and annotation_kind(annotation) == "str":
            # `event_code: str`: no number made of it elsewhere (`int(event[:-1]) > 110`) is
            # one of its values. A person's attribute keeps them: `age: str = None` is
            # written `'V%d' % age` (athlib).
            numbers = {"int", "float", "num"}
            own -= numbers
            hint = replace(hint, kinds=hint.kinds - numbers)
        form = age_form(name, own) if category == "age" else None
        if category is not None and not closed and self.yes_or_no(name, path, category, own):
            # `is_female: bool`, `isBlack`: the flag's own two values, never the category's
            # words (a non-empty string is always truthy).
            choices, hint = [True, False], Hint(kinds={"bool"})
        if closed:
            given = default is not MISSING and default not in choices
            pool = [*choices, default] if given else list(choices)
            from_code = len(choices)
        else:
            keyed = name if item_names is None else f"{name}[{','.join(item_names)}]"
            pool, from_code = self.pool(name, hint, choices, category, default, form, own, keyed)
        if declared:  # `Literal["white", "black"]`: "White" is refused, rest on one declared
            hint = replace(hint, accepted=[*hint.accepted, *declared])
        leaf = Leaf(
            path,
            display(path),
            name,
            pool,
            category,
            typical_index(pool, category, self.policy, default, hint, frozenset(own), name),
            from_code=from_code,
            declared=tuple(declared),
            decimal=annotation is not None and declares_decimal(annotation),
        )
        leaves.append(leaf)
        return LeafShape(leaf)

    def category_of(
        self, name: str, path: InputPath, default: Any, category_name: str | None
    ) -> str | None:
        """The category a leaf carries: its name's (or `category_name`'s); for a parameter
        of no category by name, what its docstring says, else what the module's calls pass."""
        category = self.policy.canonical_category(name if category_name is None else category_name)
        open_parameter = (
            category is None
            and category_name is None
            and len(path) == 1
            and not self.policy.excluded_name(name)  # `age_unit`: its name says what it is
        )
        if open_parameter and name in self.docs:
            category = self.documented_category(self.docs[name], name)
        if (
            open_parameter
            and category is None
            and self.callers is not None
            and self.function is not None
        ):
            category = category_from_callers(self.function, name, self.facts, self.callers)
            if category is None:
                category = category_named_by_callers(
                    self.function, name, self.facts, self.named_category
                )
        if open_parameter and category is None:
            category = self.handed_category(name)
        if open_parameter and category is None and name == "x" and self.actuarial():
            category = "age"  # a life table's `x`: `npx(x, n)`, `a_x`, `D_x`
        if category is None and category_name is None and not self.policy.excluded_name(name):
            category = self.category_of_values(name) or self.bound_category(path)
        if category is not None and self.names_a_column(default, category):
            category = None  # `age="age"`: the name of a column of ages, not an age
        if category and category_name is None and self.compared_otherwise(name, category):
            category = None  # `state in ("finished", "won")`: a status, not a US state
        return category

    def compared_otherwise(self, name: str, category: str) -> bool:
        """Whether an input named `state` is compared with words, none of them a place: a
        thing's status (`self.state in ("finished", "won", "drawn")`), whoever sits beside
        it (a_status)."""
        fn = self.function
        if category != "region" or fn is None:
            return False
        values = self.facts.caches.value(
            COMPARED_VALUES, id(fn), lambda: compared_values(fn, self.facts)
        )
        spelt = [value for value in values.get(name, []) if isinstance(value, str)]
        return a_status(name, spelt, self.policy, least=2)

    def category_of_choices(self, choices: list[Any]) -> str | None:
        """The one category the values an input's type allows are values of, whatever their
        strength (whether a person is meant is decided later, analysis/facts/people.py):
        `identity: Literal["national", "migrantGeneral", "migrantDomestic"]`, `type:
        Literal["resident", "residentBonus", "nonResident"]`, an enum `Ethnicity`, or one whose
        members are `MALE` and `FEMALE`. More than half the choices must be of it (those that
        share a word with one that names it count: "resident" beside "nonResident"); one
        industry among ten (`EDUCATION`) is no person's education. A choice that is the
        attribute's own name (`x_type: "age"`, the axis of a chart) or a measure of it
        (`WEIGHT_FOR_AGE`) is no value of it."""
        texts: list[str] = []
        classes: set[str] = set()
        for value in choices:
            if isinstance(value, EnumMember):
                texts.append(value.member)
                classes.add(value.cls.rsplit(".", 1)[-1])
            elif isinstance(value, str):
                texts.append(value)
        named = {c for c in map(self.policy.canonical_category, classes) if c is not None}
        if len(named) == 1:
            return named.pop()  # `Ethnicity.GROUP_A`: the class says what its members are
        found: dict[str, set[int]] = {}
        for i, text in enumerate(texts):
            category = self.value_category(text)
            if category is not None:
                found.setdefault(category, set()).add(i)
        if len(found) != 1:
            return None
        ((category, naming),) = found.items()
        words = {token for i in naming for token in name_tokens(texts[i])}
        support = [
            i
            for i, text in enumerate(texts)
            if i in naming or (words & set(name_tokens(text)) and not self.attribute_name(text))
        ]
        return category if len(support) * 2 > len(texts) else None

    def value_category(self, text: str) -> str | None:
        """The category `text` is a value of: named by a word of it, not after a word that
        makes it a measure of the attribute (`weight_for_age`), nor the attribute's own name."""
        category = self.policy.canonical_category(text)
        if category is None or self.attribute_name(text):
            return None
        tokens = name_tokens(text)
        word = self.policy.word_in(text)
        at = next((i for i in range(len(tokens)) if word and tokens[i : i + len(word)] == word), 0)
        if at and tokens[at - 1] in RELATING_WORDS:
            return None
        return category

    def attribute_name(self, text: str) -> bool:
        """Whether `text` is the name of an attribute (`age`, `sex`), not one of its values."""
        tokens = name_tokens(text)
        return "_".join(tokens) in {*self.policy.protected, *ATTRIBUTE_NAMES}

    def actuarial(self) -> bool:
        """Whether the module writes in a life table's notation, where `x` is the age: two of
        its symbols as names (`datos_lx`, `npx`, `Dx`), one of them a life table's own."""
        return self.facts.caches.once(ACTUARIAL, lambda: actuarial_notation(self.facts.tree))

    def category_of_values(self, name: str) -> str | None:
        """The category of a leaf its name says nothing of, by the words the function itself
        compares it with: `kind == "female"`, `status in ("senior_citizen", ...)`,
        `person["category"] == "senior citizen"`, or the project's runs passed it (`s`
        given "M" by one test and "F" by another). Only a strong word of one category counts
        (a region's "urban" is as often a thing's); another function's `value == "male"`
        says nothing of this one's `value`."""
        if self.function is None:
            return None
        return self.compared_category(self.function, name, self.shown.get(name, []))

    def compared_category(
        self, fn: FunctionNode, name: str, shown: list[Any], by_names: bool = True
    ) -> str | None:
        """category_of_values of `name` in `fn`, beside the values `shown` it; `by_names`:
        the names it is compared with or worked into count too."""
        values = self.facts.caches.value(
            COMPARED_VALUES, id(fn), lambda: compared_values(fn, self.facts)
        )
        compared = [*values.get(name, []), *shown]
        for value in words(compared):
            category = self.policy.canonical_category(value)
            word = self.policy.word_in(value)
            if category is not None and word is not None and self.policy.strength(word) == "strong":
                return category
        # `grp in ("Asian", "Hispanic")`, `status == "married"`: values that tell their category
        texts = words(compared)
        # Not an education: a compared "college" or "high-school" is as often a tier or a
        # level of something else (a record's, a league's) as a person's schooling.
        told = {self.policy.category_told_by_value(value) for value in texts} - {"education"}
        spelt = [value for value in compared if isinstance(value, str)]
        if places_compared(spelt) and "region" in self.policy.enabled_categories:
            told.add("region")  # `state == "California"`, `province in ("ON", "QC")`
        told.discard(None)
        if len(told) == 1:
            return told.pop()
        # `s == "F"` beside `s == "M"`, `{"M": 1.0, "F": 0.85}[code]`: a sex by its letters
        if SEX_LETTERS <= letters(compared):
            return "gender"
        if not by_names:
            return None
        # `for edad in edades: if edad >= x`: what it is compared with names what it is
        named = self.facts.caches.value(COMPARED_NAMES, id(fn), lambda: compared_names(fn))
        categories = {self.named_category(other) for other in named.get(name, [])}
        # `age = years + months / 12.0`: what it is worked into names what it is, unless
        # another part is that already (`age = today - dob`: `today` is a reference)
        combined = self.facts.caches.value(COMBINED_INTO, id(fn), lambda: combined_into(fn))
        categories |= {
            self.named_category(target)
            for target, parts in combined.get(name, [])
            if not any(self.policy.canonical_category(part) for part in parts)
        }
        return categories.pop() if len(categories) == 1 else None

    def bound_category(self, path: InputPath) -> str | None:
        """The category of the names the function binds the value at `path` to (`sex =
        raw["RIAGENDR"]`, `d["age"] = raw["RIDAGEYR"]`, a frame's column as its first row),
        when they agree on one."""
        fn = self.function
        if fn is None or len(path) < 2:
            return None
        chain = tuple(value for _, value in path)
        bound = bound_names(fn, self.facts)
        names = bound.get(chain) or (bound.get(chain[:-1], []) if path[-1] == ("index", 0) else [])
        categories = {self.named_category(name) for name in names} - {None}
        return categories.pop() if len(categories) == 1 else None

    def handed_category(self, param: str) -> str | None:
        """The category of the names the function hands a parameter on as, when they agree on
        one (`self._age_factor(value)` of `def _age_factor(self, age)`: an age); a helper's
        parameter of no name counts by the words that helper compares it with
        (`self._check(g)` of `def _check(self, gender_code): return gender_code == "female"`)."""
        fn = self.function
        if fn is None:
            return None
        categories: set[str | None] = set()
        for helper, name in handed_names(fn, self.facts).get(param, []):
            category = self.named_category(name)
            if category is None and helper is not None:
                # by values only: a helper's `observation_date < birth_date` makes no age
                category = self.compared_category(helper, name, [], by_names=False)
            categories.add(category)
        categories.discard(None)
        return categories.pop() if len(categories) == 1 else None

    def named_category(self, name: str) -> str | None:
        """The category a value's name is nothing but: `edad`, `age`, `patient_sex`; not
        `tbl_sex` (a table of one sex), `max_age` (a bound), nor a word as often a thing's
        (a graph's `degree`, a test's `expecting`)."""
        word = self.policy.word_in(name)
        if word is None or self.policy.excluded_name(name) or self.policy.strength(word) == "weak":
            return None
        markers = self.facts.caches.once(PERSON_WORDS, lambda: person_words(self.policy))
        rest = [t for t in name_tokens(name) if t not in word and not t.isdigit()]
        return self.policy.canonical_category(name) if set(rest) <= markers else None

    def own_kinds(self, name: str, annotation: ast.expr | None) -> set[str]:
        """How this input itself is used. How it carries an age is its own business:
        `dob.year` in one function says nothing about a `dateOfBirth` string in another."""
        own_hint = self.facts.hints.get(name.lower(), Hint())
        own = set(own_hint.kinds)
        if all(c is None or isinstance(c, bool) for c in own_hint.constants):
            own.discard("other")  # `if is_male is None:` checks for a missing flag
        if annotation is not None:
            own.add(annotation_kind(annotation) or "")
            if own & {"int", "float"}:
                # `d: float` here, whatever `d` is elsewhere in the module (`d.year`)
                own -= {"dateobj", "isodate"}
        elif name in self.facts.caches[DOCUMENTED_FLAGS].get(None, set()):
            own.add("bool")  # `is_north_american (bool): ...`
        return own

    def yes_or_no(self, name: str, path: InputPath, category: str, own: set[str]) -> bool:
        """Whether a protected leaf is a flag of its category: by its annotation or name, named
        for one value, or a record's 1/0 code of a category of words."""
        return (
            is_flag(name, own)
            or self.names_a_value(name, category, own, field=len(path) > 1)
            or (
                coded_field(path, own, self.facts.hints.get(name.lower()))
                and not any(is_number(v) for v in self.policy.protected[category].values)
            )
        )

    def pool(
        self,
        name: str,
        hint: Hint,
        choices: list[Any],
        category: str | None,
        default: Any,
        form: str | None,
        own: set[str],
        keyed: str,
    ) -> tuple[list[Any], int]:
        """The leaf's pool and how many of its values come from the code. The same name in
        many functions gets the same pool (`keyed`: the name and what else its hint holds):
        computed once per module."""
        key: PoolKey = (
            keyed.lower(), category, frozenset(hint.kinds), repr(choices), form,
            type(default), repr(default), frozenset(own),
        )  # fmt: skip
        pool, from_code = self.facts.caches.value(
            POOLS,
            key,
            lambda: value_pool(
                hint, choices, category, self.policy, default, form, name, frozenset(own)
            ),
        )
        return list(pool), from_code

    def held_as_tuple(self, name: str, positions: dict[int, str]) -> bool:
        """Whether a value is a small tuple read by position: `age[0]` of `(17, "years")`, or
        unpacked (`value, unit = weight`). One read of `x[0]` alone is the first letter of a
        word as often: so only for a value the code never compares with text, of no category
        but age."""
        if not positions:
            return False
        if len(positions) >= 2 or min(positions) > 0 or self.named_row(name, positions):
            return True
        category = self.policy.canonical_category(name)
        if category not in (None, "age"):
            return False
        return "str" not in self.facts.hints.get(name.lower(), Hint()).kinds

    def named_row(self, name: str, positions: dict[int, str]) -> bool:
        """Whether a tuple of no category has positions named for some (`row[SEX_COL]`,
        `name, age = person`): a row, each item what its name says."""
        return self.policy.canonical_category(name) is None and any(
            self.policy.canonical_category(local) for local in positions.values() if local
        )

    def tuple_shape(
        self,
        name: str,
        positions: dict[int, str],
        path: InputPath,
        leaves: list[Leaf],
        default: Any,
    ) -> TupleShape:
        """The tuple's items: the one that carries the value (the local named for its
        category, else the first) keeps the name; the others (a unit...) take the names the
        code gives them, and are no protected input."""
        category = self.policy.canonical_category(name)
        carrier = next(
            (
                i
                for i, local in sorted(positions.items())
                if category and local and self.policy.canonical_category(local) == category
            ),
            0,
        )
        row = self.named_row(name, positions)
        items: dict[str, Shape] = {}
        for i in range(max(positions) + 1):
            step: InputPath = (*path, ("index", i))
            if row:
                local = positions.get(i) or f"{name}[{i}]"
                items[str(i)] = self.leaf(local, step, leaves, [], None, MISSING)
            elif i == carrier:
                items[str(i)] = self.leaf(name, step, leaves, [], None, MISSING)
            else:
                local = positions.get(i) or f"{name}[{i}]"
                item = self.leaf(local, step, leaves, [], None, MISSING, category_name="")
                if category == "age":
                    in_years(item.leaf)
                items[str(i)] = item
        return TupleShape(items)


def item_hint(listed: Hint, items: list[Hint]) -> Hint:
    """What is known of one item of a list: the list's own hint less its use as a list, and
    what the code does with the names its items are bound to."""
    merged = Hint()
    merged.merge(replace(listed, kinds=listed.kinds - {"list"}))
    for hint in items:
        merged.merge(hint)
    return merged


def comparisons(fn: ast.AST) -> Iterator[tuple[ast.cmpop, ast.expr, ast.expr]]:
    """Each comparison of `fn` as (operator, subject, what it is compared with), both ways
    round: `a < b` gives (<, a, b) and (<, b, a)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for op, a, b in zip(node.ops, sides, sides[1:], strict=False):
                yield op, a, b
                yield op, b, a


# Calls that only normalise a text before it is compared: `kind.lower() == "female"`.
NORMALISING = frozenset({"lower", "upper", "casefold", "strip", "title", "capitalize", "str"})


def compared_values(fn: ast.AST, facts: ModuleFacts) -> dict[str, list[Any]]:
    """The constant values each name, attribute or key is compared with in `fn`, whatever
    the way: `kind == "female"`, `s.lower() in FEMALE_CODES` (a module's constant), `match
    kind: case "male":`, `sex is Sex.FEMALE` (the member's name and value), or the keys of
    the table it looks up (`{"M": 1.0, "F": 0.85}[code]`, `RATES.get(kind)`,
    `df["sex"].map(FACTORS)`) and the words such a table decodes it into (`{1: "Male", 2:
    "Female"}`)."""
    found: dict[str, list[Any]] = {}

    def add(subject: ast.expr, values: Any) -> None:
        name = value_name(normalised(subject))
        if name is not None:
            found.setdefault(name, []).extend(values)

    for _, subject, other in comparisons(fn):
        add(subject, constants_of(other, facts))

    def decoded(table: dict[Any, Any]) -> list[Any]:
        # Its keys, and the words it decodes them into (`{1: "Male", 2: "Female"}[code]`).
        return [*table, *(v for v in table.values() if isinstance(v, str))]

    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(table := facts.const(node.value), dict):
            add(node.slice, decoded(table))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(table := facts.const(node.func.value), dict)
        ):
            add(node.args[0], decoded(table))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in TABLE_METHODS
            and len(node.args) == 1
            and isinstance(table := facts.const(node.args[0]), dict)
        ):
            add(node.func.value, decoded(table))  # `df["sex"].map({1: "Male", 2: "Female"})`
        elif isinstance(node, ast.Match):
            for case in node.cases:
                cases = case_values(case.pattern)
                add(node.subject, [v for p in cases for v in constants_of(p, facts)])
    return found


def normalised(node: ast.expr) -> ast.expr:
    """The text a normalising call is made on: `kind` of `kind.strip().lower()`."""
    return unwrapped(node, frozenset({"str"}), NORMALISING)


def case_values(pattern: ast.pattern) -> list[ast.expr]:
    """The values a `case` compares its subject with: `case "male" | "m":`."""
    if isinstance(pattern, ast.MatchValue):
        return [pattern.value]
    if isinstance(pattern, ast.MatchOr):
        return [v for p in pattern.patterns for v in case_values(p)]
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
        return case_values(pattern.pattern)
    return []


def constants_of(node: ast.expr, facts: ModuleFacts) -> list[Any]:
    """The constant values `node` stands for: itself, the items of a collection of them,
    a module's constant, and the names of an enum's member and class beside its value
    (`Sex.FEMALE`, `Ethnicity.BLACK = 2`)."""
    value = facts.const(node)
    if isinstance(value, (tuple, list, set, frozenset, dict)):
        values = list(value)  # a dict's keys
    elif value is MISSING:
        items = node.elts if isinstance(node, SEQUENCES) else []
        values = [v for v in (facts.const(i) for i in items) if v is not MISSING]
    else:
        values = [value]
    members = node.elts if isinstance(node, SEQUENCES) else [node]
    for member in members:
        if (
            isinstance(member, ast.Attribute)
            and isinstance(member.value, ast.Name)
            and (cls := facts.classes.get(member.value.id)) is not None
            and facts.record_kind(cls) == "enum"
        ):
            values += [member.attr, member.value.id]  # `Ethnicity.BLACK`: an ethnicity
    return values


def words(values: list[Any]) -> list[str]:
    """The words (texts of three letters or more) among compared values."""
    return [v for v in values if isinstance(v, str) and len(v) >= 3]


def letters(values: list[Any]) -> set[str]:
    """The one-letter texts (lower-cased) among compared values."""
    return {v.lower() for v in values if isinstance(v, str) and len(v) == 1}


def person_words(policy: Policy) -> set[str]:
    """The words that name a person (`patient`, `applicant`), as tokens."""
    return {token for marker in policy.people.markers for token in name_tokens(marker)}


def compared_names(fn: ast.AST) -> dict[str, list[str]]:
    """The names of the values each variable is compared with in `fn` by order or equality
    (`edad >= x`, `x < person.age`)."""
    found: dict[str, list[str]] = {}
    for op, subject, other in comparisons(fn):
        other_name = value_name(other)
        if isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) or other_name is None:
            continue
        if isinstance(subject, ast.Name):
            found.setdefault(subject.id, []).append(other_name)
    return found


# What an arithmetic worked into a named value may be made of, and the calls that keep a
# number a number.
ARITHMETIC = (ast.BinOp, ast.UnaryOp, ast.Name, ast.Constant, ast.operator, ast.unaryop,
              ast.expr_context, ast.Call)  # fmt: skip
NUMBER_CALLS = frozenset({"int", "float", "round", "abs", "Decimal", "D"})


def combined_into(fn: ast.AST) -> dict[str, list[tuple[str, set[str]]]]:
    """For each variable, the names it is worked into by arithmetic alone, with the other
    variables worked in beside it: `age = years + months / 12.0` gives `years` and `months`
    the name `age`."""
    found: dict[str, list[tuple[str, set[str]]]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not isinstance(target, ast.Name) or not is_arithmetic(value):
            continue
        parts = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} - NUMBER_CALLS
        for part in parts - {target.id}:
            found.setdefault(part, []).append((target.id, parts - {part, target.id}))
    return found


def is_arithmetic(node: ast.expr) -> bool:
    for inner in ast.walk(node):
        if not isinstance(inner, ARITHMETIC):
            return False
        if isinstance(inner, ast.Call) and not (
            isinstance(inner.func, ast.Name)
            and inner.func.id in NUMBER_CALLS
            and not inner.keywords
        ):
            return False
    return True


def actuarial_notation(tree: ast.Module) -> bool:
    """Whether a module names two of a life table's symbols, one its own (see
    LIFE_TABLE_OWN), as functions, attributes, variables or keys."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            text = node.name
        elif isinstance(node, ast.Attribute):
            text = node.attr
        elif isinstance(node, ast.Name):
            text = node.id
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 20
        ):
            text = node.value
        else:
            continue
        found |= {t for t in name_tokens(text) if t in LIFE_TABLE_SYMBOLS}
    return len(found) >= 2 and bool(found & LIFE_TABLE_OWN)
