"""The labelled corpus (tests/corpus), table-driven through the real engine.

One parametrized case per labelled function, ids `file::qualname`, train, validation,
holdout, shapes and shapes_holdout as separate tests so their results can be reported apart.
Each corpus file is scanned once, with the default policy and the default (sandboxed)
executor, and the report of every function is held to its label: status, the exact set of
attributes with findings, a real counterexample for every dynamic finding, and
attributes_tested when pinned. A module of a package in a split (`shapes/fleetcover/`) is
scanned within its project, so its imports of its siblings resolve.
`python tests/corpus/measure.py` prints the same comparison as precision and recall.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import copy
import datetime
import enum
import importlib
import inspect
import random
import re
import runpy
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest.mock import MagicMock

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))

from corpus_labels import (  # noqa: E402
    SPLITS,
    Label,
    LabelError,
    corpus_files,
    labels_in_source,
    load_labels,
    parse_label,
)
from floors import FLOORS, KNOWN_MISSES  # noqa: E402
from measure import Tally, make_engine, problems, ratio, scan_file  # noqa: E402

if TYPE_CHECKING:
    from analysis import Engine, FunctionReport
    from analysis.report import Finding

TRAIN = load_labels("train")
VALIDATION = load_labels("validation")
HOLDOUT = load_labels("holdout")
SHAPES = load_labels("shapes")
SHAPES_HOLDOUT = load_labels("shapes_holdout")

# One scan per corpus file for the whole session. A file is marked before its scan: when
# the scan raises, its first function fails with the real traceback and the others of the
# file fail naming it, so one crash reads as that file's failures (and is never caught).
_SCANS: dict[Path, dict[str, FunctionReport] | None] = {}
_ENGINE: list[Engine] = []


def on_its_split_s_worker(labels: list[Label], ids: list[str] | None = None) -> list[Any]:
    """The labels as parameters, each grouped with its split (xdist_group, `--dist loadgroup`):
    a split's files are then scanned once, on one worker, for its functions, its replays and
    its floors, instead of once on every worker that meets one of them."""
    return [
        pytest.param(x, marks=pytest.mark.xdist_group(f"corpus-{x.split}"), id=name)
        for x, name in zip(labels, ids or [f"{x.file}::{x.qualname}" for x in labels], strict=True)
    ]


def report_for(label: Label) -> FunctionReport:
    if label.path not in _SCANS:
        if not _ENGINE:
            _ENGINE.append(make_engine())
        _SCANS[label.path] = None
        _SCANS[label.path] = scan_file(_ENGINE[0], label)
    scanned = _SCANS[label.path]
    if scanned is None:
        raise AssertionError(f"scanning {label.split}/{label.file} raised (see its first test)")
    assert label.qualname in scanned, (
        f"{label.qualname} was not reported; the engine reported {sorted(scanned)}"
    )
    return scanned[label.qualname]


def describe(label: Label) -> str:
    listed = (
        f"[{', '.join(sorted(label.attributes))}]"
        if label.status in ("biased", "unverified")
        else ""
    )
    return f"{label.status}{listed}"


def check(label: Label) -> None:
    report = report_for(label)
    wrong = problems(label, report)
    assert not wrong, f"{label.id} expected {describe(label)}:\n  " + "\n  ".join(wrong)


@pytest.mark.sandbox
@pytest.mark.parametrize("label", on_its_split_s_worker(TRAIN))
def test_train_function_verdict_matches_its_label(label: Label) -> None:
    check(label)


@pytest.mark.sandbox
@pytest.mark.parametrize("label", on_its_split_s_worker(VALIDATION))
def test_validation_function_verdict_matches_its_label(label: Label) -> None:
    check_held_aside(label)


@pytest.mark.sandbox
@pytest.mark.parametrize("label", on_its_split_s_worker(HOLDOUT))
def test_holdout_function_verdict_matches_its_label(label: Label) -> None:
    # Written blind, after validation had been looked at: the honest measure.
    check_held_aside(label)


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "label", on_its_split_s_worker(SHAPES + SHAPES_HOLDOUT, [x.id for x in SHAPES + SHAPES_HOLDOUT])
)
def test_shapes_function_verdict_matches_its_label(label: Label) -> None:
    # Issue 10's shapes (collections, accessors, typed values, callees, refusal, clocks,
    # non-people), written before the engine supported them: shapes/ is developed against,
    # shapes_holdout/ is blind (its misses are not read). Ids start with the split.
    check_held_aside(label)


def check_held_aside(label: Label) -> None:
    # The held-aside splits measure the engine. Their misses known today are listed one by
    # one (corpus/floors.py) and show as xfail with what the engine said; any other
    # mismatch fails, and so does a recall or precision below the split's floor (below).
    report = report_for(label)
    wrong = problems(label, report)
    if wrong and label.id in KNOWN_MISSES:
        pytest.xfail(f"known miss ({KNOWN_MISSES[label.id]}): " + "; ".join(wrong))
    assert not wrong, f"{label.id} expected {describe(label)}:\n  " + "\n  ".join(wrong)


def test_every_known_miss_names_a_labelled_function() -> None:
    ids = {x.id for x in TRAIN + VALIDATION + HOLDOUT + SHAPES + SHAPES_HOLDOUT}
    assert set(KNOWN_MISSES) <= ids, sorted(set(KNOWN_MISSES) - ids)


def split_tally(split: str) -> Tally:
    tally = Tally()
    for label in load_labels(split):
        try:
            report: FunctionReport | None = report_for(label)
            error = None
        except AssertionError as exc:  # a file that did not scan: counted as misses
            report, error = None, str(exc)
        tally.add(label, report, error)
    return tally


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "split", [pytest.param(x, marks=pytest.mark.xdist_group(f"corpus-{x}")) for x in SPLITS]
)
def test_split_figures_stay_at_or_above_their_floors(split: str) -> None:
    assert split in FLOORS, (
        f"split {split!r} has no floor: run `python tests/corpus/measure.py --split {split}` "
        "and record its figures in tests/corpus/floors.py"
    )
    floor = FLOORS[split]
    tally = split_tally(split)

    def share(num: int, den: int) -> float:
        return num / den if den else 1.0

    figures = {
        "exact": tally.exact,
        "precision": share(tally.tp, tally.tp + tally.fp),
        "recall": share(tally.tp, tally.tp + tally.fn),
        "static_precision": share(tally.static_tp, tally.static_tp + tally.static_fp),
        "static_recall": share(tally.static_tp, tally.static_tp + tally.static_fn),
    }
    below = {
        name: (round(value, 3), getattr(floor, name))
        for name, value in figures.items()
        if value < getattr(floor, name)
    }
    assert not below, (
        f"{split}: below the floor (measured, floor): {below}; "
        f"precision {ratio(tally.tp, tally.tp + tally.fp)}, "
        f"recall {ratio(tally.tp, tally.tp + tally.fn)} "
        f"({tally.tp} tp, {tally.fp} fp, {tally.fn} fn)\n  " + "\n  ".join(tally.misses)
    )


# -- counterexamples, replayed outside the engine ------------------------------------------


class Rec(dict[str, object]):
    """A plain stand-in for a person record: answers r["age"], r.get("age") and r.age."""

    def __getattr__(self, name: str) -> object:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


# A step `[*]`: every item of a collection (the engine tried its peers alike).
_PATH = re.compile(r"^(\w+)((?:\[['\"][^'\"]+['\"]\]|\[\d+\]|\[\*\]|\.\w+)*)$")
_STEP = re.compile(r"\[['\"]([^'\"]+)['\"]\]|\.(\w+)|\[(\d+|\*)\]")
_MODULES: dict[Path, dict[str, object]] = {}


def records(value: object, module: dict[str, object]) -> object:
    """JSON example values as the function meets them: records, and enum members by name."""
    if isinstance(value, dict):
        return Rec({str(k): records(v, module) for k, v in value.items()})
    if isinstance(value, list):
        return [records(v, module) for v in value]
    if isinstance(value, str) and re.fullmatch(r"\w+\.\w+", value):
        owner, member = value.split(".")
        cls = module.get(owner)
        if isinstance(cls, type) and issubclass(cls, enum.Enum) and member in cls.__members__:
            return cls[member]
    return value


def with_value(
    function: object, inputs: dict[str, object], parameter: str, value: object
) -> dict[str, object]:
    """The inputs with the protected value put where `parameter` (age, p['age'], p.age) says."""
    match = _PATH.match(parameter)
    assert match, f"parameter {parameter!r} is not a path"
    out = copy.deepcopy(inputs)
    steps: list[str | int] = [
        k or a or (i if i == "*" else int(i)) for k, a, i in _STEP.findall(match[2])
    ]
    key: str | int = match[1]
    if key not in inputs and steps and spreads(function, match[1]):
        # `def f(**applicant)`: the example's inputs are the record's keys themselves.
        key, steps = steps[0], steps[1:]
    assert key in inputs, f"{parameter!r} does not start at an input of {sorted(inputs)}"

    def put(holder: Any, key: str | int, rest: list[str | int]) -> None:
        if key == "*":  # every item: a list's, or a dict of items'
            for each in list(range(len(holder)) if isinstance(holder, list) else holder):
                put(holder, each, rest)
            return
        if not rest:
            holder[key] = value
            return
        inner = holder[key]
        assert isinstance(inner, (dict, list)), f"cannot follow {parameter!r} into {inputs}"
        put(inner, rest[0], rest[1:])

    put(out, key, steps)
    return out


def spreads(function: object, name: str) -> bool:
    """Whether `function` takes `**name`."""
    assert callable(function)
    kind = inspect.signature(function).parameters.get(name)
    return kind is not None and kind.kind is inspect.Parameter.VAR_KEYWORD


def as_annotated(function: object, inputs: dict[str, object]) -> dict[str, object]:
    """ISO dates back into `date`/`datetime` objects where the parameter is annotated so:
    the example carries them as text, the engine passed the function real dates."""
    assert callable(function)
    params = inspect.signature(function).parameters
    kinds: dict[object, Any] = {
        "date": datetime.date,
        datetime.date: datetime.date,
        "datetime": datetime.datetime,
        datetime.datetime: datetime.datetime,
    }
    out = dict(inputs)
    for name, value in inputs.items():
        param = params.get(name)
        kind = kinds.get(param.annotation) if param is not None else None
        if kind is not None and isinstance(value, str):
            out[name] = kind.fromisoformat(value)
    return out


def as_input(function: Any, name: str, value: object, module: dict[str, object]) -> object:
    """An example input as the function meets it: a parameter annotated as a DataFrame gets
    one (the example holds its columns), others records."""
    param = inspect.signature(function).parameters.get(name)  # None: a key of **record
    annotation = param.annotation if param is not None else None
    if "DataFrame" in str(annotation) and isinstance(value, dict):
        import pandas

        return pandas.DataFrame(value)
    cls = module.get(annotation) if isinstance(annotation, str) else annotation
    if isinstance(cls, type) and not issubclass(cls, enum.Enum) and isinstance(value, dict):
        # `child: Child`: the engine built it through its constructor, from these arguments.
        with contextlib.suppress(TypeError):
            arguments = records(value, module)
            with contextlib.suppress(ValueError):  # a class of no signature (a builtin's)
                arguments = as_annotated(cls, arguments)  # type: ignore[arg-type]
            return cls(**arguments)  # type: ignore[arg-type]
    return records(value, module)


async def collected(items: Any) -> list[object]:
    return [item async for item in items]


def call(function: object, inputs: dict[str, object], seed: int, module: dict[str, object]) -> str:
    assert callable(function)
    state = random.getstate()
    random.seed(seed)
    try:
        built = as_annotated(
            function, {k: as_input(function, k, v, module) for k, v in inputs.items()}
        )
        try:
            result = function(**built)
        except TypeError as exc:
            if "unexpected keyword argument" not in str(exc):
                raise
            # A decorator without functools.wraps renames the parameters (`inner(data)`): the
            # engine passes them by position, in the order the example lists them.
            result = function(*built.values())
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        if inspect.isgenerator(result):
            result = list(result)
        if inspect.isasyncgen(result):
            result = asyncio.run(collected(result))
        return repr(result)
    finally:
        random.setstate(state)


def run_corpus_file(path: Path) -> dict[str, Any]:
    """The file's namespace; a dependency it names on purpose but nobody has (unrunnable.py's
    `sklearn_xyz`) stands in as a mock, as the engine's stub does for functions never touching
    it. A module of a package in the split runs as that package's module, so its relative and
    absolute imports of its siblings resolve."""
    stand_ins: list[str] = []
    package_root = path.parent
    while (package_root / "__init__.py").exists():
        package_root = package_root.parent
    while True:
        try:
            if package_root == path.parent:
                return runpy.run_path(str(path), run_name="corpus_replay")
            dotted = ".".join(path.relative_to(package_root).with_suffix("").parts)
            if str(package_root) not in sys.path:
                sys.path.insert(0, str(package_root))
            return vars(importlib.import_module(dotted))
        except ModuleNotFoundError as exc:
            if not exc.name or exc.name in stand_ins or len(stand_ins) > 5:
                raise
            stand_ins.append(exc.name)
            sys.modules[exc.name] = MagicMock()


def replay(label: Label) -> None:
    report = report_for(label)
    dynamic = {f.attribute: f for f in report.findings if f.method == "dynamic"}
    missing = set(label.attributes) - set(dynamic)
    # Nothing to replay is a failure, not a pass: the label says these findings exist.
    if missing and label.id not in KNOWN_MISSES:
        raise AssertionError(f"{label.id}: no dynamic finding for {sorted(missing)} to replay")
    if label.path not in _MODULES:
        _MODULES[label.path] = run_corpus_file(label.path)
    module = _MODULES[label.path]
    function = module[label.qualname]
    for attribute in sorted(set(label.attributes) & set(dynamic)):
        finding = dynamic[attribute]
        example = finding.example
        assert example is not None and len(example.values) == 2, finding
        sides = [with_value(function, example.inputs, finding.parameter, v) for v in example.values]
        if finding.kind == "refuses":
            replay_refusal(label, function, sides, finding, module)
            continue
        # Same seed on both sides, as the definition asks; a few seeds, since the engine's
        # own seed is not part of the example.
        differs = any(
            call(function, sides[0], s, module) != call(function, sides[1], s, module)
            for s in range(5)
        )
        assert differs, f"{label.id}: {finding.attribute} example does not reproduce: {example}"
    if missing:
        pytest.xfail(f"known miss ({KNOWN_MISSES[label.id]}): no finding for {sorted(missing)}")


def replay_refusal(
    label: Label,
    function: object,
    sides: list[dict[str, object]],
    finding: Finding,
    module: dict[str, object],
) -> None:
    """A refusal reproduces when its refused side raises the same exception type and the
    other side returns."""
    refused = finding.refused
    side = finding.refused_side
    assert refused is not None and side is not None, finding
    call(function, sides[1 - side], 0, module)
    with pytest.raises(Exception) as raised:  # noqa: PT011 - the type is checked by name
        call(function, sides[side], 0, module)
    assert type(raised.value).__name__ == refused[1], f"{label.id}: {finding}"


def replayable(labels: list[Label]) -> list[Label]:
    # Module-level functions of files that are Python as a whole.
    return [
        x
        for x in labels
        if x.status == "biased"
        and "." not in x.qualname
        and not x.path.with_name(x.path.name + ".labels.yml").exists()
    ]


REPLAY_TRAIN = replayable(TRAIN)
REPLAY_VALIDATION = replayable(VALIDATION)
REPLAY_HOLDOUT = replayable(HOLDOUT)
REPLAY_SHAPES = replayable(SHAPES + SHAPES_HOLDOUT)


@pytest.mark.sandbox
@pytest.mark.parametrize("label", on_its_split_s_worker(REPLAY_TRAIN))
def test_train_counterexample_reproduces_outside_the_engine(label: Label) -> None:
    replay(label)


@pytest.mark.sandbox
@pytest.mark.parametrize("label", on_its_split_s_worker(REPLAY_VALIDATION))
def test_validation_counterexample_reproduces_outside_the_engine(label: Label) -> None:
    replay(label)


@pytest.mark.sandbox
@pytest.mark.parametrize("label", on_its_split_s_worker(REPLAY_HOLDOUT))
def test_holdout_counterexample_reproduces_outside_the_engine(label: Label) -> None:
    replay(label)


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "label", on_its_split_s_worker(REPLAY_SHAPES, [x.id for x in REPLAY_SHAPES])
)
def test_shapes_counterexample_reproduces_outside_the_engine(label: Label) -> None:
    replay(label)


# -- the corpus itself (no engine needed) -------------------------------------------------


def test_corpus_has_enough_functions_in_each_split() -> None:
    assert len(TRAIN) >= 100
    assert len(VALIDATION) >= 40
    assert len(HOLDOUT) >= 60
    assert len(SHAPES) >= 55
    assert len(SHAPES_HOLDOUT) >= 28


@pytest.mark.parametrize("split", SPLITS)
def test_corpus_covers_every_status_and_the_six_categories(split: str) -> None:
    labels = load_labels(split)
    assert {x.status for x in labels} == {"biased", "clean", "unverified", "skipped"}
    biased = {a for x in labels if x.status == "biased" for a in x.attributes}
    assert biased >= {"age", "gender", "race", "region", "education", "occupation"}


def test_label_attributes_are_enabled_categories_of_the_default_policy() -> None:
    from config.policy import default_policy

    known = set(default_policy().enabled_categories)
    for label in TRAIN + VALIDATION + HOLDOUT + SHAPES + SHAPES_HOLDOUT:
        named = set(label.attributes) | set(label.attrs or ())
        assert named <= known, f"{label.id} names {sorted(named - known)}"


def test_labelled_functions_are_unique_per_file() -> None:
    ids = [x.id for x in TRAIN + VALIDATION + HOLDOUT + SHAPES + SHAPES_HOLDOUT]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("split", SPLITS)
def test_sidecar_labels_name_functions_defined_in_their_file(split: str) -> None:
    for path in corpus_files(split):
        sidecar = path.with_name(path.name + ".labels.yml")
        if not sidecar.exists():
            continue
        text = path.read_text(encoding="utf-8")
        for label in (x for x in load_labels(split) if x.file == path.name):
            assert re.search(rf"^\s*(async\s+)?def {re.escape(label.qualname)}\(", text, re.M), (
                f"{label.id} is not defined in {path.name}"
            )


@pytest.mark.parametrize("split", SPLITS)
def test_files_without_sidecar_are_valid_python(split: str) -> None:
    for path in corpus_files(split):
        if not path.with_name(path.name + ".labels.yml").exists():
            ast.parse(path.read_text(encoding="utf-8"), str(path))


@pytest.mark.parametrize(
    ("body", "status", "attributes", "attrs"),
    [
        ("biased[age, gender]", "biased", {"age", "gender"}, None),
        ("clean", "clean", set(), None),
        ("unverified[]", "unverified", set(), None),
        ("unverified[race] attrs=[race, age]", "unverified", {"race"}, {"race", "age"}),
        ("skipped", "skipped", set(), None),
        ("clean attrs=[age]", "clean", set(), {"age"}),
    ],
)
def test_label_grammar_reads_each_form(
    body: str, status: str, attributes: set[str], attrs: set[str] | None
) -> None:
    got = parse_label(body, "test")
    assert got == (status, frozenset(attributes), None if attrs is None else frozenset(attrs))


@pytest.mark.parametrize(
    "body", ["biased", "biased[]", "clean[age]", "flaky[age]", "biased[age] attrs=[gender]"]
)
def test_label_grammar_rejects_malformed_labels(body: str) -> None:
    with pytest.raises(LabelError):
        parse_label(body, "test")


def test_a_def_without_a_label_is_an_error() -> None:
    with pytest.raises(LabelError, match="no '# expect:'"):
        labels_in_source("def f(age):\n    return age\n", "train", "x.py")


def test_a_label_not_above_a_def_is_an_error() -> None:
    source = "# expect: clean\n\nX = 1\n\n# expect: skipped\ndef f(a):\n    return a\n"
    with pytest.raises(LabelError, match="not directly above a def"):
        labels_in_source(source, "train", "x.py")


def test_labels_above_decorators_and_in_nested_classes_are_read() -> None:
    source = (
        "class A:\n"
        "    class B:\n"
        "        # expect: biased[age]\n"
        "        @staticmethod\n"
        "        def f(age):\n"
        "            return age > 3\n"
    )
    (label,) = labels_in_source(source, "train", "x.py")
    assert (label.qualname, label.status) == ("A.B.f", "biased")
    assert label.attributes == {"age"}
