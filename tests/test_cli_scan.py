"""`codebias scan` end to end: formats, schemas, exit codes, bad input that loses nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[1]
REPORT_SCHEMA = json.loads((ROOT / "schemas/report.schema.json").read_text())
SARIF_SCHEMA = json.loads((ROOT / "schemas/sarif-2.1.0.json").read_text())

EXPECTED_EXAMPLES = {
    "shortlist": ("biased", ["age"]),
    "interview_score": ("biased", ["gender"]),
    "meets_requirements": ("clean", []),
    "salary_band": ("biased", ["education"]),
    "Screener.passes": ("clean", []),
    "annual_premium": ("biased", ["age", "region"]),
    "family_discount": ("biased", ["gender"]),
    "claim_payout": ("clean", []),
    "loyalty_credit": ("biased", ["age"]),
    "credit_limit": ("biased", ["occupation"]),
    "senior_rate": ("clean", []),  # accepted by `# codebias: ignore[age]`
    "approve": ("clean", []),
    "risk_band": ("skipped", []),
}


def scan_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["scan", *args, "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.fixture(scope="module")
def examples_report() -> dict:
    from analysis import Engine
    from bot.render.json_report import render_json
    from config.policy import default_policy

    report = Engine(default_policy(), jobs=2).scan_paths([str(ROOT / "examples")])
    return json.loads(render_json(report))


def test_examples_get_the_expected_verdicts(examples_report: dict) -> None:
    got = {
        f["qualname"]: (f["status"], sorted(x["attribute"] for x in f["findings"]))
        for f in examples_report["functions"]
        if f["qualname"] in EXPECTED_EXAMPLES
    }
    assert got == EXPECTED_EXAMPLES


def test_report_validates_against_the_json_schema(examples_report: dict) -> None:
    jsonschema.validate(examples_report, REPORT_SCHEMA)


def test_every_dynamic_finding_carries_a_real_counterexample(examples_report: dict) -> None:
    for fn in examples_report["functions"]:
        for finding in fn["findings"]:
            example = finding["example"]
            assert example["values"][0] != example["values"][1]
            assert example["outputs"][0] != example["outputs"][1]


def test_an_accepted_finding_is_listed_with_its_reason(examples_report: dict) -> None:
    senior = next(f for f in examples_report["functions"] if f["qualname"] == "senior_rate")
    assert senior["accepted"][0]["attribute"] == "age"
    assert senior["accepted"][0]["reason"] == "statutory senior rate"


def test_sarif_validates_and_has_one_result_per_finding(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["scan", str(ROOT / "examples/insurance.py"), "--format", "sarif"])
    sarif = json.loads(capsys.readouterr().out)
    jsonschema.validate(sarif, SARIF_SCHEMA)
    rules = sorted(r["ruleId"] for r in sarif["runs"][0]["results"])
    assert rules == ["codebias/age", "codebias/age", "codebias/gender", "codebias/region"]
    assert code == 1


def test_exit_code_is_0_when_nothing_is_biased(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "fair.py").write_text(
        "def pay(hours: int, gender: str) -> int:\n    return hours * 20\n"
    )
    code, report = scan_json(capsys, str(tmp_path))
    assert code == 0
    assert report["functions"][0]["status"] == "clean"


def test_fail_on_none_passes_even_with_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "policy.yml"
    config.write_text("fail_on: none\n")
    code = main(["scan", str(ROOT / "examples/insurance.py"), "--config", str(config)])
    capsys.readouterr()
    assert code == 0


@pytest.mark.parametrize(
    "args",
    [
        ["scan", "no/such/dir"],
        ["scan", "examples", "--config", "no/such/policy.yml"],
        ["scan", "examples", "--budget", "3"],
    ],
)
def test_usage_errors_exit_2_with_a_message_and_no_output(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "codebias: error:" in captured.err


def test_invalid_policy_exits_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "bad.yml"
    config.write_text("budget: {executions_per_function: -5}\n")
    assert main(["scan", str(ROOT / "examples"), "--config", str(config)]) == 2
    assert "budget.executions_per_function" in capsys.readouterr().err


def test_a_broken_tree_still_reports_every_other_function(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(ROOT / "examples/insurance.py", tmp_path / "insurance.py")
    (tmp_path / "broken.py").write_text(
        "def f(age):\n    if age > 65\n        return 1\n    return 0\n"
    )
    (tmp_path / "binary.py").write_bytes(b"\xff\xfe\x00not utf8")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing-target.py")
    code, report = scan_json(capsys, str(tmp_path))
    by_name = {(Path(f["path"]).name, f["qualname"]): f for f in report["functions"]}
    jsonschema.validate(report, REPORT_SCHEMA)
    assert code == 1
    assert by_name[("insurance.py", "annual_premium")]["status"] == "biased"
    assert by_name[("insurance.py", "claim_payout")]["status"] == "clean"
    broken = by_name[("broken.py", "f")]
    assert broken["status"] == "unverified" and broken["method"] == "static"
    assert [x["attribute"] for x in broken["findings"]] == ["age"]
    assert by_name[("binary.py", "<module>")]["status"] == "error"
    assert "cannot read" in by_name[("dangling.py", "<module>")]["reason"]


def test_diff_limits_the_scan_to_touched_functions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "insurance.py"
    shutil.copy(ROOT / "examples/insurance.py", target)
    lines = target.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def family_discount")) + 1
    diff = tmp_path / "change.diff"
    diff.write_text(
        f"--- a/insurance.py\n+++ b/insurance.py\n@@ -{start + 2},1 +{start + 2},1 @@\n"
        f"-    old line\n+{lines[start + 1]}\n"
    )
    code, report = scan_json(capsys, str(tmp_path), "--diff", str(diff))
    assert [f["qualname"] for f in report["functions"]] == ["family_discount"]
    assert code == 1


def test_output_file_gets_the_report_and_stdout_stays_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.md"
    main(["scan", str(ROOT / "examples/lending.py"), "--format", "markdown", "--output", str(out)])
    assert capsys.readouterr().out == ""
    assert "credit_limit" in out.read_text()


def test_text_output_spells_out_the_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    main(["scan", str(ROOT / "examples/hiring.py")])
    out = capsys.readouterr().out
    assert "shortlist" in out and "p.age" not in out
    assert "candidate.age = " in out


@pytest.mark.parametrize(
    "text", ["this is not a diff\n", "Subject: [PATCH] notes only\n\nno hunks here\n"]
)
def test_diff_that_is_not_a_unified_diff_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    diff = tmp_path / "change.diff"
    diff.write_text(text)
    assert main(["scan", str(ROOT / "examples"), "--diff", str(diff)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"codebias: error: --diff {diff}: not a unified diff" in captured.err


def test_an_empty_diff_tests_nothing_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    diff = tmp_path / "none.diff"
    diff.write_text("")
    code, report = scan_json(capsys, str(ROOT / "examples"), "--diff", str(diff))
    assert code == 0 and report["functions"] == []


def test_text_output_off_a_terminal_is_never_wrapped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "shortlist_applicants_by_" + "very_long_name_" * 10
    source = (ROOT / "examples/hiring.py").read_text().replace("def shortlist(", f"def {name}(")
    (tmp_path / "hiring.py").write_text(source)
    assert main(["scan", str(tmp_path / "hiring.py")]) == 1
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if name in line)
    assert "biased" in row and "age" in row  # the whole row on one line
    assert max(len(line) for line in out.splitlines()) > 200


def test_accepting_lines_that_cannot_match_are_warned_on_stderr_and_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "loans.py").write_text(
        "def approve(age, income):  # codebias: ignore[agee] statutory\n"
        "    return age < 60 and income > 100\n"
    )
    (tmp_path / ".codebias.yml").write_text(
        "allow:\n  - {function: loans.aprove, attribute: age, reason: typo}\n"
    )
    code = main(["scan", str(tmp_path), "--format", "json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert code == 1
    assert len(report["warnings"]) == 2
    assert "ignore[agee]: 'agee' is no protected category" in report["warnings"][0]
    assert "allow entry 1 (function 'loans.aprove'): no scanned function" in report["warnings"][1]
    for warning in report["warnings"]:
        assert f"codebias: warning: {warning}" in captured.err
