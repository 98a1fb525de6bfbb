"""The recorder's data entries (harness/recorder.py, datarows.py): a data file's rows passed to
the functions that read them, in the shape each takes, run in this process as the harness's
protocol is (harness_kit.py); only the calls that return are recorded, named by file and
row."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness_kit import InProcessHarness, in_process_harness
from test_recorder_protocol import arguments, calls, write

PEOPLE = """\
from dataclasses import dataclass
from typing import NamedTuple, Optional

@dataclass
class Applicant:
    Gender: str
    Income: int

class Row(NamedTuple):
    Gender: str
    Income: Optional[int]

def by_row(*, input_data, rate=1.0):
    return input_data["Income"] * rate / (2 if input_data["Gender"] == "Female" else 1)

def typed(applicant: Applicant):
    return applicant.Income

def frame(applicants):
    return applicants["Gender"].tolist()

def rows(applicants: list):
    return [a["Gender"] for a in applicants]

def picky(input_data):
    if input_data["Income"] is None:
        raise ValueError("no income")
    return input_data["Income"]

def named(applicant: Row):
    return applicant.Gender

class Model:
    def __init__(self, rate=2.0):
        self.rate = rate

    def score(self, input_data):
        return input_data["Income"] * self.rate

def needs_rate(input_data, rate):
    return input_data["Income"] * rate
"""
CSV = "Gender,Income,Notes\nMale,52000,\nFemale,,x\nFemale,48000.5,\n"
NAMES = ("by_row", "typed", "frame", "rows", "picky", "needs_rate", "named", "score")


@pytest.fixture
def h() -> Iterator[InProcessHarness]:
    with in_process_harness() as running:
        yield running


def record_data(
    h: InProcessHarness, root: Path, *functions: str, data: tuple[str, str, str] = (
        "data/people.csv", "csv", CSV,
    ), delimiter: str = "", **extra: Any,
) -> list[Any]:  # fmt: skip
    """Drive `functions` (of pkg/people.py, or `module:name`) with the rows of `data`."""
    name, data_format, text = data
    write(root, {"pkg/__init__.py": "", "pkg/people.py": PEOPLE, name: text})
    source = (root / "pkg" / "people.py").read_text().splitlines()
    targets = [
        {"id": i, "file": f"{root}/pkg/people.py", "name": fn,
         "lines": [next(n for n, t in enumerate(source, 1) if t.lstrip().startswith(f"def {fn}("))]}
        for i, fn in enumerate(NAMES)
    ]  # fmt: skip
    entry = {
        "kind": "data", "path": f"{root}/{name}", "format": data_format, "label": name,
        "delimiter": delimiter,
        "drives": [{"module": module or "pkg.people", "qualname": fn,
                    "param": "applicant" if fn in ("typed", "named") else
                    "applicants" if fn in ("frame", "rows") else "input_data"}
                   for module, _, fn in (f.rpartition(":") for f in functions)],
    }  # fmt: skip
    assert h.load("", qualname="", paths=[str(root)], cwd=str(root), stub_missing=False)[
        "loaded"
    ]
    return h.record({"targets": targets, "entries": [entry], "repo": str(root), **extra})


def test_each_row_goes_to_the_keyword_parameter_as_a_dict_numbers_read_as_numbers(
    h: InProcessHarness, tmp_path: Path
) -> None:
    lines = record_data(h, tmp_path, "by_row")
    recorded = calls(lines)
    # Row 1's empty income raises: that call is not kept.
    assert [c["source"] for c in recorded] == ["data/people.csv row 0", "data/people.csv row 2"]
    assert arguments(recorded[0])["kwargs"] == {
        "input_data": {"Gender": "Male", "Income": 52000, "Notes": None}, "rate": 1.0,
    }  # the other parameter as its default
    assert arguments(recorded[1])["kwargs"]["input_data"]["Income"] == 48000.5
    entry = next(line for line in lines if "entry" in line)
    assert entry["status"] == "ok: 2 call(s) returned, 1 raised"  # row 1: None / 2


def test_a_call_that_raises_is_not_recorded(h: InProcessHarness, tmp_path: Path) -> None:
    recorded = calls(record_data(h, tmp_path, "picky"))
    assert [c["source"] for c in recorded] == ["data/people.csv row 0", "data/people.csv row 2"]


def test_an_annotated_dataclass_is_built_from_the_row(h: InProcessHarness, tmp_path: Path) -> None:
    recorded = calls(record_data(h, tmp_path, "typed"))
    assert len(recorded) == 3 and recorded[0]["source"] == "data/people.csv row 0"
    applicant = arguments(recorded[0])["args"][0]
    assert (type(applicant).__name__, applicant.Gender, applicant.Income) == (
        "Applicant", "Male", 52000,
    )  # fmt: skip


def test_an_annotated_namedtuple_is_built_from_the_row(
    h: InProcessHarness, tmp_path: Path
) -> None:
    recorded = calls(record_data(h, tmp_path, "named"))
    assert len(recorded) == 3
    assert arguments(recorded[2])["args"][0] == ("Female", 48000.5)


def test_a_function_a_row_does_not_suit_gets_a_dataframe_of_the_rows(
    h: InProcessHarness, tmp_path: Path
) -> None:
    pandas = pytest.importorskip("pandas")
    (call,) = calls(record_data(h, tmp_path, "frame"))
    assert call["source"] == "data/people.csv rows 0-2"
    table = arguments(call)["args"][0]
    assert isinstance(table, pandas.DataFrame)
    assert table["Gender"].tolist() == ["Male", "Female", "Female"]
    assert pandas.isna(table["Income"][1])  # as pandas reads an empty cell


def test_a_list_annotation_gets_a_list_of_row_dicts(h: InProcessHarness, tmp_path: Path) -> None:
    (call,) = calls(record_data(h, tmp_path, "rows"))
    assert call["source"] == "data/people.csv rows 0-2"
    assert [row["Gender"] for row in arguments(call)["args"][0]] == ["Male", "Female", "Female"]


def test_a_function_with_another_required_parameter_is_not_called(
    h: InProcessHarness, tmp_path: Path
) -> None:
    lines = record_data(h, tmp_path, "needs_rate")
    assert calls(lines) == []
    entry = next(line for line in lines if "entry" in line)
    assert entry["status"] == "ok: 0 call(s) returned, 0 raised"


def test_at_most_k_calls_per_function(h: InProcessHarness, tmp_path: Path) -> None:
    recorded = calls(record_data(h, tmp_path, "by_row", calls_per_function=1))
    assert [c["source"] for c in recorded] == ["data/people.csv row 0"]


@pytest.mark.parametrize(
    "data",
    [
        ("people.json", "json", '[{"Gender": "Male", "Income": 52000}, {"Gender": "Female"}]'),
        ("person.json", "json", '{"Gender": "Male", "Income": 52000}'),
        ("people.jsonl", "jsonl", '{"Gender": "Male", "Income": 52000}\n\n{"Gender": "F"}\n'),
        ("people.tsv", "tsv", "Gender\tIncome\nMale\t52000\nFemale\t\n"),
    ],
)
def test_json_records_one_object_json_lines_and_tsv_rows_are_read_alike(
    h: InProcessHarness, tmp_path: Path, data: tuple[str, str, str]
) -> None:
    recorded = calls(record_data(h, tmp_path, "picky", data=data))
    assert [c["source"] for c in recorded] == [f"{data[0]} row 0"]  # row 1 has no income
    assert arguments(recorded[0])["args"] == [{"Gender": "Male", "Income": 52000}]


def test_a_function_whose_module_cannot_be_imported_is_named(
    h: InProcessHarness, tmp_path: Path
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "broken.py").write_text("import sklearn_not_installed_here\n")
    lines = record_data(h, tmp_path, "pkg.broken:decide", "by_row")
    entry = next(line for line in lines if "entry" in line)
    assert entry["status"] == (
        "ok: 2 call(s) returned, 1 raised; not loaded: decide (ModuleNotFoundError: "
        "No module named 'sklearn_not_installed_here')"
    )  # by_row's rows still run


def test_a_table_is_read_with_the_delimiter_the_host_found(
    h: InProcessHarness, tmp_path: Path
) -> None:
    data = ("people.csv", "csv", "Gender;Income\rMale;52000\rFemale;\r")  # old Mac line ends
    recorded = calls(record_data(h, tmp_path, "picky", data=data, delimiter=";"))
    assert arguments(recorded[0])["args"] == [{"Gender": "Male", "Income": 52000}]


def test_a_method_is_called_on_an_instance_of_its_class_built_bare(
    h: InProcessHarness, tmp_path: Path
) -> None:
    recorded = calls(record_data(h, tmp_path, "Model.score"))
    assert [c["source"] for c in recorded] == ["data/people.csv row 0", "data/people.csv row 2"]
    instance, row = arguments(recorded[0])["args"]
    assert (type(instance).__name__, instance.rate, row["Income"]) == ("Model", 2.0, 52000)


def test_true_and_false_cells_are_flags(h: InProcessHarness, tmp_path: Path) -> None:
    data = ("people.csv", "csv", "Gender,Income,smoker\nMale,1,True\nFemale,2,false\n")
    recorded = calls(record_data(h, tmp_path, "by_row", data=data))
    assert [arguments(c)["kwargs"]["input_data"]["smoker"] for c in recorded] == [True, False]


def test_a_function_with_its_calls_already_is_not_called_again(
    h: InProcessHarness, tmp_path: Path
) -> None:
    lines = record_data(h, tmp_path, "by_row", "by_row", calls_per_function=2)
    assert len(calls(lines)) == 2
    entry = next(line for line in lines if "entry" in line)
    assert entry["status"] == "ok: 2 call(s) returned, 1 raised"  # not driven the second time
