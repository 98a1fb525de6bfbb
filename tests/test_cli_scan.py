"""`codebias scan` end to end: formats, schemas, exit codes, bad input that loses nothing."""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
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
    "senior_rate": ("accepted", []),  # by `# codebias: ignore[age]`
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


def test_an_accepted_function_reads_accepted_in_every_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(ROOT / "examples/lending.py")
    reports = {}
    for fmt in ("json", "text", "markdown", "sarif"):
        main(["scan", path, "--no-config", "--format", fmt])
        reports[fmt] = capsys.readouterr().out
    (senior,) = [
        f for f in json.loads(reports["json"])["functions"] if f["qualname"] == "senior_rate"
    ]
    assert senior["status"] == "accepted"
    assert senior["accepted"][0]["reason"] == "statutory senior rate"
    jsonschema.validate(json.loads(reports["json"]), REPORT_SCHEMA)
    row = next(line for line in reports["text"].splitlines() if "senior_rate" in line)
    assert "accepted" in row
    assert "| ☑️ |" in next(
        line for line in reports["markdown"].splitlines() if "senior_rate" in line
    )
    results = json.loads(reports["sarif"])["runs"][0]["results"]
    suppressed = [r for r in results if r.get("suppressions")]
    assert suppressed and all("senior_rate" in json.dumps(r["locations"]) for r in suppressed)


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


def write_loans(folder: Path, comment: str) -> Path:
    """A function biased for age, with `comment` on its `def` line."""
    path = folder / "loans.py"
    path.write_text(f"def approve(age, income):  {comment}\n    return age < 60 and income > 100\n")
    return path


def test_accepting_lines_that_cannot_match_are_warned_on_stderr_and_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_loans(tmp_path, "# codebias: ignore[agee] statutory")
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


def repository(tmp_path: Path) -> Path:
    """A checkout (a folder holding .git) with the insurance example in it."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    shutil.copy(ROOT / "examples/insurance.py", repo / "insurance.py")
    return repo


def test_links_to_nothing_or_out_of_the_folder_are_named_and_the_rest_is_scanned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = repository(tmp_path)
    (tmp_path / "elsewhere.py").write_text("def retire(age):\n    return age > 60\n")
    (repo / "dangling.py").symlink_to(tmp_path / "gone" / "missing.py")
    (repo / "outside.py").symlink_to(tmp_path / "elsewhere.py")
    (repo / "loop.py").symlink_to(repo / "loop.py")
    code = main(["scan", str(repo), "--no-config", "--format", "json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert code == 1
    by_name = {(Path(f["path"]).name, f["qualname"]): f for f in report["functions"]}
    assert by_name[("insurance.py", "annual_premium")]["status"] == "biased"
    assert ("outside.py", "retire") not in by_name  # nothing outside the folder is read
    for name in ("dangling.py", "outside.py", "loop.py"):
        problem = by_name[(name, "<module>")]
        assert problem["status"] == "error" and problem["reason"].startswith("cannot read: ")
        assert f"{repo / name}: cannot read: " in captured.err
    assert "outside the scanned folder" in by_name[("outside.py", "<module>")]["reason"]
    assert "Traceback" not in captured.err


def test_a_diff_names_files_from_the_repository_root_whatever_the_working_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    (repo / "src" / "sub").mkdir(parents=True)
    (repo / "insurance.py").rename(repo / "src" / "insurance.py")
    # The same file name elsewhere in the repository, untouched by the diff.
    shutil.copy(repo / "src" / "insurance.py", repo / "src" / "sub" / "insurance.py")
    lines = (repo / "src" / "insurance.py").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def family_discount")) + 1
    diff = repo / "change.diff"
    diff.write_text(
        f"--- a/src/insurance.py\n+++ b/src/insurance.py\n@@ -{start + 2},1 +{start + 2},1 @@\n"
        f"-    old line\n+{lines[start + 1]}\n"
    )
    monkeypatch.chdir(repo / "src" / "sub")
    diff_args = ("--diff", "../../change.diff")
    code, report = scan_json(capsys, "../insurance.py", "insurance.py", *diff_args)
    assert [(f["path"], f["qualname"]) for f in report["functions"]] == [
        ("../insurance.py", "family_discount")
    ]
    assert code == 1


ALLOW_ELSEWHERE = """\
allow:
  - {function: pricing.senior_discount, attribute: age, reason: statute}
  - {function: "legacy/old.py::anything", attribute: age, reason: frozen}
  - {function: "insurance.no_such_function", attribute: age, reason: a typo}
"""


def test_a_partial_scan_warns_only_about_allow_entries_of_the_files_it_scanned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    (repo / "pricing.py").write_text("def senior_discount(age):\n    return age > 64\n")
    (repo / ".codebias.yml").write_text(ALLOW_ELSEWHERE)
    monkeypatch.chdir(repo)
    # The pre-commit hook names the files a commit changes: here only insurance.py.
    code, report = scan_json(capsys, "insurance.py")
    assert code == 1
    assert report.get("warnings", []) == [
        "allow entry 3 (function 'insurance.no_such_function'): no scanned function matches "
        "it; write `module.function`, `Class.method`, `path/to/file.py::function`, or a glob "
        "such as `pricing.*`"
    ]
    # The whole repository: the entry for a file that does not exist is named too.
    code, report = scan_json(capsys, ".")
    assert [w.split(":")[0] for w in report["warnings"]] == [
        "allow entry 2 (function 'legacy/old.py",
        "allow entry 3 (function 'insurance.no_such_function')",
    ]


def test_an_ignore_comment_for_an_attribute_the_function_does_not_take_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loans = write_loans(tmp_path, "# codebias: ignore[gender] reviewed")
    code, report = scan_json(capsys, str(loans), "--no-config")
    assert code == 1  # the age finding stands: the comment accepts gender only
    assert report["functions"][0]["status"] == "biased"
    (warning,) = report["warnings"]
    assert warning.endswith(
        "loans.py:1: ignore[gender]: approve has no gender input, so it accepts nothing"
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_output_to_a_device_writes_into_it_and_leaves_it_a_device(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A null device of the test's own (never /dev/null itself: the machine shares it).
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    main(["scan", str(ROOT / "examples/lending.py"), "--output", str(null)])
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_output_to_a_fifo_is_written_through_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    main(["scan", str(ROOT / "examples/lending.py"), "--format", "json", "--output", str(fifo)])
    reader.join(timeout=60)
    assert received, "nothing was written through the FIFO"
    assert json.loads(received[0])["functions"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_output_never_follows_a_planted_temporary_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "report.json"
    (tmp_path / "report.json.tmp").symlink_to(victim)
    main(["scan", str(ROOT / "examples/lending.py"), "--format", "json", "--output", str(out)])
    assert victim.read_text() == "precious\n"
    assert out.is_file() and not out.is_symlink()
    assert json.loads(out.read_text())["functions"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "report.json", "report.json.tmp", "victim.txt"
    ]  # fmt: skip


def test_output_into_a_missing_folder_is_a_usage_error_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "no" / "such" / "report.json"
    assert main(["scan", str(ROOT / "examples/lending.py"), "--output", str(out)]) == 2
    captured = capsys.readouterr()
    assert f"--output {out}: " in captured.err and "Traceback" not in captured.err
