"""The fairness policy: which categories are protected, how findings fail a check, budgets.

A policy is built from layers (built-in defaults, then the organisation's `.codebias.yml`,
then the repository's), deep-merged in that order and validated once. It is passed
explicitly to whoever needs it; there is no global settings object.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import cache, cached_property
from importlib import resources
from typing import Any, Literal

import pathspec
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from config.errors import PolicyError as PolicyError  # re-exported: callers know it from here
from config.places import names_a_place


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Category(Strict):
    enabled: bool = True
    synonyms: tuple[str, ...] = ()
    values: tuple[Any, ...] = ()
    minimum: float | None = None  # numbers below are never realistic (an age of -1)
    maximum: float | None = None
    # Names that carry a synonym but mean something else: `job_status`, `max_age`, `ip_address`.
    exclude: tuple[str, ...] = ()
    # Values every real person of the category may have: a call that raises for one of them
    # while another returns refuses that person (a finding of kind `refuses`). Numbers stand
    # for the range from the least to the greatest listed. Empty: no refusal is a finding.
    realistic: tuple[Any, ...] = ()


class Paths(Strict):
    """Which files are in scope, as gitignore-style patterns on repository-relative paths.

    `*` and `?` stay inside one folder, `**` spans folders, a pattern with no slash matches at
    any depth (`test_*.py`), a leading `/` or an inner slash anchors it at the root, and a
    pattern that matches a folder matches everything in it (`tests/*` excludes `tests/a/b.py`).
    """

    include: tuple[str, ...] = ("**/*.py",)
    exclude: tuple[str, ...] = ()

    @cached_property
    def _include(self) -> pathspec.GitIgnoreSpec:
        return pathspec.GitIgnoreSpec.from_lines(self.include)

    @cached_property
    def _exclude(self) -> pathspec.GitIgnoreSpec:
        return pathspec.GitIgnoreSpec.from_lines(self.exclude)

    def selects(self, path: str) -> bool:
        """Whether a repository-relative path (`src/pkg/mod.py`) is in scope."""
        path = path.replace("\\", "/").removeprefix("./")
        return self._include.match_file(path) and not self._exclude.match_file(path)

    def naming(self, folder: str) -> Paths:
        """These paths for a walk of `folder` (repository-relative), named on its own: the
        exclusions that cover the folder itself are waived (`codebias scan examples/` reads
        the examples), those of what lies inside it still hold."""
        parts = [p for p in folder.replace("\\", "/").split("/") if p not in ("", ".")]
        covering = ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]
        kept = tuple(
            pattern
            for pattern in self.exclude
            if pattern.startswith("!")
            or not any(pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(c) for c in covering)
        )
        return self if kept == self.exclude else Paths(include=self.include, exclude=kept)


class Python(Strict):
    """How the project's code is found and imported in the sandbox."""

    paths: tuple[str, ...] = ()  # extra import roots, relative to the repository
    stub: tuple[str, ...] = ()  # modules always replaced by recording stubs
    require: tuple[str, ...] = ()  # modules that must be importable, or the scan stops


# How much evidence a category word needs to count (analysis/facts/people.py).
Strength = Literal["weak", "unless_infrastructure", "strong"]


class Evidence(Strict):
    """Inputs from the repository's own runs (analysis/evidence/): its tests and demos run
    once per scan in the sandbox, recording the calls they make of the functions tested."""

    enabled: bool = True
    # Commands to run instead of the ones found (`pytest -q tests/unit`, `python
    # examples/demo.py`, `python -m pkg.demo`): pytest and python commands only.
    run: tuple[str, ...] = ()
    # The project's data files (CSV, JSON, JSON Lines) as inputs of the functions that read
    # their columns, after the tests and demos or the `run` commands (analysis/evidence/
    # datafiles.py).
    data: bool = True
    seconds: float = Field(default=120.0, gt=0, le=3600)  # the whole recording run
    calls_per_function: int = Field(default=5, ge=1, le=50)


class People(Strict):
    """Where weak words count (analysis/facts/people.py): only with evidence of a person."""

    # Words of protected categories as often about things as about people (a cloud region, a
    # phone number's country code, a word's grammatical gender, a node's degree): protected
    # only with evidence of a person.
    weak: tuple[str, ...] = ()
    # Words usually about people that also name things (the HTTP Age header, a cache's age):
    # protected unless the code names infrastructure. Every other word counts anywhere.
    unless_infrastructure: tuple[str, ...] = ()
    # Words that name a person (`applicant`, `customer`): matched on name tokens.
    markers: tuple[str, ...] = ()
    # Phrases that name infrastructure (`header`, `ttl`, `policy age`): matched on name tokens.
    not_people: tuple[str, ...] = ()
    # What a person has and a thing has not (`income`, `smoker`, `bmi`): beside a weak word
    # they say it is a person's. Matched on name tokens.
    fields: tuple[str, ...] = ()


class Allow(Strict):
    # "module.qualname", "qualname", "path/file.py::qualname" or a glob (analysis.search.acceptance)
    function: str
    attribute: str  # a category or any of its synonyms, "*" for all
    reason: str


class Budget(Strict):
    executions_per_function: int = Field(default=5000, ge=10, le=1_000_000)
    seconds_per_function: float = Field(default=10.0, gt=0, le=600)
    max_file_bytes: int = Field(default=1_000_000, ge=1_000, le=50_000_000)
    # One scan or review as a whole: functions run, executions, seconds. What is left when
    # one is spent is judged statically and says why.
    functions_per_scan: int = Field(default=2000, ge=1, le=1_000_000)
    executions_per_scan: int = Field(default=2_000_000, ge=10, le=100_000_000)
    seconds_per_scan: float = Field(default=1800.0, gt=0, le=86_400)

    def capped(self, maximum: Budget) -> Budget:
        """This budget, no field above `maximum`'s (a repository cannot raise the App's)."""
        mine, most = self.model_dump(), maximum.model_dump()
        return Budget(**{k: min(v, most[k]) for k, v in mine.items()})


class Mitigation(Strict):
    enabled: bool = True
    provider: Literal["openai", "anthropic"] | None = None
    model: str | None = None
    strategy: str = "feedback-cot"
    max_rounds: int = Field(default=3, ge=1, le=10)


class Policy(Strict):
    extends: str | None = None
    protected: dict[str, Category] = Field(default_factory=dict)
    fail_on: Literal["new", "any", "none"] = "new"
    # Static findings (the function could not run) fail the check too, under the same fail_on.
    fail_on_static: bool = False
    review_drafts: bool = False
    paths: Paths = Paths()
    allow: tuple[Allow, ...] = ()
    budget: Budget = Budget()
    mitigation: Mitigation = Mitigation()
    python: Python = Python()
    people: People = People()
    evidence: Evidence = Evidence()

    @model_validator(mode="after")
    def weak_words_exist(self) -> Policy:
        # The built-in words stay known when a layer replaces a category's synonyms.
        words = builtin_words() | {
            name_tokens(str(word))
            for category, spec in self.protected.items()
            for word in (category, *spec.synonyms)
        }
        for key in ("weak", "unless_infrastructure"):
            unknown = [w for w in getattr(self.people, key) if name_tokens(w) not in words]
            if unknown:
                raise ValueError(
                    f"people.{key} names no word of a protected category: "
                    f"{', '.join(unknown)} (the words of a category are its name and synonyms)"
                )
        return self

    def in_scope(self, path: str) -> bool:
        """Whether a repository-relative Python file is tested (`paths:`, see `Paths`)."""
        return path.endswith(".py") and self.paths.selects(path)

    @cached_property
    def enabled_categories(self) -> dict[str, Category]:
        return {name: cat for name, cat in self.protected.items() if cat.enabled}

    @cached_property
    def fingerprint(self) -> str:
        """A stable hash of everything that can change a verdict (for the results cache)."""
        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @cached_property
    def _phrases(self) -> list[tuple[tuple[str, ...], str]]:
        """Every category name and synonym as tokens, longest first (the longest match wins)."""
        phrases = [
            (name_tokens(str(phrase)), category)
            for category, spec in self.enabled_categories.items()
            for phrase in (category, *spec.synonyms)
        ]
        return sorted((p for p in phrases if p[0]), key=lambda p: -len(p[0]))

    @cached_property
    def _category_of(self) -> dict[str, str | None]:
        return {}

    @cached_property
    def _matches(self) -> dict[str, tuple[tuple[str, ...], str] | None]:
        return {}

    @cached_property
    def _strength(self) -> dict[tuple[str, ...], Strength]:
        found: dict[tuple[str, ...], Strength] = {
            name_tokens(w): "unless_infrastructure" for w in self.people.unless_infrastructure
        }
        found.update({name_tokens(w): "weak" for w in self.people.weak})
        return found

    def canonical_category(self, name: str) -> str | None:
        """'sex' -> 'gender'; None when the name is no enabled category or synonym."""
        cache = self._category_of
        if name not in cache:
            tokens = name_tokens(name)
            exact = [c for c in self.enabled_categories if tokens == name_tokens(c)]
            match = self._match(name)
            cache[name] = exact[0] if exact else match[1] if match else None
            if len(tokens) > 1 and tokens[0] in OPTION_VERBS:
                cache[name] = None  # `keep_country_plus`, `use_race`: how to work, no person's
            if cache[name] is None and len(tokens) > 1 and tokens[0] in FLAG_PREFIXES:
                cache[name] = self.category_of_value(tokens[1:])
            if cache[name] is None:
                cache[name] = self.category_of_threshold(tokens)
        return cache[name]

    def word_in(self, name: str) -> tuple[str, ...] | None:
        """The category word (a category's name or synonym, as tokens) a name carries: the
        longest one not inside an exclusion. `applicant_age` -> ("age",), `highest_degree`
        -> ("highest", "degree"), `max_age` -> None."""
        match = self._match(name)
        return match[0] if match else None

    def _match(self, name: str) -> tuple[tuple[str, ...], str] | None:
        cache = self._matches
        if name not in cache:
            tokens = name_tokens(name)
            cache[name] = next(
                (
                    (want, c)
                    for want, c in self._phrases
                    if contains_run(tokens, want) and not self._excluded(tokens, c)
                ),
                None,
            )
        return cache[name]

    def strength(self, word: tuple[str, ...]) -> Strength:
        """How much a category word needs to count (analysis/facts/people.py): evidence of a person
        (`people.weak`), no evidence of infrastructure (`people.unless_infrastructure`), or
        nothing (every other word)."""
        return self._strength.get(word, "strong")

    def category_of_value(self, tokens: tuple[str, ...]) -> str | None:
        """A flag named by a value of a category: `isBlack`, `is_hispanic` -> race; by a
        place: `ist_sachsen` -> region."""
        for category in self.enabled_categories:
            for value in self.protected[category].values:
                if isinstance(value, str) and name_tokens(value) == tokens:
                    return category
        if "region" in self.enabled_categories and names_a_place(tokens):
            return "region"  # `ist_sachsen`, `is_california_resident` (config/places.py)
        return None

    @cached_property
    def _telling_values(self) -> dict[tuple[str, ...], str]:
        found: dict[tuple[str, ...], str] = {}
        for category in TELLING_CATEGORIES & set(self.enabled_categories):
            for value in self.protected[category].values:
                tokens = name_tokens(value) if isinstance(value, str) else ()
                if tokens and len("".join(tokens)) >= 3 and tokens not in UNTELLING_VALUES:
                    found.setdefault(tokens, category)
        return found

    def category_told_by_value(self, text: str) -> str | None:
        """The category a recorded value is a value of by itself, under a key that says
        nothing (`{"g": "female"}`, `row.c3 == "Hispanic"`): the whole text one of the
        policy's own values of a category whose values are seldom anything else. Not an
        age's number, a place (a shop's), a job title (a user's role), a nationality (a
        cuisine's, a language's); nor `White`, `north`, `other`, `M`."""
        return self._telling_values.get(name_tokens(text)) if len(text) <= 40 else None

    def category_of_threshold(self, tokens: tuple[str, ...]) -> str | None:
        """A flag named for one side of a threshold of a numeric category: `under_26`,
        `is_over_65`, `older_than_70`, `under_75_in_year` -> age. The whole name is the side
        and the number (a flag prefix allowed, and words of when it holds after it), and the
        number lies among the category's own values: `over_500` and `orders_over_50` are no
        one's age."""
        if tokens and tokens[0] in FLAG_PREFIXES:
            tokens = tokens[1:]
        while tokens[-1:] and tokens[-1] in WHEN_WORDS:  # `under_75_in_year`: when it holds
            tokens = tokens[:-1]
        if tokens[-1:] and tokens[-1].isdigit() and tokens[:-1] in THRESHOLD_SIDES:
            number = int(tokens[-1])
            for category in self.enabled_categories:
                values = self.protected[category].values
                numbers = [v for v in values if isinstance(v, int | float)]
                numeric = bool(numbers) and len(numbers) == len(values)
                if numeric and min(numbers) <= number <= max(numbers):
                    return category
        return None

    def excluded_name(self, name: str) -> bool:
        """Whether a name holds a category's word only inside one of its exclusions
        (`max_age`, `age_unit`): it says what it is, and what it is is no person's value."""
        if self.canonical_category(name) is not None:
            return False
        tokens = name_tokens(name)
        return any(
            contains_run(tokens, want) and self._excluded(tokens, c) for want, c in self._phrases
        )

    def _excluded(self, tokens: tuple[str, ...], category: str) -> bool:
        return any(
            contains_run(tokens, name_tokens(phrase)) for phrase in self.protected[category].exclude
        )


# Chinese, Japanese and Korean write words without spaces: each character is a token, so
# that a record's key `患者年龄` (the patient's age) holds the run `年龄`.
_CAMEL = re.compile(
    r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[\u1100-\u11ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
)
# An age glued to its unit or its grouping in one word, as data columns name it (the CDC's
# `agemos`, `agedays`; `agegroup`, `ageyrs`): two tokens, as `age_days` is.
GLUED_AGE = re.compile(r"(age)(days?|mos|months?|yrs|years?|wks|weeks?|group|grp|band|cat)")


# How a yes/no flag is named: `is_female`, `hasDisability`.
# Categories whose values say by themselves what they are (Policy.category_told_by_value).
TELLING_CATEGORIES = frozenset(
    {"gender", "race", "religion", "marital_status", "sexual_orientation", "education"}
)
# Values of those that are as often something else: a colour, a git branch, an answer.
UNTELLING_VALUES = frozenset(
    {("white",), ("black",), ("other",), ("others",), ("none",), ("unknown",), ("true",),
     ("false",), ("master",), ("yes",), ("no",)}
)  # fmt: skip
FLAG_PREFIXES = frozenset({"is", "has", "was", "are", "ist"})  # "ist": German "is"
# The first word of an option that says how to work with an attribute, not what a person's
# is: `keep_country_plus=True`, `include_gender`, `use_race_coefficient`.
OPTION_VERBS = frozenset(
    "keep use include exclude show hide strip remove add allow apply enable disable ignore "
    "drop skip normalize normalise convert format validate check adjust encode infer detect "
    "parse fill impute mask anonymize anonymise redact".split()
)


# Words after a threshold's number that say when the flag holds: `under_75_in_year`,
# `over_60_at_start`, `under_18_on_date`.
WHEN_WORDS = frozenset(
    {"in", "at", "on", "by", "during", "this", "the", "of", "year", "years", "fy", "start",
     "end", "date", "today", "now"}
)  # fmt: skip


# How a flag names one side of a threshold: `under_26`, `older_than_70`.
THRESHOLD_SIDES = frozenset(
    {("under",), ("over",), ("above",), ("below",), ("older", "than"), ("younger", "than")}
)


def name_tokens(name: str) -> tuple[str, ...]:
    """Identifier or phrase -> lower-case tokens: 'applicantAge_2' -> (applicant, age, 2).
    Accented letters fold to their base letters (`âge` -> age, `género` -> genero, `věk` ->
    vek): code in French, Spanish, Portuguese or Czech names its people in its own words."""
    tokens: list[str] = []
    for token in _CAMEL.findall(without_accents(name)):
        lower = token.lower()
        glued = GLUED_AGE.fullmatch(lower)
        tokens.extend(glued.groups() if glued else (lower,))
    return tuple(tokens)


# Latin letters that are no base letter with an accent, and so do not decompose: Polish
# `płeć` (sex) is `plec`, Danish `fødselsdato` (date of birth) `fodselsdato`, Turkish `yaşı`
# keeps its dotless i as an i.
UNDECOMPOSED = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae",
     "Æ": "Ae", "œ": "oe", "Œ": "Oe", "ı": "i", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D",
     "ħ": "h", "Ħ": "H", "ŀ": "l"}
)  # fmt: skip


def without_accents(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).translate(UNDECOMPOSED)


def contains_run(tokens: tuple[str, ...], run: tuple[str, ...]) -> bool:
    n = len(run)
    return any(tokens[i : i + n] == run for i in range(len(tokens) - n + 1))


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key; anything else in `over` replaces what `base` had."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


@cache
def builtin_words() -> frozenset[tuple[str, ...]]:
    """The words of the built-in categories (their names and synonyms), as tokens."""
    protected = default_layer().get("protected") or {}
    return frozenset(
        name_tokens(str(word))
        for category, spec in protected.items()
        for word in (category, *(spec or {}).get("synonyms", ()))
    )


def default_layer() -> dict[str, Any]:
    """The built-in policy (config/defaults.yml), a copy of its one parse: each policy built
    (a scan's, each test's) would otherwise parse its 300 lines again, 0.3 s in pure Python."""
    return copy.deepcopy(parsed_defaults())


@cache
def parsed_defaults() -> dict[str, Any]:
    text = resources.files("config").joinpath("defaults.yml").read_text(encoding="utf-8")
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    assert isinstance(data, dict)
    return data


# A policy file is written by hand and read from repositories we do not trust: small, shallow,
# and without aliases (a 457-byte file of nested aliases expands to gigabytes).
MAX_LAYER_BYTES = 64 * 1024
MAX_LAYER_NESTING = 32


def read_layer(path: str) -> dict[str, Any]:
    """A `.codebias.yml` on disk, checked and parsed as parse_layer does."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_LAYER_BYTES + 1)
    except OSError as exc:
        raise PolicyError(f"{path}: cannot read: {exc.strerror}") from None
    if len(raw) > MAX_LAYER_BYTES:
        raise PolicyError(f"{path}: larger than {MAX_LAYER_BYTES // 1024} KiB; not a policy")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyError(
            f"{path}: not UTF-8 text (byte {exc.start} is {raw[exc.start]:#04x}); save it as UTF-8"
        ) from None
    return parse_layer(text, path)


def check_shape(text: str, source: str) -> None:
    """Refuse aliases and deep nesting before anything is built (the event parser is flat)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            mark = event.start_mark
            where = f"{source}: line {mark.line + 1}" if mark is not None else source
            if isinstance(event, yaml.AliasEvent):
                raise PolicyError(
                    f"{where}: YAML aliases (*{event.anchor}) are not allowed in a policy; "
                    "write the value out"
                )
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_LAYER_NESTING:
                    raise PolicyError(
                        f"{where}: nested deeper than {MAX_LAYER_NESTING} levels; not a policy"
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as exc:
        raise PolicyError(f"{source}: not valid YAML: {exc}") from None


def parse_layer(text: str, source: str) -> dict[str, Any]:
    """One `.codebias.yml` as a mapping; a clear PolicyError naming `source` otherwise."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_LAYER_BYTES:
        raise PolicyError(f"{source}: larger than {MAX_LAYER_BYTES // 1024} KiB; not a policy")
    check_shape(text, source)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PolicyError(f"{source}: not valid YAML: {exc}") from None
    except ValueError as exc:  # a scalar no value fits: a 5,000-digit integer, 2024-13-45
        raise PolicyError(f"{source}: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PolicyError(f"{source}: the top level must be a mapping, not {type(data).__name__}")
    return data


# Lists a layer adds to rather than replaces: a repository names its own people and its own
# infrastructure without repeating the built-in words.
ADDITIVE = (("people", "markers"), ("people", "not_people"), ("people", "fields"))


def add_lists(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`over` with each ADDITIVE list extended by what `base` already had."""
    out = dict(over)
    for section, key in ADDITIVE:
        mine, theirs = over.get(section), base.get(section)
        if not isinstance(mine, Mapping) or not isinstance(theirs, Mapping):
            continue
        added, kept = mine.get(key), theirs.get(key)
        if isinstance(added, list) and isinstance(kept, list):
            out[section] = {**mine, key: kept + [v for v in added if v not in kept]}
    return out


def build_policy(layers: Iterable[Mapping[str, Any]] = (), source: str = "policy") -> Policy:
    """Defaults, then each layer in order, merged and validated."""
    merged = default_layer()
    for layer in layers:
        merged = deep_merge(merged, add_lists(merged, layer))
    try:
        return Policy.model_validate(merged)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise PolicyError(f"{source}: {problems}") from None


def default_policy() -> Policy:
    return build_policy()
