"""`codebias scan` with the repository's own data files as recorded calls, end to end
(analysis/evidence/datafiles.py): no test and no demo calls the functions, but the
repository ships the applicants they read as a CSV; its rows are passed to them in the
recording sandbox, and the finding names the file and row it came from. A file that is not
a table is left out and named; everything else is recorded."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from bot.cli import main

ROWS = "data/applicants.csv row 0"
FRAME = "data/applicants.csv rows 0-3"

REPOSITORY = {
    "pkg/__init__.py": "",
    # The penalty for each value lives in data: no constant of the code names it.
    "pkg/weights.py": """\
        import json
        from pathlib import Path

        PENALTY = json.loads((Path(__file__).parent / "penalty.json").read_text())
    """,
    "pkg/penalty.json": '{"Female": 15.0}\n',
    "pkg/predict.py": """\
        from pkg.weights import PENALTY


        def decide(*, input_data, threshold=40.0):
            \"\"\"Approve one applicant: a dict with the CSV's columns.\"\"\"
            score = input_data["Income"] / 1000 - PENALTY.get(input_data["Gender"], 0.0)
            return score >= threshold
    """,
    # Reads no protected name: the points per value of the columns it scores live in data.
    "pkg/scorecard.py": """\
        import json
        from pathlib import Path

        POINTS = json.loads((Path(__file__).parent / "points.json").read_text())


        def approve(*, record):
            points = record["Income"] / 1000 - record["Debt"] / 500
            for column, table in POINTS.items():
                points += table.get(record[column], 0.0)
            return points >= 40
    """,
    "pkg/points.json": '{"Gender": {"Female": -15.0}}\n',
    "data/applicants.csv": (
        "Gender,Income,Debt,Married,Notes\n"
        "Male,52000,0,Yes,\nFemale,61000,0,No,renting\nMale,45000,0,No,\nFemale,50000,0,Yes,\n"
    ),
    # Not the applicants' columns: nothing reads them, nothing is driven with them.
    "data/cities.csv": "city,population\nLeeds,800000\n",
    # Not tables at all: left out and named.
    "data/ragged.csv": "Gender,Income\nMale,52000,extra\n",
}
FRAME_MODULE = """\
    import pandas as pd

    from pkg.weights import PENALTY


    def approve_all(applicants: pd.DataFrame) -> list:
        \"\"\"Approve each row of a table of applicants.\"\"\"
        score = applicants["Income"] / 1000 - applicants["Gender"].map(PENALTY).fillna(0)
        return (score >= 40).tolist()
"""


def repository(root: Path, frame: bool = False) -> Path:
    files = dict(REPOSITORY, **({"pkg/frames.py": FRAME_MODULE} if frame else {}))
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    (root / "data" / "junk.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    (root / ".git").mkdir()
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return repository(tmp_path_factory.mktemp("datafiles") / "repo")


def scan(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, str]:
    code = main(["scan", str(repo / "pkg"), *args])
    return code, capsys.readouterr().out


def finding_of(report: dict[str, object], qualname: str) -> dict[str, object]:
    functions = report["functions"]
    assert isinstance(functions, list)
    (fn,) = [f for f in functions if f["qualname"] == qualname]
    assert fn["status"] == "biased", fn
    (finding,) = fn["findings"]
    assert isinstance(finding, dict)
    return finding


def test_a_dict_row_of_the_repository_s_csv_proves_the_bias_and_names_the_file(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    code, out = scan(capsys, repo, "--format", "json")
    report = json.loads(out)
    assert code == 1
    finding = finding_of(report, "decide")
    assert finding["attribute"] == "gender"
    example = finding["example"]
    assert isinstance(example, dict)
    assert example["source"] == ROWS
    # The recorded row, numbers read as numbers and the empty cell as None.
    assert example["inputs"]["input_data"]["Income"] == 52000
    assert example["inputs"]["input_data"]["Notes"] is None
    (recording,) = report["evidence"]
    labels = [e["label"] for e in recording["entries"]]
    assert labels == ["data/applicants.csv"]  # cities.csv: no column of it is read
    _, text = scan(capsys, repo)
    assert f"from    {ROWS}" in text


def test_a_function_reading_no_protected_name_is_driven_with_a_file_of_people(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    _, out = scan(capsys, repo, "--format", "json")
    finding = finding_of(json.loads(out), "approve")
    assert finding["attribute"] == "gender"
    assert finding["example"]["source"] == ROWS  # type: ignore[index]


def test_files_that_are_not_tables_are_left_out_and_named(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    _, out = scan(capsys, repo, "--format", "json")
    report = json.loads(out)
    warnings = "\n".join(report["warnings"])
    assert "data file data/ragged.csv is left out: row 1 has 3 fields" in warnings
    assert "data file data/junk.csv is left out: it is not text" in warnings
    assert finding_of(report, "decide")["example"]["source"] == ROWS  # type: ignore[index]


def test_the_policy_s_run_commands_keep_the_data_files_and_data_false_drops_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = repository(tmp_path / "repo")
    policy = root / ".codebias.yml"
    policy.write_text('evidence: {run: ["python -m pkg.weights"]}\n')
    report = json.loads(scan(capsys, root, "--format", "json")[1])
    (recording,) = report["evidence"]
    assert [e["label"] for e in recording["entries"]] == [
        "python -m pkg.weights", "data/applicants.csv",
    ]  # fmt: skip
    assert finding_of(report, "decide")["example"]["source"] == ROWS  # type: ignore[index]
    policy.write_text("evidence: {data: false}\n")
    report = json.loads(scan(capsys, root, "--format", "json")[1])
    assert report.get("evidence", []) == []  # no test, no demo, no data: nothing recorded
    findings = [f for fn in report["functions"] for f in fn.get("findings", [])]
    assert ROWS not in [f["example"].get("source") for f in findings]


def test_a_dataframe_of_the_csv_s_rows_proves_the_bias_of_a_table_function(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("pandas")
    root = repository(tmp_path / "repo", frame=True)
    _, out = scan(capsys, root, "--format", "json")
    finding = finding_of(json.loads(out), "approve_all")
    assert finding["attribute"] == "gender"
    example = finding["example"]
    assert isinstance(example, dict)
    assert example["source"] == FRAME
    assert example["inputs"]["applicants"]["DataFrame"] == "4 rows"
    _, text = scan(capsys, root)
    assert f"from    {FRAME}" in text
