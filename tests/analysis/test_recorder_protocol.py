"""The recorder's side of the child (analysis/execution/harness/recorder.py, describe.py)
and the replay of recorded calls (harness/recorded.py), run in this process as the harness's
protocol is (harness_kit.py): a project is written to tmp_path, its tests and demos run
under the recorder, and what it streams is read back as the parent reads it."""

from __future__ import annotations

import base64
import os
import pickle
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness_kit import InProcessHarness, in_process_harness

from analysis.execution.harness.recorded import set_leaf

PRICING = """\
from dataclasses import dataclass, field
from typing import Literal, NamedTuple
import enum

class Sex(enum.Enum):
    MALE = "m"
    FEMALE = "f"

@dataclass(frozen=True)
class Applicant:
    name: str
    age: int
    sex: Literal["Male", "Female"]
    tags: list = field(default_factory=list)

class Point(NamedTuple):
    age: int
    sex: str

def quote(applicant, base=100.0):
    return base * (1.1 if applicant.sex == "Female" else 1.0)

def mutate(record):
    record["sex"] = "changed"
    return record

def spread(*people, rate, **extra):
    return len(people)

def typed(sex: Sex, point: Point):
    return sex.value, point.age

def table(df):
    return list(df["sex"])

def wrong(gen):
    return gen

def score(models, patient):
    return patient["age"]
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def h() -> Iterator[InProcessHarness]:
    with in_process_harness() as running:
        yield running


def targets(root: Path, *names: str) -> list[dict[str, Any]]:
    """The functions of pkg/pricing.py by name, as the host asks for them."""
    source = (root / "pkg" / "pricing.py").read_text().splitlines()
    found = []
    for i, name in enumerate(names):
        line = next(n for n, text in enumerate(source, 1) if text.startswith(f"def {name}("))
        found.append({"id": i, "file": f"{root}/pkg/pricing.py", "name": name, "lines": [line]})
    return found


def recorded(
    h: InProcessHarness, root: Path, names: tuple[str, ...], entries: list[dict[str, Any]],
    **extra: Any,
) -> list[dict[str, Any]]:  # fmt: skip
    assert h.load("", qualname="", paths=[str(root)], cwd=str(root), stub_missing=False)["loaded"]
    message = {"targets": targets(root, *names), "entries": entries, "repo": str(root), **extra}
    return h.record(message)


def calls(lines: list[dict[str, Any]], per_function: int | None = None) -> list[dict[str, Any]]:
    """The calls streamed, as the host keeps them (Evidence.fill): those within their
    source's share in order, then those sent as reserve filling up to `per_function`."""
    streamed = [line for line in lines if "call" in line]
    kept = [line for line in streamed if not line.get("reserve")]
    for line in streamed:
        target = line["call"]["target"]
        if line.get("reserve") and (
            per_function is None or sum(k["call"]["target"] == target for k in kept) < per_function
        ):
            kept.append(line)
    return [line["call"] | {"pickle": line["pickle"]} for line in kept]


def arguments(call: dict[str, Any]) -> dict[str, Any]:
    """The recorded pickle, loaded (here, in a test: the host never does)."""
    loaded: dict[str, Any] = pickle.loads(base64.b64decode(call["pickle"]))
    return loaded


def pytest_entry(*files: str) -> dict[str, Any]:
    return {"kind": "pytest", "args": list(files), "label": "pytest"}


# -- recording ------------------------------------------------------------------------------


def test_a_test_s_call_is_recorded_with_its_node_id_and_described_by_fields(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_pricing.py": """\
            from pkg.pricing import Applicant, quote
            def test_senior():
                assert quote(Applicant("Ann", 70, "Male")) == 100.0
        """,
    })  # fmt: skip
    lines = recorded(h, tmp_path, ("quote",), [pytest_entry("tests/test_pricing.py")])
    (call,) = calls(lines)
    assert call["target"] == 0
    assert call["source"] == "tests/test_pricing.py::test_senior"
    assert call["paths"] == ["tests"]  # pytest's rootdir of the test file, for its classes
    (name, how, node), (base, base_how, base_node) = call["params"]
    assert (name, how, base, base_how) == ("applicant", "arg", "base", "arg")
    assert node["t"] == "object" and node["how"] == "dataclass" and node["type"] == "Applicant"
    fields = dict(node["fields"])
    assert fields["age"] == {"t": "scalar", "kind": "int", "v": 70}
    # A field declared Literal[...] says which values the class itself accepts.
    sex = {"t": "scalar", "kind": "str", "v": "Male", "choices": ["Male", "Female"]}
    assert fields["sex"] == sex
    assert base_node == {"t": "scalar", "kind": "float", "v": 100.0}
    assert arguments(call)["args"][0].sex == "Male"
    entry = next(line for line in lines if "entry" in line)
    assert (entry["tests"], entry["failed_imports"]) == (1, 0)
    assert lines[-1] == {
        "recorded": True,
        "counts": {"kept": 1, "repeated": 0, "unpicklable": 0, "oversized": 0, "unloadable": 0},
    }


def test_arguments_are_copied_at_the_call_before_the_function_changes_them(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_m.py": """\
            from pkg.pricing import mutate
            def test_it():
                assert mutate({"sex": "Female"})["sex"] == "changed"
        """,
    })  # fmt: skip
    (call,) = calls(recorded(h, tmp_path, ("mutate",), [pytest_entry("tests/test_m.py")]))
    assert arguments(call) == {"args": [{"sex": "Female"}], "kwargs": {}}
    assert call["params"][0][2]["items"] == [["sex", {"t": "scalar", "kind": "str", "v": "Female"}]]


def test_at_most_k_distinct_calls_are_kept_and_repeats_and_unpicklables_are_counted(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_many.py": """\
            from pkg.pricing import mutate, wrong
            def test_many():
                for age in [30, 30, 40, 50, 60, 70]:
                    mutate({"age": age})
                wrong(x for x in [])
        """,
    })  # fmt: skip
    lines = recorded(
        h, tmp_path, ("mutate", "wrong"), [pytest_entry("tests/test_many.py")],
        calls_per_function=3,
    )  # fmt: skip
    ages = [arguments(c)["args"][0]["age"] for c in calls(lines, 3)]
    assert ages == [30, 40, 50]
    counts = lines[-1]["counts"]
    assert counts["repeated"] == 1 and counts["unpicklable"] == 1  # the generator


def test_the_calls_kept_are_spread_over_the_test_files_and_the_reserve_fills_the_rest(
    h: InProcessHarness, tmp_path: Path
) -> None:
    # The first file calls the function with one kind of case again and again; the case
    # that matters comes in a later file. Each file gives its share (calls_per_function // 4,
    # at least 1) first; what is left is filled from the reserve, in order, at the end.
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_a_big.py": """\
            from pkg.pricing import mutate
            def test_big():
                for age in [30, 31, 32, 33, 34, 35]:
                    mutate({"age": age})
        """,
        "tests/test_b_small.py": """\
            from pkg.pricing import mutate
            def test_small():
                mutate({"age": 80})
        """,
    })  # fmt: skip
    lines = recorded(
        h, tmp_path, ("mutate",), [pytest_entry("tests")], calls_per_function=3
    )  # fmt: skip
    # Past its share a file's calls are sent at once, as reserve (at most calls_per_function).
    streamed = [(line.get("reserve", False), arguments(line)["args"][0]["age"])
                for line in lines if "call" in line]  # fmt: skip
    assert streamed == [(False, 30), (True, 31), (True, 32), (True, 33), (False, 80)]
    assert [arguments(c)["args"][0]["age"] for c in calls(lines, 3)] == [30, 80, 31]
    assert [c["source"].split("::")[0] for c in calls(lines, 3)] == [
        "tests/test_a_big.py", "tests/test_b_small.py", "tests/test_a_big.py",
    ]  # fmt: skip


def test_an_oversized_call_is_counted_not_kept(h: InProcessHarness, tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_big.py": """\
            from pkg.pricing import mutate
            def test_big():
                mutate({"sex": "x" * 100_000})
        """,
    })  # fmt: skip
    lines = recorded(
        h, tmp_path, ("mutate",), [pytest_entry("tests/test_big.py")], max_pickle_bytes=10_000
    )
    assert not calls(lines)
    assert lines[-1]["counts"]["oversized"] == 1


def test_star_args_keyword_only_and_extra_keywords_keep_their_names(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_spread.py": """\
            from pkg.pricing import spread
            def test_spread():
                spread({"age": 30}, {"age": 40}, rate=2, region="north")
        """,
    })  # fmt: skip
    (call,) = calls(recorded(h, tmp_path, ("spread",), [pytest_entry("tests/test_spread.py")]))
    assert [(name, how) for name, how, _ in call["params"]] == [
        ("people[0]", "star"), ("people[1]", "star"), ("rate", "kw"), ("region", "kw")
    ]  # fmt: skip
    assert arguments(call) == {
        "args": [{"age": 30}, {"age": 40}],
        "kwargs": {"rate": 2, "region": "north"},
    }


def test_enums_namedtuples_and_frames_are_described_by_what_they_hold(
    h: InProcessHarness, tmp_path: Path
) -> None:
    pytest.importorskip("pandas")
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_kinds.py": """\
            import pandas as pd
            from pkg.pricing import Point, Sex, table, typed
            def test_kinds():
                typed(Sex.FEMALE, Point(45, "F"))
                table(pd.DataFrame({"sex": ["M", "F", "M"], "income": [1, 2, 3]}))
        """,
    })  # fmt: skip
    found = calls(recorded(h, tmp_path, ("typed", "table"), [pytest_entry("tests/test_kinds.py")]))
    sex, point = (node for _, _, node in found[0]["params"])
    assert sex == {"t": "enum", "type": "Sex", "member": "FEMALE", "members": ["MALE", "FEMALE"]}
    assert point["how"] == "namedtuple"
    assert dict(point["fields"])["sex"] == {"t": "scalar", "kind": "str", "v": "F"}
    frame = found[1]["params"][0][2]
    assert frame["t"] == "frame" and frame["rows"] == 3
    columns = dict(frame["columns"])
    assert [v["v"] for v in columns["sex"]["values"]] == ["M", "F", "M"]
    assert columns["income"]["dtype"] == "int64"


def test_a_deep_argument_leaves_the_next_its_share_of_the_description(
    h: InProcessHarness, tmp_path: Path
) -> None:
    """praevius's shape: a dict of fitted pipelines, then the patient; described in one
    budget in order, the patient was left opaque and no recorded call held a person."""
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_score.py": """\
            from pkg.pricing import score
            LAYER = {"weights": [1, 2, 3, 4, 5], "bias": [0, 1, 2, 3, 4], "scale": 1.0}
            MODELS = {f"m{i}": {"first": dict(LAYER), "last": dict(LAYER)} for i in range(40)}
            def test_score():
                assert score(MODELS, {"age": 70, "sex": "F"}) == 70
        """,
    })  # fmt: skip
    (call,) = calls(recorded(h, tmp_path, ("score",), [pytest_entry("tests/test_score.py")]))
    models, patient = (node for _, _, node in call["params"])
    assert models["t"] == "map"
    assert patient["t"] == "map" and dict(patient["items"])["age"]["v"] == 70


def test_a_demo_is_recorded_as_its_program_and_its_classes_load_again_from_its_file(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "examples/demo.py": """\
            from pkg.pricing import quote
            class Person:
                def __init__(self, sex):
                    self.sex = sex
            if __name__ == "__main__":
                print(quote(Person("Female")))
                raise SystemExit(0)
        """,
    })  # fmt: skip
    script = {"kind": "script", "path": f"{tmp_path}/examples/demo.py", "argv": [],
              "label": "examples/demo.py __main__"}  # fmt: skip
    lines = recorded(h, tmp_path, ("quote",), [script])
    (call,) = calls(lines)
    assert call["source"] == "examples/demo.py __main__"
    assert call["main"] == {"path": f"{tmp_path}/examples/demo.py"}
    assert next(line for line in lines if "entry" in line)["status"] == "exited (0)"
    # Replayed in a session of its own: Person comes from the demo's file, its main block
    # left still (it would print and exit otherwise).
    folder = tmp_path / "evidence"
    folder.mkdir()
    (folder / "c1.pickle").write_bytes(base64.b64decode(call["pickle"]))
    index = {"c1": {"paths": [], "main": {"path": "examples/demo.py"}}}
    (folder / "index.json").write_text(__import__("json").dumps(index))
    h.load(PRICING, "quote", evidence=str(folder), cwd=str(tmp_path), recorded=["c1"])
    person = {"__cb__": "recorded", "call": "c1", "param": 0, "set": []}
    assert h.call(person)["repr"] == "110"
    male = {**person, "set": [[[["attr", "sex"]], "Male"]]}
    assert h.call(male)["repr"] == "100"
    assert h.call(person)["repr"] == "110"  # every call starts afresh


def test_a_test_past_its_time_fails_and_the_next_test_is_still_recorded(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_slow.py": """\
            import time
            from pkg.pricing import mutate
            def test_a_sleeper():
                while True:
                    try:
                        time.sleep(60)
                    except Exception:
                        pass  # a retry loop: the interruption is no Exception
            def test_b_after():
                mutate({"age": 33})
        """,
    })  # fmt: skip
    lines = recorded(
        h, tmp_path, ("mutate",), [pytest_entry("tests/test_slow.py")], seconds_per_test=0.5
    )
    (call,) = calls(lines)
    assert call["source"] == "tests/test_slow.py::test_b_after"


def test_an_entry_past_its_time_ends_and_the_next_entry_runs(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "hang.py": "import time\nwhile True:\n    time.sleep(1)\n",
        "run.py": "from pkg.pricing import mutate\nmutate({'age': 50})\n",
    })  # fmt: skip
    entries = [
        {"kind": "script", "path": f"{tmp_path}/hang.py", "label": "hang.py __main__"},
        {"kind": "script", "path": f"{tmp_path}/run.py", "label": "run.py __main__"},
    ]
    # The first of two entries gets a quarter of the four seconds; the second the rest.
    lines = recorded(h, tmp_path, ("mutate",), entries, seconds=4, entry_share=0.25)
    statuses = [line["status"] for line in lines if "entry" in line]
    assert statuses == ["stopped: it ran past its time", "ok"]
    assert [c["source"] for c in calls(lines)] == ["run.py __main__"]


def test_a_test_file_that_cannot_import_is_counted_and_the_others_run(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_broken.py": "from pkg.not_here import quote\n",  # the project's own error
        "tests/test_fine.py": """\
            from pkg.pricing import mutate
            def test_fine():
                mutate({"age": 20})
        """,
    })  # fmt: skip
    lines = recorded(h, tmp_path, ("mutate",), [pytest_entry("tests")])
    entry = next(line for line in lines if "entry" in line)
    assert entry["failed_imports"] == 1
    assert [c["source"] for c in calls(lines)] == ["tests/test_fine.py::test_fine"]


def test_tests_of_a_file_that_keep_nothing_new_are_left_out_and_the_next_file_runs(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "tests/test_a_many.py": """\
            import pytest
            from pkg.pricing import mutate
            @pytest.mark.parametrize("n", range(60))
            def test_same(n):
                mutate({"age": 30})
        """,
        "tests/test_b_other.py": """\
            from pkg.pricing import mutate
            def test_other():
                mutate({"age": 80})
        """,
    })  # fmt: skip
    lines = recorded(h, tmp_path, ("mutate",), [pytest_entry("tests")])
    assert [arguments(c)["args"][0]["age"] for c in calls(lines)] == [30, 80]
    entry = next(line for line in lines if "entry" in line)
    # The first test kept a call, the next 25 nothing new: the other 34 were left out.
    assert entry["tests"] == 1 + 25 + 1
    assert entry["status"].endswith("; 34 tests left out (nothing more to record)")


def test_a_suite_whose_last_files_kept_nothing_is_left_out_after_ten_of_them(
    h: InProcessHarness, tmp_path: Path
) -> None:
    # A general library's hundreds of test files reach the functions recorded by chance.
    files = {"pkg/__init__.py": "", "pkg/pricing.py": PRICING}
    for n in range(15):
        files[f"tests/test_{n:02d}_other.py"] = "def test_other():\n    assert True\n"
    files["tests/test_99_late.py"] = (
        "from pkg.pricing import mutate\ndef test_late():\n    mutate({'age': 80})\n"
    )
    write(tmp_path, files)
    lines = recorded(h, tmp_path, ("mutate",), [pytest_entry("tests")])
    assert calls(lines) == []
    entry = next(line for line in lines if "entry" in line)
    assert entry["tests"] == 10
    assert entry["status"].endswith("; 6 tests left out (nothing more to record)")


def test_recording_stops_once_every_function_has_its_calls(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "a.py": "from pkg.pricing import mutate\nmutate({'age': 1})\n",
        "b.py": "raise RuntimeError('never reached')\n",
    })  # fmt: skip
    entries = [
        {"kind": "script", "path": f"{tmp_path}/a.py", "label": "a"},
        {"kind": "script", "path": f"{tmp_path}/b.py", "label": "b"},
    ]
    lines = recorded(h, tmp_path, ("mutate",), entries, calls_per_function=1)
    assert [line["status"] for line in lines if "entry" in line] == ["ok"]


# -- replay: one leaf set inside a recorded value -----------------------------------------


def test_set_leaf_sets_keys_attributes_and_items_rebuilding_what_is_immutable() -> None:
    from dataclasses import dataclass
    from typing import NamedTuple

    @dataclass(frozen=True)
    class Person:
        sex: str

    class Pair(NamedTuple):
        age: int
        sex: str

    record = {"people": [{"sex": "M"}, {"sex": "M"}], "who": Person("M"), "pair": Pair(3, "M")}
    out = set_leaf(record, [("key", "people"), ("index", "*"), ("key", "sex")], "F")
    assert out["people"] == [{"sex": "F"}, {"sex": "F"}]
    assert set_leaf(record, [("key", "who"), ("attr", "sex")], "F")["who"] == Person("F")
    assert set_leaf(record, [("key", "pair"), ("attr", "sex")], "F")["pair"] == Pair(3, "F")
    assert set_leaf((1, 2), [("index", 1)], 5) == (1, 5)


def test_set_leaf_sets_a_frame_column_in_every_row_or_the_first_alone() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"sex": ["M", "F", "M"], "n": [1, 2, 3]})
    assert list(set_leaf(frame.copy(), [("key", "sex"), ("rows", 0)], "F")["sex"]) == [
        "F", "F", "M"
    ]  # fmt: skip
    assert list(set_leaf(frame.copy(), [("key", "sex"), ("rows", "*")], "F")["sex"]) == ["F"] * 3
    category = frame.astype({"sex": "category"})
    assert list(set_leaf(category, [("key", "sex"), ("rows", 0)], "X")["sex"])[0] == "X"
    series = pandas.Series([30, 40])
    assert list(set_leaf(series, [("rows", 0)], 70)) == [70, 40]


def test_set_leaf_keeps_the_recorded_form_of_enums_and_datetimes() -> None:
    import datetime
    import enum

    class Sex(enum.Enum):
        MALE = "m"
        FEMALE = "f"

    assert set_leaf({"s": Sex.MALE}, [("key", "s")], "FEMALE") == {"s": Sex.FEMALE}
    born = datetime.datetime(1980, 5, 1, 12, 30)
    moved = set_leaf({"born": born}, [("key", "born")], datetime.date(1950, 5, 1))
    assert moved == {"born": datetime.datetime(1950, 5, 1, 12, 30)}


def test_set_leaf_refuses_a_value_a_validating_model_refuses() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Frozen(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(frozen=True)
        sex: str

    class Checked(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(validate_assignment=True)
        age: int

    assert set_leaf(Frozen(sex="M"), [("attr", "sex")], "F") == Frozen(sex="F")
    with pytest.raises(pydantic.ValidationError):
        set_leaf(Checked(age=3), [("attr", "age")], "not a number")


def newer_python() -> str | None:
    """An interpreter with sys.monitoring (3.12+) on this machine, if any."""
    import glob
    import shutil
    import subprocess

    names = [shutil.which(n) for n in ("python3.13", "python3.12")]
    pyenv = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")))
    for found in [*pyenv, *names]:
        if found is None:
            continue
        done = subprocess.run([found, "-c", "import sys; sys.monitoring"], capture_output=True)
        if done.returncode == 0:
            return found
    return None


@pytest.mark.skipif(newer_python() is None, reason="no Python with sys.monitoring here")
def test_on_a_python_with_sys_monitoring_calls_are_recorded_through_it(tmp_path: Path) -> None:
    import json
    import subprocess

    from analysis.execution.process import HARNESS_SCRIPT, Channel

    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/pricing.py": PRICING,
        "run.py": "from pkg.pricing import mutate\nfor s in 'mfm':\n    mutate({'sex': s})\n",
    })  # fmt: skip
    requests = [
        {"op": "load", "source": "", "filename": "", "qualname": "", "paths": [str(tmp_path)],
         "cwd": str(tmp_path), "stub_missing": False},
        {"op": "record", "repo": str(tmp_path), "targets": targets(tmp_path, "mutate"),
         "entries": [{"kind": "script", "path": f"{tmp_path}/run.py", "label": "run.py"}]},
    ]  # fmt: skip
    channel = Channel()
    done = subprocess.run(
        [str(newer_python()), "-s", "-P", "-c", HARNESS_SCRIPT],
        input=channel.first_line() + b"".join(json.dumps(r).encode() + b"\n" for r in requests),
        capture_output=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [json.loads(channel.open(line)) for line in done.stdout.splitlines()]
    assert [arguments(c)["args"][0]["sex"] for c in calls(lines)] == ["m", "f"]
    assert lines[-1]["counts"]["repeated"] == 1


# -- without sys.monitoring: the targets report their own calls (harness/instrument.py) -----

no_monitoring = pytest.mark.skipif(
    hasattr(__import__("sys"), "monitoring"), reason="this Python records through sys.monitoring"
)
RATED = """\
import functools

def logged(f):
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)
    return inner

@logged
def rate(person):
    \"\"\"Rates a person.\"\"\"
    return person["age"]

if __name__ == "__main__":
    rate({"age": 64})
"""


def rated_targets(root: Path) -> list[dict[str, Any]]:
    # As the host names a decorated function: the lines of its decorator and of its `def`.
    return [{"id": 0, "file": f"{root}/pkg/rated.py", "name": "rate", "lines": [9, 10]}]


@no_monitoring
def test_a_target_reports_its_own_calls_and_no_profile_hook_slows_the_tests(
    h: InProcessHarness, tmp_path: Path
) -> None:
    # A profile hook is called at every call of every function: a numeric test runs ten
    # times slower under it. The target's file is compiled with a call of the recorder
    # first in its body, after its docstring, through its decorator.
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/rated.py": RATED,
        "tests/test_rated.py": """\
            import sys
            from pkg.rated import rate
            def test_fast():
                assert sys.getprofile() is None
                assert rate.__doc__ == "Rates a person."
                assert rate({"age": 70}) == 70
        """,
    })  # fmt: skip
    assert h.load("", qualname="", paths=[str(tmp_path)], cwd=str(tmp_path), stub_missing=False)
    entries = [pytest_entry("tests/test_rated.py")]
    lines = h.record(
        {"targets": rated_targets(tmp_path), "entries": entries, "repo": str(tmp_path)}
    )
    assert next(line for line in lines if "entry" in line)["status"] == "pytest exit code 0"
    assert [arguments(c)["args"][0] for c in calls(lines)] == [{"age": 70}]
    # Compiled for this run alone: no bytecode cache of the project holds the recorder's call.
    cached = [p.read_bytes() for p in tmp_path.rglob("*.pyc")]
    assert not any(b"__codebias_recorded_call__" in data for data in cached)


@no_monitoring
def test_a_target_imported_before_or_run_as_a_program_is_recorded_through_the_profile(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/rated.py": RATED, "pkg/pricing.py": PRICING,
        "tests/test_pricing.py": """\
            import sys
            from pkg.pricing import mutate
            def test_slow():
                assert sys.getprofile() is not None
                mutate({"sex": "f"})
        """,
    })  # fmt: skip
    assert h.load("", qualname="", paths=[str(tmp_path)], cwd=str(tmp_path), stub_missing=False)
    __import__("pkg.pricing")  # compiled before the recording: it has no call of the recorder
    entries = [
        pytest_entry("tests/test_pricing.py"),
        # runpy compiles a program's file itself: the targets in it have no call either.
        {"kind": "script", "path": f"{tmp_path}/pkg/rated.py", "argv": [], "label": "rated"},
    ]
    found = [*targets(tmp_path, "mutate"), {**rated_targets(tmp_path)[0], "id": 1}]
    lines = h.record({"targets": found, "entries": entries, "repo": str(tmp_path)})
    assert next(line for line in lines if "entry" in line)["status"] == "pytest exit code 0"
    recorded_args = [arguments(c)["args"][0] for c in calls(lines)]
    assert recorded_args == [{"sex": "f"}, {"age": 64}]
