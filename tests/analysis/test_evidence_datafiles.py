"""Which data files a recording drives which functions with (analysis/evidence/datafiles.py):
the fields a function's parameter reads, directly or through a helper, against the columns
or keys of the project's CSV, TSV, JSON and JSON Lines files; files that are not tables are
named and left out."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from test_recorder_protocol import write

from analysis.evidence.datafiles import Reader, data_entries, data_files, reader
from analysis.evidence.entrypoints import Drive
from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.scan.project import Project
from analysis.source.functions import find_function
from config.policy import build_policy

POLICY = build_policy()

PREDICT = """\
    import pandas as pd

    def validate(*, frame):
        checked = frame.copy()
        checked["ApplicantIncome"] = checked["ApplicantIncome"].astype(float)
        return checked[["LoanAmount", "Credit_History"]]

    def make_prediction(*, input_data, threshold=0.5):
        data = pd.DataFrame([input_data]) if isinstance(input_data, dict) else input_data
        return validate(frame=data)

    def by_rows(applicants):
        return [row.get("Gender") for row in applicants]

    def sex_only(person):
        return person["sex"] == "F"

    def needs_two(person, rate):
        return person["Gender"], person["Married"], rate

    class Model:
        def score(self, person):
            return person["Gender"], person["Married"]

        @classmethod
        def rank(cls, person):
            return person["Gender"], person["Married"]

    class Fitted:
        def __init__(self, weights):
            self.weights = weights

        def score(self, person):
            return person["Gender"], person["Married"]
"""


def reader_of(qualname: str, source: str = PREDICT) -> Reader | None:
    tree = ast.parse(textwrap.dedent(source))
    facts = ModuleFacts(tree)
    info = find_function(tree, qualname)
    assert info is not None
    model = InputBuilder(facts, POLICY).build(info)
    return reader("pkg.predict", info, model, facts.functions)


def project(root: Path, files: dict[str, str], binary: dict[str, bytes] | None = None) -> Project:
    write(root, files)
    for name, content in (binary or {}).items():
        (root / name).write_bytes(content)
    return Project(root)


def test_columns_read_through_what_the_parameter_becomes_and_a_helper_are_found() -> None:
    found = reader_of("make_prediction")
    assert found is not None
    assert {"ApplicantIncome", "LoanAmount", "Credit_History"} <= found.reads["input_data"]
    assert "threshold" not in found.reads  # reads nothing by name
    rows = reader_of("by_rows")
    assert rows is not None and "Gender" in rows.reads["applicants"]


def test_a_function_that_needs_more_than_the_rows_or_an_instance_is_not_driven() -> None:
    assert reader_of("needs_two") is None
    assert reader_of("Fitted.score") is None  # its instance needs weights


def test_a_method_of_a_class_built_bare_reads_through_its_other_parameter() -> None:
    for qualname in ("Model.score", "Model.rank"):
        found = reader_of(qualname)
        assert found is not None
        assert set(found.reads) == {"person"}  # `self`, `cls`: the call gives them


def test_a_table_is_driven_for_the_functions_reading_its_columns_and_only_those(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, {
        "datasets/test.csv": "Loan_ID,Gender,ApplicantIncome,LoanAmount\nLP1,Male,5720,110\n",
        "datasets/cities.csv": "city,population\nLeeds,800000\n",
        "people.tsv": "sex\tage\nF\t30\n",
    })  # fmt: skip
    readers = [r for r in (reader_of(q) for q in ("make_prediction", "sex_only")) if r]
    found = data_entries(data_files(root), readers, POLICY)
    assert found.warnings == []
    by_file = {e.path: e for e in found.entries}
    assert set(by_file) == {"datasets/test.csv", "people.tsv"}
    assert by_file["datasets/test.csv"].drives == (
        Drive("pkg.predict", "make_prediction", "input_data"),
    )
    # One column in common, of a protected category, is enough.
    assert by_file["people.tsv"].drives == (Drive("pkg.predict", "sex_only", "person"),)
    assert by_file["people.tsv"].data_format == "tsv"
    wire = by_file["datasets/test.csv"].wire("/repo")
    assert wire == {
        "kind": "data", "path": "/repo/datasets/test.csv", "format": "csv", "delimiter": ",",
        "label": "datasets/test.csv",
        "drives": [{"module": "pkg.predict", "qualname": "make_prediction",
                    "param": "input_data"}],
    }  # fmt: skip


def test_json_records_one_object_and_json_lines_are_read_by_their_keys(tmp_path: Path) -> None:
    project(tmp_path, {
        "a.json": '[{"Gender": "Male", "Income": 1}, {"Gender": "Female", "Married": "No"}]',
        "b.json": '{"sex": "F", "age": 40}',
        "c.jsonl": '{"race": "Asian", "zip": "02139"}\n\n{"race": "White", "zip": "10001"}\n',
        "numbers.json": "[1, 2, 3]",
        "lookup.json": '{"Gender": {"Female": -15}, "Married": {"Yes": 5}}',  # configuration
        "node_modules/x.csv": "Gender,Income\nMale,1\n",
        ".hidden/y.csv": "Gender,Income\nMale,1\n",
    })  # fmt: skip
    found = data_files(Project(tmp_path))
    files, warnings = found.files, found.warnings
    assert warnings == []
    assert {f.path: set(f.columns) for f in files if f.columns} == {
        "a.json": {"Gender", "Income", "Married"},
        "b.json": {"sex", "age"},
        "c.jsonl": {"race", "zip"},
    }
    # Configuration has no rows, but its keys, for a function handed the file's path.
    (lookup,) = [f for f in files if not f.columns]
    assert lookup.path == "lookup.json"
    assert set(lookup.keys) == {"Gender", "Female", "Married", "Yes"}


def test_a_function_out_of_the_scope_is_driven_only_with_a_file_of_people(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, {
        "loans.csv": "Loan_ID,LoanAmount,Credit_History\nLP1,110,1\n",
        "applicants.csv": "Gender,LoanAmount,Credit_History\nMale,110,1\n",
    })  # fmt: skip
    found = reader_of("make_prediction")
    assert found is not None
    unwanted = Reader(found.module, found.qualname, found.reads, wanted=False)
    files = data_files(root)
    assert [e.path for e in data_entries(files, [unwanted], POLICY).entries] == ["applicants.csv"]
    both = [e.path for e in data_entries(files, [found], POLICY).entries]
    assert both == ["applicants.csv", "loans.csv"]


def test_a_table_s_delimiter_and_line_ends_are_its_own_and_a_table_without_header_is_quiet(
    tmp_path: Path,
) -> None:
    project(tmp_path, {
        "semicolons.csv": "key;Gender;Income\n1;Male;5\n",
        "mac.csv": "Gender,Income\rMale,5\rFemale,6\r",
        "numbers.csv": "730.5;-0.98;16.4\n745.7;-1.02;16.3\n",
        "repeated.csv": "x,x,y\n1,2,3\n",
    })  # fmt: skip
    found = data_files(Project(tmp_path))
    assert found.warnings == []
    assert {f.path: (set(f.columns), f.delimiter) for f in found.files} == {
        "semicolons.csv": ({"key", "Gender", "Income"}, ";"),
        "mac.csv": ({"Gender", "Income"}, ","),
    }


def test_files_that_are_not_tables_are_named_and_left_out(tmp_path: Path) -> None:
    project(tmp_path, {
        "ragged.csv": "Gender,Income\nMale,1\nFemale,2,3\n",
        "broken.json": '[{"Gender": "Male",',
        "broken.jsonl": '{"Gender": "Male"}\nnot json\n',
        "good.csv": "Gender,Income\nMale,1\n",
    }, binary={
        "junk.csv": b"\x00\x01\x02binary\xff",
        "latin.csv": "Gender,Name\nMale,J\xe9r\xf4me\n".encode("latin-1"),
    })  # fmt: skip
    found = data_files(Project(tmp_path))
    files, warnings = found.files, found.warnings
    assert [f.path for f in files] == ["good.csv"]
    assert sorted(warnings) == [
        "evidence: data file broken.json is left out: it is not valid JSON",
        "evidence: data file broken.jsonl is left out: line 2 is not valid JSON",
        "evidence: data file junk.csv is left out: it is not text",
        "evidence: data file latin.csv is left out: it is not UTF-8 text",
        "evidence: data file ragged.csv is left out: row 2 has 3 fields, its header 2",
    ]
