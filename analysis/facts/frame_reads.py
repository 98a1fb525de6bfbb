"""Reads of a table: whether a parameter is a DataFrame (by its annotation, name or API), the
columns a function reads from it, parameters that name its columns, and masks that make a
parameter a Series."""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from typing import Any

from analysis.facts.fieldreads import record_accesses
from analysis.facts.module import ModuleFacts
from analysis.shapes import Leaf
from analysis.source.functions import FunctionNode, all_args
from analysis.source.mentions import mentions
from analysis.source.reads_input import aliases, constant_key, input_subscript, is_input, text_of
from analysis.static.taint import Tainter
from analysis.values import MISSING

# What a pandas DataFrame answers besides its columns.
FRAME_API = frozenset(
    {"loc", "iloc", "at", "iat", "shape", "columns", "index", "values", "empty", "T", "dtypes",
     "size", "ndim", "str", "dt"}
)  # fmt: skip


FRAME_METHODS = frozenset(
    {"loc", "iloc", "groupby", "query", "assign", "merge", "iterrows", "itertuples", "apply",
     "pivot_table", "value_counts", "to_dict", "drop", "dropna", "fillna"}
)  # fmt: skip


FRAME_NAMES = frozenset({"df", "frame", "dataframe", "data_frame", "table"})
# `axis=` values of `DataFrame.apply` that hand the function one row at a time.
ROWS = (1, "columns")
# Methods of a table that hand a function one column at a time, unless told `axis=1`.
COLUMN_WISE = frozenset({"apply", "applymap", "map", "agg", "aggregate", "transform"})
# In a query string: a column written in backticks, and a local referred to with `@`.
BACKTICKED = re.compile(r"`([^`]+)`")
LOCAL_REFERENCE = re.compile(r"@[A-Za-z_][A-Za-z_0-9.]*")


def frame_name(name: str) -> bool:
    """Whether a name is a DataFrame's: `df`, `frame`, `people_df`."""
    lowered = name.lower()
    return lowered in FRAME_NAMES or lowered.endswith("_df")


def is_frame(fn: FunctionNode, name: str, annotation: ast.expr | None) -> bool:
    """Whether a parameter is a pandas DataFrame: annotated so, named so (`df`, `people_df`),
    or used through the DataFrame API (`name.loc[...]`, `name.groupby(...)`)."""
    if annotation is not None and "DataFrame" in ast.unparse(annotation):
        return True
    if frame_name(name):
        return True
    if any(
        isinstance(node, ast.Attribute)
        and is_input(node.value, {name})
        and node.attr in FRAME_METHODS
        for node in mentions(fn).around([name])
    ):
        return True
    return masks_itself(fn, name)


def masks_itself(fn: FunctionNode, name: str) -> bool:
    """Whether the parameter, or a local copy of it, is indexed by a test of its own columns:
    `df = data; df = df[df["AGEP"] > 16]`, `rows[(rows.a > 1) & (rows.b < 2)]` (rows kept by a
    boolean mask: a DataFrame's idiom, which no dict or list answers)."""
    masked = mask_sites(fn)
    if not masked:
        return False
    names = frame_copies(fn, name)
    return any(
        any(
            isinstance(inner, (ast.Subscript, ast.Attribute)) and is_input(inner.value, names)
            for inner in ast.walk(node.slice)
        )
        for copy in names
        for node in masked.get(copy, ())
    )


def mask_sites(fn: FunctionNode) -> dict[str, list[ast.Subscript]]:
    """The function's subscripts by a test (`rows[rows.age > 16]`, `arr[i + 1]`), by the name
    they index (`""` for any other value); read once per function (kept on the node: every
    parameter asks)."""
    cached: dict[str, list[ast.Subscript]] | None = getattr(fn, "_cb_mask_sites", None)
    if cached is not None:
        return cached
    masked: dict[str, list[ast.Subscript]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(
            node.slice, (ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp)
        ):
            owner = node.value.id if isinstance(node.value, ast.Name) else ""
            masked.setdefault(owner, []).append(node)
    fn._cb_mask_sites = masked  # type: ignore[union-attr]
    return masked


def vectorised(fn: FunctionNode, name: str) -> bool:
    """Whether a parameter holds one value per person, as a pandas Series: what the code
    makes of it is written through a boolean mask (`creat = 0.9 - 0.2 * female`,
    `creat[ratio < 1] = ...`), which no single number answers."""
    masked = [node for nodes in mask_sites(fn).values() for node in nodes]
    stores = [m for m in masked if isinstance(m.ctx, ast.Store) and is_mask(m.slice)]
    if not stores:
        return False
    made = Tainter(fn, Leaf((("param", name),), name, name, []))  # the names made from it
    return any(made.tainted(m.value) or made.tainted(m.slice) for m in stores)


def is_mask(node: ast.expr) -> bool:
    """A test of rows: `ratio < 1`, `(a > 1) & ~(b == 2)`; not a position (`arr[i + 1]`)."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        return is_mask(node.left) or is_mask(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return is_mask(node.operand)
    return False


# Methods whose result is the same rows of people, or some of them, with the same columns.
FRAME_COPIES = frozenset(
    {"copy", "reset_index", "dropna", "fillna", "assign", "query", "sort_values", "head",
     "tail", "set_index", "astype", "drop_duplicates"}
)  # fmt: skip


def frame_copies(fn: FunctionNode, name: str) -> set[str]:
    """The parameter and the locals that hold its rows: `results = df.copy()`, `data =
    results[mask]`, `df = df.dropna()` (a DataFrame is copied and filtered before it is read)."""
    index = mentions(fn)
    names = {name}

    def copied(value: ast.expr) -> bool:
        if isinstance(value, ast.IfExp):  # `df.copy() if copy else df`
            return copied(value.body) or copied(value.orelse)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            # `results[sex_mask].copy()`, `df.dropna().reset_index()`
            return value.func.attr in FRAME_COPIES and copied(value.func.value)
        if isinstance(value, ast.Subscript) and not isinstance(constant_key(value), str):
            return is_input(value.value, names)  # the rows a mask keeps, not one column
        return is_input(value, names)

    def rows_copied(value: ast.expr) -> bool:
        # `df = df[...]` is given the rows of `df`
        return copied(value.value if isinstance(value, ast.Subscript) else value)

    for _ in range(3):  # chains of copies, in any order of the source
        # A copy's assignment mentions what it copies.
        names |= aliases(index.around(names), rows_copied)
    return names


def frame_columns(fn: FunctionNode, name: str, facts: ModuleFacts) -> list[str]:
    """The columns a function reads from a DataFrame or its copies: `df["AGEP"]`, `df.AGEP`,
    `df.loc[mask, "SERIALNO"]`, `df[["SEX", "PINCP"]]`, and those it requires of it
    (`required = ["age", "sex"]; if not set(required).issubset(df.columns): raise`)."""
    names = frame_copies(fn, name)
    columns = [
        f
        for copy in sorted(names)
        for f in record_accesses(fn, copy, facts)
        if f not in FRAME_API and f not in FRAME_METHODS
    ]
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript):
            columns += picked_columns(node, names, facts)
            key = constant_key(node)
            if isinstance(key, str) and isinstance(node.value, ast.Call):
                columns += [key] if rooted_at(node.value, names) else []  # `.groupby(...)["x"]`
    columns += required_columns(fn, names, facts)
    columns += looped_columns(fn, names, facts)
    for row in row_names(fn, names):  # `for _, row in df.iterrows(): row.get("ethnicity")`
        columns += [f for f in record_accesses(fn, row, facts) if f not in FRAME_API]
    for where, row in applied_rows(fn, names, facts):  # `df.apply(lambda r: r["age"], axis=1)`
        columns += [f for f in record_accesses(where, row, facts) if f not in FRAME_API]
    columns += queried_columns(fn, names)
    for local, mapping in renamed_frames(fn, names, facts).items():
        # `df = raw.rename(columns={"RIDAGEYR": "age"})`: `df["age"]` is `raw["RIDAGEYR"]`
        columns += [
            mapping.get(f, f)
            for f in record_accesses(fn, local, facts)
            if f not in FRAME_API and f not in FRAME_METHODS
        ]
    return list(dict.fromkeys(columns))


def renamed_frames(
    fn: FunctionNode, names: set[str], facts: ModuleFacts
) -> dict[str, dict[str, str]]:
    """Locals holding one of `names` with columns renamed, each with its new names' old
    ones: `df = raw.rename(columns={"RIDAGEYR": "age"})` (the mapping written there or a
    module's constant)."""
    found: dict[str, dict[str, str]] = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if not (isinstance(target, ast.Name) and isinstance(value, ast.Call)):
            continue
        renames, func = renamed_columns(value, facts), value.func
        if renames and isinstance(func, ast.Attribute) and is_input(func.value, names):
            found[target.id] = {new: old for old, new in renames.items()}
    return found


def renamed_columns(call: ast.Call, facts: ModuleFacts) -> dict[str, str]:
    """The old names and the new of `frame.rename(columns={...})` (a mapping written there or
    a module's constant); {} for any other call."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "rename"):
        return {}
    for kw in call.keywords:
        mapping = facts.const(kw.value) if kw.arg == "columns" else None
        if isinstance(mapping, dict):
            return {k: v for k, v in mapping.items() if isinstance(k, str) and isinstance(v, str)}
    return {}


def applied_rows(
    fn: FunctionNode, names: set[str], facts: ModuleFacts
) -> list[tuple[ast.AST, str]]:
    """The functions the table hands itself, a part of itself or its rows to, with the name
    they take it by: `df.apply(lambda r: ..., axis=1)`, `df.assign(risk=lambda d: ...)`,
    `df.pipe(f)`, `df.loc[lambda d: ...]`, `df.groupby("team").apply(lambda g: ...)`, a
    lambda or a function of the module; not a column at a time (`df.apply(np.mean)`)."""
    found: list[tuple[ast.AST, str]] = []
    for node in ast.walk(fn):
        handed: list[ast.expr] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if rooted_at(node.func.value, names) and not column_wise(node, names):
                handed = [*node.args, *(k.value for k in node.keywords)]
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in ("loc", "iloc")
            and rooted_at(node.value.value, names)
        ):
            handed = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        for applied in handed:
            if isinstance(applied, ast.Lambda) and applied.args.args:
                found.append((applied, applied.args.args[0].arg))
            elif isinstance(applied, ast.Name) and applied.id in facts.functions:
                helper = facts.functions[applied.id]
                if helper.args.args:
                    found.append((helper, helper.args.args[0].arg))
    return found


def rooted_at(node: ast.expr, names: set[str]) -> bool:
    """Whether an expression is the table or a chain of calls, attributes and subscripts off
    it (`df.groupby("team")`, `df[df.age > 0]`)."""
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        if is_input(node, names):
            return True
        if isinstance(node, ast.Subscript) and isinstance(constant_key(node), str):
            return False  # `df["age"].apply(...)`: a column's values, one at a time
        node = node.func if isinstance(node, ast.Call) else node.value
    return is_input(node, names)


def column_wise(call: ast.Call, names: set[str]) -> bool:
    """Whether a method of the table itself hands the function a column at a time
    (`df.apply(f)`, `df.agg(f)`), not a row (`axis=1`)."""
    assert isinstance(call.func, ast.Attribute)
    if call.func.attr not in COLUMN_WISE or not is_input(call.func.value, names):
        return False
    return not any(
        k.arg == "axis" and isinstance(k.value, ast.Constant) and k.value.value in ROWS
        for k in call.keywords
    )


def queried_columns(fn: FunctionNode, names: set[str]) -> list[str]:
    """The columns a query string of the table names: `df.query("age > 40 and sex == 'F'")`,
    `` `home region` == "north" `` (not `@limit`, a local)."""
    found: list[str] = []
    for node in ast.walk(fn):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "query"
            and is_input(node.func.value, names)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            continue
        text = node.args[0].value
        found += BACKTICKED.findall(text)
        plain = BACKTICKED.sub("0", LOCAL_REFERENCE.sub("0", text))
        try:
            expression = ast.parse(plain, mode="eval")
        except SyntaxError:
            continue
        found += [n.id for n in ast.walk(expression) if isinstance(n, ast.Name)]
    return found


def looped_columns(fn: FunctionNode, names: set[str], facts: ModuleFacts) -> list[str]:
    """Columns named in a list a loop walks, read by the loop's name: `for col in ["age",
    "sbp"]: if col in df: out[col] = df[col].astype(float)` (or a module's list of them)."""
    found: list[str] = []
    for node in ast.walk(fn):
        if not isinstance(node, (ast.For, ast.comprehension)):
            continue
        if not isinstance(node.target, ast.Name):
            continue
        listed = node.iter if isinstance(node.iter, (ast.List, ast.Tuple)) else None
        texts = [text_of(e) for e in listed.elts] if listed is not None else facts.const(node.iter)
        if not isinstance(texts, (list, tuple)) or not all(isinstance(t, str) for t in texts):
            continue
        body = node.body if isinstance(node, ast.For) else [node]
        key = node.target.id
        if any(
            input_subscript(sub, names) and isinstance(sub.slice, ast.Name) and sub.slice.id == key
            for stmt in body
            for sub in ast.walk(stmt)
        ):
            found += [t for t in texts if t]
    return found


def picked_columns(node: ast.Subscript, names: set[str], facts: ModuleFacts) -> list[str]:
    """The columns a subscript of the table picks: `df.loc[mask, "SERIALNO"]`,
    `df[["SEX", "PINCP"]]`, `df[df["AGEP"] >= 65]["SERIALNO"]` (a column of the rows kept),
    and those a list of the module names (`df[FEATURES]`, `df.loc[:, list(FEATURES)]`)."""
    owner = node.value
    picked: ast.expr | None
    if isinstance(owner, ast.Attribute) and owner.attr == "loc" and is_input(owner.value, names):
        picked = node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) else None
    elif is_input(owner, names) and isinstance(node.slice, (ast.List, ast.Name, ast.Call)):
        picked = node.slice
    elif input_subscript(owner, names):
        picked = node.slice
    else:
        return []
    if isinstance(picked, ast.Call) and len(picked.args) == 1 and not picked.keywords:
        picked = picked.args[0]  # `list(FEATURES)`, `tuple(FEATURES)`
    if isinstance(picked, (ast.Name, ast.Attribute)):
        listed = facts.const(picked)
        if isinstance(listed, (list, tuple)) and all(isinstance(t, str) for t in listed):
            return list(listed)
        return []
    texts = [text_of(elt) for elt in (picked.elts if isinstance(picked, ast.List) else [picked])]
    return [text for text in texts if text is not None]


def row_names(fn: FunctionNode, names: set[str]) -> list[str]:
    """The loop names that take the rows of the table: `for _, row in df.iterrows()`,
    `for row in df.itertuples()`."""
    found = []
    for node in ast.walk(fn):
        if not (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Attribute)
            and node.iter.func.attr in ("iterrows", "itertuples")
            and is_input(node.iter.func.value, names)
        ):
            continue
        target = node.target
        if node.iter.func.attr == "iterrows" and isinstance(target, ast.Tuple):
            target = target.elts[-1]
        if isinstance(target, ast.Name):
            found.append(target.id)
    return found


def required_columns(fn: FunctionNode, names: set[str], facts: ModuleFacts) -> list[str]:
    """Column names of a list checked against the frame's columns: `set(required).issubset(
    df.columns)`, `[c for c in REQUIRED if c not in df.columns]`."""
    local: dict[str, Any] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name):
                local[node.targets[0].id] = facts.const(node.value)
    found: list[str] = []
    for node in ast.walk(fn):
        if not isinstance(node, (ast.Call, ast.Compare, ast.ListComp, ast.SetComp)):
            continue
        if not any(
            isinstance(part, ast.Attribute)
            and part.attr == "columns"
            and is_input(part.value, names)
            for part in ast.walk(node)
        ):
            continue
        for part in ast.walk(node):
            value = local.get(part.id, MISSING) if isinstance(part, ast.Name) else MISSING
            if value is MISSING and isinstance(part, ast.Name):
                value = facts.const(part)
            if isinstance(part, (ast.List, ast.Tuple, ast.Set)):
                value = facts.const(part)
            if isinstance(value, (list, tuple, set, frozenset)):
                found += [c for c in value if isinstance(c, str)]
    return found


# `age_col`, `sex_column`, `col_sex`, `eGFR_col_name`: a parameter that names a column.
COLUMN_NAME = re.compile(
    r"^(?:(?P<stem>[A-Za-z]\w*?)_col(?:umn)?(?:_?name)?|col(?:umn)?_(?P<after>[A-Za-z]\w*))$"
)


def column_parameters(fn: FunctionNode, frame: str, defaults: dict[str, Any]) -> dict[str, str]:
    """Parameters of `fn` that name a column of its table `frame`, with the column each names:
    used as the table's key (`df[sex_col]`, `df.loc[rows, sex_col]`) or named so beside it
    (`add_risk(df, age_col=None, sex_col=None)`, handing both to a helper). The column is the
    parameter's default when that is text, else its name's stem (`sex_col`: "sex")."""
    names = frame_copies(fn, frame)
    keyed: set[str] = set()
    for node in ast.walk(fn):
        if input_subscript(node, names) or (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and is_input(node.value.value, names)
        ):
            key = node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) else node.slice
            if isinstance(key, ast.Name):
                keyed.add(key.id)
    found: dict[str, str] = {}
    for arg in all_args(fn):
        if arg.arg == frame:
            continue
        match = COLUMN_NAME.match(arg.arg)
        default = defaults.get(arg.arg, MISSING)
        if match is None and arg.arg not in keyed:
            continue
        if isinstance(default, str) and default:
            found[arg.arg] = default
        elif match is not None:
            found[arg.arg] = match.group("stem") or match.group("after")
    return found


# Calls that read a whole table of features by the names their model was fitted with.
MODEL_METHODS = frozenset(
    {"predict", "predict_proba", "predict_log_proba", "decision_function", "score_samples"}
)
FRAME_MAKERS = frozenset({"DataFrame", "from_dict", "from_records", "json_normalize"})


def handed_to_a_table(fn: FunctionNode, name: str, classes: Collection[str]) -> bool:
    """Whether parameter `name` becomes a table whose columns the function never names:
    handed to a DataFrame's constructor (`pd.DataFrame(input_data)`, `pd.DataFrame([row])`)
    or to a fitted model (`self.model.predict(features)`), which reads the columns it was
    fitted with, named in its own file or the project's config. The `predict` of an object
    of the project's own `classes` (`RiskModel(frame).predict(years)`) is read like any
    helper."""
    for node in mentions(fn).around([name]):
        if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Attribute, ast.Name)):
            continue
        called = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        given = [*node.args, *(k.value for k in node.keywords)]
        items = [e for g in given if isinstance(g, (ast.List, ast.Tuple)) for e in g.elts]
        if not any(is_input(arg, {name}) for arg in given + items):
            continue
        if called in FRAME_MAKERS:
            return True
        if called in MODEL_METHODS and isinstance(node.func, ast.Attribute):
            if not of_own_class(node.func.value, fn, classes):
                return True
    return False


def of_own_class(receiver: ast.expr, fn: FunctionNode, classes: Collection[str]) -> bool:
    """Whether `receiver` is built from one of `classes` here: `RiskModel(...)`, or a name
    the function binds to one."""

    def built(node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and getattr(node.func, "id", None) in classes

    if built(receiver):
        return True
    return isinstance(receiver, ast.Name) and any(
        isinstance(node, ast.Assign)
        and built(node.value)
        and any(isinstance(t, ast.Name) and t.id == receiver.id for t in node.targets)
        for node in ast.walk(fn)
    )
