"""Markdown rendering: whole reports, counterexample tables, review comments."""

from __future__ import annotations

import pytest

from analysis.report import Accepted, Example, Finding, FunctionReport, ScanReport
from bot.render.markdown import code, example_table, render_report


def finding() -> Finding:
    return Finding(
        "age",
        "applicant['age']",
        Example({"applicant": {"age": 29, "experience": 3}}, [29, 30], ["False", "True"]),
        17,
    )


def test_example_table_shows_both_cases_and_outputs() -> None:
    table = example_table(finding()).splitlines()
    assert table[0] == "| input | case A | case B |"
    assert "| **`applicant['age']`** | **`29`** | **`30`** |" in table
    assert "| `applicant['experience']` | `3` | `3` |" in table
    assert table[-1] == "| **output** | `False` | `True` |"


def rows(table: str) -> list[list[str]]:
    """The cells of each body row (header and rule left out), bold marks removed."""
    return [
        [cell.strip().replace("**", "") for cell in line.strip("|").split(" | ")]
        for line in table.splitlines()[2:]
    ]


@pytest.mark.parametrize(
    ("parameter", "inputs", "values", "varied"),
    [
        # An attribute path beside the record the inputs hold: one row, the values tried.
        (
            "candidate.age",
            {"candidate": {"name": "", "age": 50, "education": "High School"}},
            [50, 51],
            [["`candidate.age`", "`50`", "`51`"]],
        ),
        (
            "applicants[0]['gender']",
            {"applicants": [{"gender": "female", "name": "x"}, {"gender": "male", "name": "X"}]},
            ["female", "male"],
            [["`applicants[0]['gender']`", "`'female'`", "`'male'`"]],
        ),
        (
            "people['id-1']['age']",
            {"people": {"id-1": {"age": 60}, "id-2": {"age": 50}}},
            [60, 61],
            [["`people['id-1']['age']`", "`60`", "`61`"]],
        ),
        # Peers alike: every item takes the value tried.
        (
            "batch[*]['sex']",
            {"batch": [{"sex": "male"}, {"sex": "male"}]},
            ["male", "female"],
            [
                ["`batch[0]['sex']`", "`'male'`", "`'female'`"],
                ["`batch[1]['sex']`", "`'male'`", "`'female'`"],
            ],
        ),
        (
            "df['sex'][*]",
            {"df": {"sex": ["male", "male"], "age": [40, 50]}},
            ["male", "female"],
            [["`df['sex']`", "`['male', 'male']`", "`['female', 'female']`"]],
        ),
    ],
)
def test_example_table_has_one_row_per_varied_input_with_the_values_used(
    parameter: str, inputs: dict[str, object], values: list[object], varied: list[list[str]]
) -> None:
    table = example_table(Finding("x", parameter, Example(inputs, values, ["1", "2"]), 3))
    body = rows(table)[:-1]  # the outputs row last
    assert [row for row in body if row[1] != row[2]] == varied
    names = [row[0] for row in body]
    assert len(names) == len(set(names))
    assert not any("``" in cell for row in rows(table) for cell in row)


def test_example_table_quotes_text_and_shows_the_empty_string() -> None:
    example = Example({"sex": "male", "note": ""}, ["male", "female"], ["True", "False"])
    assert rows(example_table(Finding("gender", "sex", example, 2))) == [
        ["`sex`", "`'male'`", "`'female'`"],
        ["`note`", "`''`", "`''`"],
        ["output", "`True`", "`False`"],
    ]


def test_example_table_for_a_static_finding_says_it_was_not_run() -> None:
    assert "judged from the code" in example_table(Finding("age", "age", None, 3, "static"))


@pytest.mark.parametrize(
    "value,cell",
    [
        ("a|b", "`a\\|b`"),
        ("x`y", "`` x`y ``"),
        ("line\nbreak", "`line break`"),
        ("z" * 100, "`" + "z" * 59 + "…`"),
    ],
)
def test_cells_cannot_break_the_table(value: str, cell: str) -> None:
    assert code(value) == cell


def test_a_static_finding_is_not_called_a_changed_result() -> None:
    report = FunctionReport(
        "a.py",
        "f",
        1,
        3,
        "unverified",
        "static",
        attributes_tested=["age"],
        findings=[Finding("age", "age", None, 2, "static")],
        reason="cannot run: No module named 'vendor'",
    )
    text = render_report(ScanReport([report]))
    assert "**0** of **1** functions biased" in text
    assert "**1** function(s) could not run and have static findings" in text
    assert "reaches a decision (line 2); the function could not run" in text
    assert "changing only" not in text


def test_render_report_lists_functions_findings_and_accepted() -> None:
    biased = FunctionReport(
        "pkg/hiring.py", "assess", 12, 30, "biased", attributes_tested=["age"], findings=[finding()]
    )
    clean = FunctionReport("pkg/hiring.py", "rank", 40, 44, "clean", attributes_tested=["age"])
    accepted = FunctionReport(
        "pkg/pricing.py",
        "senior_discount",
        1,
        5,
        "clean",
        attributes_tested=["age"],
        accepted=[Accepted(finding(), "statutory", "policy")],
    )
    broken = FunctionReport(
        "pkg/x.py", "<module>", 1, 1, "error", "static", reason="no parsable Python"
    )
    text = render_report(
        ScanReport([biased, clean, accepted, broken], 1.5, [("pkg/x.py", "no parsable Python")])
    )
    assert text.startswith("# codebias report")
    assert "**1** of **4** functions biased" in text
    assert "| age | 3 | 1 | 0.33 |" in text
    assert "## `pkg/hiring.py::assess` (line 12)" in text and "| **output** |" in text
    assert "`pkg/pricing.py::senior_discount` age (accepted in the policy): `statutory`" in text
    assert "| ☑️ | `pkg/pricing.py:1` `senior_discount` | accepted |" in text
    assert "`pkg/x.py`: `no parsable Python`" in text
