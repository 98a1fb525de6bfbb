"""Only real people: a protected word counts where the code is about a person.

Many words that name a protected attribute are as often about things: a cloud `region`, a
phone number's `country_code`, the grammatical `gender` of a numeral, a graph node's `degree`,
an HTTP `Location` or `Age` header. How much a word needs depends on it (`Policy.strength`):
strong words (`sex`, `ethnicity`, `date_of_birth`) count anywhere; the others count only in a
person context, decided for each input by the first rule that applies:

1. its own name names a person (`applicant_age`, `customer.region`: a `people.markers` word),
   or its record holds a field named by a strong word or fields of two categories, not both
   by weak words (`policy.age` beside `policy.gender`: the record is the insured's, whatever
   it is called):
   a person; or its own name names infrastructure (`policy.age` alone, `cache_region`: a
   `people.not_people` phrase): not a person;
2. its function is about a person: a marker in the function's name, its class's, its
   parameters' or the fields it reads, or an input named by a strong word beside it
   (`greet(sex, age)`): a person;
3. a column of a table as the project's run passed it (`df["age"]`, a row per record), by a
   word of `people.unless_infrastructure`: a person, whatever the function names beside it;
4. its function names infrastructure (`redirect(location)`, `set_headers`, `ttl=600`), or the
   input is annotated as a duration (`age: timedelta`): not a person;
5. a word of `people.unless_infrastructure` (`age`, `gender`): a person, with nothing against it;
6. an input of another protected category beside it, not both by weak words
   (`premium(age, region)`, `row["age"]` with `row["region"]`, not `rotate(image,
   orientation, disabled)`), something only people have (a `people.fields` word: `income`,
   `smoker`) in its function's names, a comparison with a person's value of its category
   (`region == "rural"`, `gender == "female"`), or a module about people (the inputs of its
   functions carry a strong word, a person's field, or words of two categories, not all
   weak): a person;
7. otherwise not a person: a weak word (`people.weak`) that merely matches
   (`is_partition_match(region, partition)`, `to_cardinal(number, gender="m")`) describes no
   one.

Whatever its word, a number named for a quantity about an attribute whose values are words
(`row["region_risk_score"] > 1`, `gender_factor * base`: the name's last word is a score, a
factor, a rate...) is not the attribute: not protected. A code of it (`sex_code == 1`) is.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from analysis.caches import Cache
from analysis.facts.module import ModuleFacts
from analysis.shapes import InputModel, InputPath, Leaf
from analysis.source.functions import FunctionInfo
from analysis.source.reads_input import constant_key, text_of
from analysis.values import is_number
from config.policy import Policy, Strength, contains_run, name_tokens

# Annotations of values that are no person's attribute (`age: timedelta`).
DURATION_TYPES = frozenset({"timedelta", "duration", "relativedelta"})

# The last word of a name that holds a quantity about an attribute, not the attribute:
# `region_risk_score`, `gender_factor`, `female_share`.
QUANTITY_WORDS = frozenset(
    {"score", "scores", "risk", "risks", "rate", "rates", "ratio", "ratios", "factor",
     "factors", "weight", "weights", "coef", "coeff", "coefficient", "coefficients",
     "multiplier", "adjustment", "adj", "count", "counts", "total", "sum", "share", "pct",
     "percent", "percentage", "fraction", "proportion", "points", "premium", "cost", "price",
     "amount", "mean", "avg", "average", "median", "density", "distance", "prevalence",
     "incidence", "odds", "probability", "prob", "likelihood", "offset", "bonus", "penalty",
     "delta", "diff", "difference", "gap"}
)  # fmt: skip

# Values of a category this short (`"m"`, `"US"`) are as often a word's gender or a phone
# number's region: comparing with one says nothing of a person.
MIN_VALUE_LENGTH = 2

NUMERIC_KINDS = frozenset({"int", "float", "num"})
TEXT_KINDS = frozenset({"str", "literal"})


def only_people(
    model: InputModel, info: FunctionInfo, policy: Policy, facts: ModuleFacts
) -> InputModel:
    """The model with the leaves that describe no person made unprotected."""
    for leaf in model.protected:
        if quantity_about(leaf, policy, facts):
            leaf.category = None
    strengths = {leaf.path: strength(leaf, policy) for leaf in model.protected}
    if all(s == "strong" for s in strengths.values()):
        return model
    about = PersonEvidence(model, info, policy, facts, strengths)
    for leaf in model.protected:
        if strengths[leaf.path] != "strong" and not about.a_person(leaf):
            leaf.category = None
    return model


class PersonEvidence:
    """What says whether the protected inputs of one function, named by words that are not
    strong, are about a person. What holds for the whole function, and for each holder (the
    parameters, or one record's fields), is decided once: per leaf it made a thousand fields
    of one record quadratic."""

    def __init__(
        self,
        model: InputModel,
        info: FunctionInfo,
        policy: Policy,
        facts: ModuleFacts,
        strengths: dict[InputPath, Strength],
    ) -> None:
        self.model, self.info, self.policy, self.facts = model, info, policy, facts
        self.strengths = strengths
        people = policy.people
        markers = [name_tokens(m) for m in people.markers]
        self.infra = [name_tokens(p) for p in people.not_people]
        self.fields = [name_tokens(f) for f in people.fields]
        self.words = PersonWords(markers, self.fields, policy)
        strong = "strong" in strengths.values()
        # Two categories say a person only when one is named by a word that is not weak: a
        # button's `disabled` beside an image's `orientation` are two things.
        categories = {leaf.category for leaf in model.protected}
        self.mixed = len(categories) > 1 and any(s != "weak" for s in strengths.values())
        self.durations = duration_params(info.node)
        self.persons = person_records(model, strengths)
        self.about_a_person = strong or names(function_and_class(info), markers)
        # The key a function is called with (`api_key`) says nothing of what it is about: an
        # HR server's tool takes one beside the employee's region.
        about = [n for n in function_names(info, model) if not credential(n)]
        self.about_things = names(about, self.infra)
        self.holders: dict[tuple[object, ...], tuple[bool, bool]] = {}

    def a_person(self, leaf: Leaf) -> bool:
        """Whether a protected leaf is about a person, and stays protected."""
        own = path_names(leaf)
        if self.words.name_a_person(own) or leaf.path[:-1] in self.persons:
            return True
        if names(own, self.infra):
            return False
        holder_a_person, holder_has_fields = self.holder(leaf)
        if self.about_a_person or holder_a_person:
            return True
        if self.strengths[leaf.path] == "unless_infrastructure" and in_rows(leaf):
            # A table's column of ages, a row per record as the project's run passed it: no
            # header's or cache's age comes so, whatever else the function handles (a
            # `definition_file_path` beside the patients' frame).
            return True
        duration = len(leaf.path) == 1 and leaf.path[0][1] in self.durations
        if self.about_things or duration:
            return False
        if self.strengths[leaf.path] == "unless_infrastructure":
            return True
        return (
            self.mixed
            or holder_has_fields
            or compared_with_values(leaf, self.policy, self.facts)
            or module_about_people(self.facts, self.policy)
        )

    def holder(self, leaf: Leaf) -> tuple[bool, bool]:
        """Whether what holds the leaf (the parameters, or its record) names a person, and
        whether it names a person's fields."""
        holder_key = tuple(leaf.path[:1]) if len(leaf.path) > 1 else ()
        if holder_key not in self.holders:
            holder = holder_names(self.info, leaf, self.model)
            self.holders[holder_key] = (
                self.words.name_a_person(holder),
                names(holder, self.fields),
            )
        return self.holders[holder_key]


# What a call is authorised with, by the tokens its name ends in: `api_key`, `access_token`.
CREDENTIALS = frozenset(
    {("api", "key"), ("api", "token"), ("api", "secret"), ("access", "token"),
     ("auth", "token"), ("apikey",)}
)  # fmt: skip


def credential(tokens: tuple[str, ...]) -> bool:
    """Whether a name is a credential's (`api_key`, `openai_api_key`, `access_token`)."""
    return any(tokens[-len(c) :] == c for c in CREDENTIALS)


def in_rows(leaf: Leaf) -> bool:
    """Whether the leaf is a column's rows (a DataFrame's, as recorded: evidence/bases.py)."""
    return any(step == "rows" for step, _ in leaf.path)


def compared_with_values(leaf: Leaf, policy: Policy, facts: ModuleFacts) -> bool:
    """Whether the code compares the input with a value a person of its category has
    (`gender == "female"`, `region in ("urban", "rural")`): it holds a person's. Letters and
    codes (`"m"`, `"US"`) are as often a word's gender or a phone number's region."""
    category = policy.protected.get(leaf.category or "")
    hint = facts.hints.get(leaf.name.lower())
    if category is None or hint is None:
        return False
    words = {
        v.casefold() for v in (*category.values, *category.realistic) if isinstance(v, str)
    }
    return any(
        isinstance(c, str) and len(c) > MIN_VALUE_LENGTH and c.casefold() in words
        for c in hint.constants
    )



def person_records(model: InputModel, strengths: dict[InputPath, Strength]) -> set[InputPath]:
    """The records that hold a person: a field named by a strong word, or fields of two
    categories not both named by weak words (`policy.get("age", 0)` beside
    `policy.get("gender")`; not `widget["disabled"]` beside `widget["orientation"]`)."""
    categories: dict[InputPath, set[str]] = {}
    strong: set[InputPath] = set()
    sure: set[InputPath] = set()
    for leaf in model.protected:
        if len(leaf.path) < 2 or leaf.category is None:
            continue
        record = leaf.path[:-1]
        categories.setdefault(record, set()).add(leaf.category)
        word = strengths.get(leaf.path)
        if word == "strong":
            strong.add(record)
        if word != "weak":
            sure.add(record)
    return strong | {r for r, found in categories.items() if len(found) > 1 and r in sure}


def strength(leaf: Leaf, policy: Policy) -> Strength:
    """The strength of the word that gives a leaf its category: the word of the nearest step
    of its path that carries its category (`patient["age"]["value"]` is named by "age").
    A leaf whose category comes from elsewhere (its documentation, its callers) is strong."""
    for _step, value in reversed(leaf.path):
        if isinstance(value, str) and policy.canonical_category(value) == leaf.category:
            word = policy.word_in(value)
            return policy.strength(word) if word is not None else "strong"
    return "strong"


def quantity_about(leaf: Leaf, policy: Policy, facts: ModuleFacts) -> bool:
    """Whether a leaf is a number named for a quantity about its category (`region_risk_score`,
    `gender_factor`), where the category's values are words."""
    category = policy.protected.get(leaf.category or "")
    if category is None or any(is_number(v) for v in category.values):
        return False
    tokens = name_tokens(leaf.name)
    if not tokens or tokens[-1] not in QUANTITY_WORDS or policy.word_in(leaf.name) is None:
        return False
    hint = facts.hints.get(leaf.name.lower())
    kinds = hint.kinds if hint is not None else set()
    return bool(kinds & NUMERIC_KINDS) and not kinds & TEXT_KINDS


def names(found: list[tuple[str, ...]], phrases: list[tuple[str, ...]]) -> bool:
    """Whether any phrase is a run of tokens inside one of the names; a phrase of several
    words in the singular or the plural alike (`Num2Word_ES` is of `num2words`), a single
    word as it is written (a receipt's `header` is no HTTP `headers`)."""
    singular_found = [tuple(map(singular, tokens)) for tokens in found]
    return any(
        p and (
            contains_run(tokens, p)
            or (len(p) > 1 and contains_run(plain, tuple(map(singular, p))))
        )
        for tokens, plain in zip(found, singular_found, strict=True)
        for p in phrases
    )


def singular(token: str) -> str:
    """A word without its plural's `s` (`words`, not `class` or `is`)."""
    plural = len(token) > 3 and token.endswith("s") and not token.endswith("ss")
    return token[:-1] if plural else token


def path_names(leaf: Leaf) -> list[tuple[str, ...]]:
    """The tokens of the leaf's path as one name: `policy.age` reads (policy, age)."""
    tokens: list[str] = []
    for _step, value in leaf.path:
        if isinstance(value, str):
            tokens += name_tokens(value)
    return [tuple(tokens)]


def function_names(info: FunctionInfo, model: InputModel) -> list[tuple[str, ...]]:
    """The names that say what a function is about: its own, its class's, its parameters'
    (those its signature names, and those a recorded call passed it through `**kwargs`:
    `_chunk(n, case="n", plural=False, gender="m")` is about a numeral's words) and those of
    the fields it reads."""
    found = [name_tokens(info.name)]
    if info.owner is not None:
        found.append(name_tokens(info.owner.name))
    args = info.node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None and arg.arg not in ("self", "cls"):
            found.append(name_tokens(arg.arg))
    found += [name_tokens(param.name) for param in model.params]
    found += [name_tokens(leaf.name) for leaf in model.leaves]
    return [f for f in found if f]


def function_and_class(info: FunctionInfo) -> list[tuple[str, ...]]:
    """The function's name and its class's (`customer_discount`, `PatientScore.total`)."""
    found = [name_tokens(info.name)]
    if info.owner is not None:
        found.append(name_tokens(info.owner.name))
    return found


def holder_names(info: FunctionInfo, leaf: Leaf, model: InputModel) -> list[tuple[str, ...]]:
    """The names of what an input is beside: for a parameter, the other parameters and the
    fields the function reads (`discount(user, location)`); for a field of a record, the
    record's other fields, not other parameters (`_verify(numobj, candidate)`: the number's
    `country_code`, beside a candidate match's text)."""
    if len(leaf.path) == 1:
        return function_names(info, model)
    return [name_tokens(o.name) for o in model.leaves if o.path[0] == leaf.path[0] and o.name]


# Words after a marker that keep a name the person's (`customer_id`, `patient_data`,
# `applicant_age`): the name holds the person, or part of them.
HOLDER_WORDS = frozenset(
    {"id", "ids", "name", "names", "data", "info", "record", "records", "profile", "profiles",
     "details", "row", "rows", "dict", "obj", "object", "list", "df", "key", "instance",
     "entry", "entries", "history"}
)  # fmt: skip


@dataclass(frozen=True)
class PersonWords:
    """The policy's words for people (`people.markers`) and for what they have (`fields`)."""

    markers: list[tuple[str, ...]]
    fields: list[tuple[str, ...]]
    policy: Policy

    def name_a_person(self, found: list[tuple[str, ...]]) -> bool:
        """Whether one of the names is a person's: a marker that is its last word, or is
        followed only by what a person has or holds (`main_applicant`, `customer_id`,
        `patient_age`). A marker before something else names that thing (`user_agent`,
        `member_shapes`, `min_candidate_length`)."""
        return any(self.person(tokens) for tokens in found)

    def person(self, tokens: tuple[str, ...]) -> bool:
        for marker in self.markers:
            n = len(marker)
            for i in range(len(tokens) - n + 1):
                if tokens[i : i + n] == marker and all(map(self.held, tokens[i + n :])):
                    return True
        return False

    def held(self, token: str) -> bool:
        return (
            token in HOLDER_WORDS
            or self.policy.canonical_category(token) is not None
            or any(token in phrase for phrase in (*self.fields, *self.markers))
        )


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


@dataclass(frozen=True)
class ModulePeople:
    """What the inputs of a module's functions (parameters, keys, attributes) are named for."""

    strong: bool  # a strong word of a category: `sex`, `ethnicity`, `date_of_birth`
    categories: frozenset[str]  # every category their words name
    fields: bool  # what a person has (`people.fields`: `income`, `smoker`)
    sure: bool  # a word that is not weak among them (`age`, `gender`)

    @property
    def about_people(self) -> bool:
        # Weak words of two categories alone (a widget's `disabled` and `orientation`) are
        # two things.
        return self.strong or self.fields or (len(self.categories) > 1 and self.sure)

MODULE_PEOPLE: Cache[None, ModulePeople] = Cache("the module's people")

STRINGS_NAME_PEOPLE: Cache[None, bool] = Cache("strings name people")


def strings_name_people(facts: ModuleFacts, policy: Policy) -> bool:
    """Whether a short string of the module names a protected attribute ("Age in years",
    "sex"): only then may a record read by keys held elsewhere hold a person."""
    return facts.caches.once(
        STRINGS_NAME_PEOPLE,
        lambda: any(
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and len(node.value) <= 40
            and policy.canonical_category(node.value) is not None
            for node in ast.walk(facts.tree)
        ),
    )


def module_about_people(facts: ModuleFacts, policy: Policy) -> bool:
    """Whether a module's inputs are people's: computed once per module."""
    return facts.caches.once(MODULE_PEOPLE, lambda: module_people(facts.tree, policy)).about_people


def module_people(tree: ast.Module, policy: Policy) -> ModulePeople:
    strong = sure = False
    categories: set[str] = set()
    inputs = input_names(tree)
    for name in inputs:
        category = policy.canonical_category(name)
        word = policy.word_in(name)
        if category is None:
            continue
        categories.add(category)
        word_strength = policy.strength(word) if word is not None else "strong"
        strong = strong or (word is not None and word_strength == "strong")
        sure = sure or word_strength != "weak"
    fields = [name_tokens(f) for f in policy.people.fields]
    found = names([name_tokens(name) for name in inputs], fields) or names(docstrings(tree), fields)
    return ModulePeople(strong, frozenset(categories), found, sure)


def docstrings(tree: ast.Module) -> list[tuple[str, ...]]:
    """The words of the module's docstrings, one run per docstring: they say in words what
    the inputs hold (finworth's `hra_exemption(basic, ...)`: "basic: Monthly basic
    salary."). A person's fields only count there: a `user` is in every library's prose."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, kinds))]
    found = [ast.get_docstring(node, clean=False) for node in nodes]
    return [name_tokens(text) for text in found if text]


def input_names(tree: ast.Module) -> set[str]:
    """The names a module's functions take and read: parameters, attributes, text keys of
    subscripts and `.get(...)`, and the fields of its classes."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Subscript):
            key = constant_key(node)
            if isinstance(key, str):
                found.add(key)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and (text := text_of(node.args[0])) is not None
        ):
            found.add(text)
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    found.add(stmt.target.id)
    return found
