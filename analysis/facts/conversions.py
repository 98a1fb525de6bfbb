"""Functions that compute the protected attribute itself: `chronological_decimal_age(
birth_date, observation_date)`, `age_in_days(dob)`, `get_good_sex("male") -> "M"`,
`race_label(race)`, `sex_code(sex)`.

Their output is the attribute in another form, as an echo is, not a decision about the person (the
corpus's convention: a derived attribute is clean). A function is taken for one when its name (an
OpenFisca `formula`: its class's name, `age.formula`) says so and nothing else: the attribute's own
words and words of form, unit or encoding (`decimal`, `days`, `get`, `normalised`, `code`,
`label`...), or words of units alone (`months_to_days`); or when its name holds only such words
(`to_int`, `encode`) and its body only re-encodes its one input: a distinct constant for each value
it tells apart (`{"male": 1, "female": 2}[sex]`, `1 if sex == "M" else 2`). `age_band`,
`age_factor`, `senior_discount` or `screening_interval` decide something, and stay tested like any
function.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from analysis.source.functions import FunctionInfo, FunctionNode
from analysis.source.reads_input import constant_key
from analysis.values import MISSING
from config.policy import Policy, name_tokens

FORM_WORDS = frozenset(
    {"get", "calc", "calculate", "compute", "derive", "derived", "decimal", "days", "day",
     "week", "weeks", "month", "months", "year", "years", "in", "of", "to", "from", "as",
     "calendar", "chronological", "corrected", "gestational", "exact", "current", "good",
     "norm", "normalise", "normalize", "normalised", "normalized", "parse", "format", "clean",
     "canonical", "standard", "str", "string", "code", "iso", "raw", "value", "at", "on",
     "convert", "converted", "conversion", "unit", "units", "2", "tuple", "label", "labels",
     "name", "encode", "encoded", "encoding", "decode", "decoded", "recode", "recoded", "map",
     "mapped", "mapping", "lookup", "translate", "int", "integer", "num", "number", "numeric",
     "id", "text", "display", "abbrev", "abbreviation", "short", "enum", "codes", "cat", "key",
     # a transform of it as a model's term takes it: `ln_age`, `age_squared`, `scaled_age`
     "ln", "log", "sqrt", "squared", "square", "cubed", "scaled", "centered", "centred",
     "standardized", "standardised", "transformed"}
)  # fmt: skip

# Units an attribute is counted in: `months_to_days(m)` restates whatever it is handed.
UNIT_WORDS = frozenset({"days", "day", "weeks", "week", "months", "month", "years", "year"})

# Words that name a group of people (`paediatric(age)`, `is_elderly`): a function named so
# decides who belongs, it does not restate the attribute.
GROUP_WORDS = frozenset(
    {"pediatric", "paediatric", "elderly", "geriatric", "minor", "adult", "underage", "senior"}
)


def converts(
    info: FunctionInfo, category: str, policy: Policy, const: Constant | None = None
) -> bool:
    """Whether the function computes attribute `category` itself (see the module's doc).
    `const`: the value of a constant expression of its module (ModuleFacts.const)."""
    if info.name in REPRESENTATIONS:
        return True  # an object's text shows what it holds: an echo, no decision
    if named_conversion(info.qualname, category, policy):
        return True
    tokens = name_tokens(info.name)
    if not tokens or not all(t in FORM_WORDS for t in tokens):
        return False
    return Recoding(const or literal).recodes(info.node)


# The methods that give an object's text: what it holds, in another form.
REPRESENTATIONS = frozenset({"__str__", "__repr__", "__format__"})


def named_conversion(qualname: str, category: str, policy: Policy) -> bool:
    """Whether the function named `qualname` is named for computing attribute `category`."""
    tokens = name_tokens(named_by(qualname))
    if GROUP_WORDS & set(tokens):
        return False
    if len(UNIT_WORDS & set(tokens)) >= 2 and all(t in FORM_WORDS for t in tokens):
        return True  # `days_to_months(d)`: one unit into another
    own = [t for t in tokens if policy.canonical_category(t) == category]
    # `_age_sex(profile)`: named for two attributes, it encodes both
    named = [t for t in tokens if policy.canonical_category(t) is not None]
    return bool(own) and all(t in FORM_WORDS or t in named for t in tokens)


# OpenFisca's `formula` (`formula_2017_01` from a date) computes the variable its class is.
FORMULA = re.compile(r"formula(_\d+)*")


def named_by(qualname: str) -> str:
    """The name that says what a function computes: its own, or its class's for a method a
    framework names for the class's value (`age.formula`)."""
    parts = qualname.split(".")
    if len(parts) > 1 and FORMULA.fullmatch(parts[-1]):
        return parts[-2]
    return parts[-1]


# The value of a constant expression, MISSING when it has none.
Constant = Callable[[ast.expr], Any]


@dataclass
class Recoding:
    """Whether a function only re-encodes its one input: it reads no other parameter, and
    each of its answers is a distinct constant chosen by comparing the input (or a normalised
    copy: `s = sex.strip().lower()`) for equality with constants, or looked up in a table of
    distinct constants (`{"male": 1, "female": 2}[sex]`, `CODES.get(sex)`)."""

    const: Constant
    names: set[str] = field(default_factory=set)  # the input and its normalised copies
    answers: list[Any] = field(default_factory=list)

    def recodes(self, fn: FunctionNode) -> bool:
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
        read = {
            node.id
            for node in ast.walk(fn)
            if isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id in params
            and node.id not in ("self", "cls")
        }
        if len(read) != 1:
            return False
        self.names, self.answers = set(read), []
        if not all(self.statement(stmt) for stmt in body_without_docstring(fn)):
            return False
        distinct = {repr(a) for a in self.answers}
        return len(self.answers) >= 2 and len(distinct) == len(self.answers)

    def statement(self, stmt: ast.stmt) -> bool:
        """Whether a statement only normalises the input, tests it for equality, answers a
        constant or raises."""
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and self.normalises(stmt.value):
                self.names.add(target.id)
                return True
            return False
        if isinstance(stmt, ast.Raise):
            return True
        if isinstance(stmt, ast.Return):
            return stmt.value is not None and self.answer(stmt.value)
        if isinstance(stmt, ast.If):
            return self.equality_test(stmt.test) and all(
                self.statement(s) for s in [*stmt.body, *stmt.orelse]
            )
        return False

    def answer(self, node: ast.expr) -> bool:
        """A constant, a choice between constants by an equality test, or a lookup of the
        input in a table of constants."""
        if isinstance(node, ast.IfExp):
            return (
                self.equality_test(node.test)
                and self.answer(node.body)
                and self.answer(node.orelse)
            )
        table, key = lookup(node)
        if table is not None and key is not None:
            values = self.const(table)
            if not isinstance(values, dict) or not self.normalises(key):
                return False
            self.answers.extend(values.values())
            return True
        value = self.const(node)
        if value is MISSING or isinstance(value, (dict, list, set)):
            return False
        self.answers.append(value)
        return True

    def equality_test(self, test: ast.expr) -> bool:
        """`x == "M"`, `x in ("m", "male")`, `x is None`, joined by `or`."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
            return all(self.equality_test(v) for v in test.values)
        return (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Eq, ast.In, ast.Is))
            and self.normalises(test.left)
            and self.const(test.comparators[0]) is not MISSING
        )

    def normalises(self, node: ast.expr) -> bool:
        """The input itself, or its text in one case and without spaces: `str(sex).strip()
        .lower()`, `sex[0].upper()`."""
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
            return node.func.attr in NORMALISERS and self.normalises(node.func.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
            return node.func.id in ("str", "int") and self.normalises(node.args[0])
        if isinstance(node, ast.Subscript):
            return constant_key(node) == 0 and self.normalises(node.value)
        return False


def lookup(node: ast.expr) -> tuple[ast.expr | None, ast.expr | None]:
    """(table, key) of `table[key]` or `table.get(key, ...)`."""
    if isinstance(node, ast.Subscript):
        return node.value, node.slice
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
    ):
        return node.func.value, node.args[0]
    return None, None


NORMALISERS = frozenset({"strip", "lower", "upper", "casefold", "title", "capitalize"})


def literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return MISSING


def body_without_docstring(fn: FunctionNode) -> list[ast.stmt]:
    body = fn.body
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return body[1:]
    return body
