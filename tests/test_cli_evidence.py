"""`codebias scan` with inputs from the repository's own runs, end to end (analysis/evidence/):
a function takes a DataFrame its own test builds from a CSV, whose columns only the data
names; the test's call is recorded, one person's sex flipped in it, and the finding says
which test made the call, in every format."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[1]
REPORT_SCHEMA = json.loads((ROOT / "schemas/report.schema.json").read_text())
SARIF_SCHEMA = json.loads((ROOT / "schemas/sarif-2.1.0.json").read_text())
SOURCE = "tests/test_scoring.py::test_scores_people"

REPOSITORY = {
    # The weights, column by column, live in data: no name of the code says what the
    # frame holds, so no input made up from the code can reach the column that decides.
    "scoring/__init__.py": "",
    "scoring/weights.json": '{"income": 0.001, "sex_female": -15.0, "years_employed": 2.0}\n',
    "scoring/model.py": """\
        import json
        from pathlib import Path

        WEIGHTS = json.loads((Path(__file__).parent / "weights.json").read_text())


        def credit_scores(people):
            \"\"\"One score per row of `people`, a table of applicants.\"\"\"
            return [
                round(sum(row[column] * weight for column, weight in WEIGHTS.items()), 1)
                for _, row in people.iterrows()
            ]
    """,
    "tests/data/applicants.csv": (
        "name,income,sex_female,years_employed\nAnn,52000,1,4\nBob,48000,0,9\nCyd,61000,1,2\n"
    ),
    "tests/test_scoring.py": """\
        from pathlib import Path

        import pandas as pd

        from scoring.model import credit_scores


        def test_scores_people():
            people = pd.read_csv(Path(__file__).parent / "data" / "applicants.csv")
            assert len(credit_scores(people)) == 3
    """,
}


def repository(root: Path, files: dict[str, str] = REPOSITORY) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    (root / ".git").mkdir()
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("pandas")
    return repository(tmp_path_factory.mktemp("evidence") / "repo")


def scan(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, str]:
    code = main(["scan", str(repo / "scoring"), *args])
    return code, capsys.readouterr().out


def scanned(capsys: pytest.CaptureFixture[str], root: Path, files: dict[str, str], package: str
            ) -> dict[str, Any]:  # fmt: skip
    """The JSON report of `codebias scan` on `package` of a repository of `files`."""
    repository(root, files)
    main(["scan", str(root / package), "--format", "json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def only_finding(
    report: dict[str, Any], qualname: str, attribute: str, source: str | None = None
) -> dict[str, Any]:
    """The one finding on `qualname`, checked: the function biased for `attribute`, the
    counterexample from the recorded call `source` made (None: not checked)."""
    (fn,) = [f for f in report["functions"] if f["qualname"] == qualname]
    assert fn["status"] == "biased", fn
    (finding,) = fn["findings"]
    assert finding["attribute"] == attribute
    if source is not None:
        assert finding["example"].get("source") == source, finding["example"]
    finding_: dict[str, Any] = finding
    return finding_


def test_bias_inside_a_frame_the_tests_build_is_proved_from_the_recorded_call(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    code, out = scan(capsys, repo, "--format", "json")
    report = json.loads(out)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert code == 1
    (fn,) = [f for f in report["functions"] if f["qualname"] == "credit_scores"]
    assert fn["status"] == "biased"
    (finding,) = fn["findings"]
    assert finding["attribute"] == "gender"
    assert finding["parameter"] == "people['sex_female'][0]"  # one applicant, against the others
    example = finding["example"]
    assert example["source"] == SOURCE
    assert example["values"] == [0, 1]
    # The recorded table, shortened, its first row showing the first value tried.
    assert example["inputs"]["people"]["sex_female"] == [0, 0, 1]
    assert example["inputs"]["people"]["DataFrame"] == "3 rows"
    assert example["outputs"][0] != example["outputs"][1]
    (recording,) = report["evidence"]
    assert recording["calls"] == 1 and recording["tests"] == 1


def test_without_the_recording_the_same_bias_is_not_proved(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    config = tmp_path / "off.yml"
    config.write_text("evidence: {enabled: false}\n")
    code, out = scan(capsys, repo, "--format", "json", "--config", str(config))
    (fn,) = [f for f in json.loads(out)["functions"] if f["qualname"] == "credit_scores"]
    assert fn["status"] != "biased"


def test_the_recorded_call_s_source_is_shown_in_sarif_markdown_and_text(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    _, sarif = scan(capsys, repo, "--format", "sarif")
    data = json.loads(sarif)
    jsonschema.validate(data, SARIF_SCHEMA)
    (result,) = data["runs"][0]["results"]
    assert f"from the call made by {SOURCE}" in result["message"]["text"]
    _, markdown = scan(capsys, repo, "--format", "markdown")
    assert f"From the call made by `{SOURCE}`" in markdown
    _, text = scan(capsys, repo)
    assert f"from    {SOURCE}" in text


def test_a_repository_whose_tests_cannot_import_here_still_scans(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = repository(tmp_path / "repo")
    # A module of the project that is not there (one not installed here would be stubbed).
    (root / "tests" / "test_vendor.py").write_text(
        "from scoring.vendor_adapter import sdk\nfrom scoring.model import credit_scores\n"
    )
    code, out = scan(capsys, root, "--format", "json")
    report = json.loads(out)
    (recording,) = report["evidence"]
    assert recording["failed_imports"] == 1
    assert any("could not be imported" in w for w in report["warnings"])
    (fn,) = [f for f in report["functions"] if f["qualname"] == "credit_scores"]
    assert fn["status"] == "biased"  # the other test's call still proves it


def test_a_recorded_table_returned_whole_is_no_proof_when_another_column_holds_the_age_tried(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Ann's age is tried as recorded, 45, and as others; her `visits` cell holds 45 too, so
    # the table returned shows a 45 whichever age is tried: masking the tried value cannot
    # tell the echo of one column from the other's cell, and that difference proves nothing.
    pytest.importorskip("pandas")
    root = tmp_path / "repo"
    files = {
        "clinic/__init__.py": "",
        "clinic/checks.py": (
            "def with_columns(people, required):\n"
            "    missing = [c for c in required if c not in people.columns]\n"
            "    if missing:\n"
            "        raise ValueError(f'missing columns: {missing}')\n"
            "    return people\n"
        ),
        "tests/data/patients.csv": "name,age,visits\nAnn,45,45\nBob,60,2\n",
        "tests/test_checks.py": (
            "from pathlib import Path\nimport pandas as pd\n"
            "from clinic.checks import with_columns\n\n"
            "def test_present():\n"
            "    people = pd.read_csv(Path(__file__).parent / 'data' / 'patients.csv')\n"
            "    assert len(with_columns(people, ['age'])) == 2\n"
        ),
    }
    report = scanned(capsys, root, files, "clinic")
    (recording,) = report["evidence"]
    assert recording["calls"] == 1
    (fn,) = [f for f in report["functions"] if f["qualname"] == "with_columns"]
    assert fn["status"] != "biased", fn["findings"]


LIFE = {
    # A table the package only builds from its bundled file (made-up rows are refused), which
    # the tests build and hand to `premium`; `survival` takes the same table, and no test
    # calls it: every made-up call raises, the tests' table proves it.
    "life/__init__.py": "",
    "life/tables.py": """\
        import json
        from pathlib import Path


        class LifeTable:
            def __init__(self, rates):
                if len(rates) < 100:
                    raise ValueError("a life table gives a rate for each age up to 100")
                self.rates = rates

            @classmethod
            def bundled(cls):
                return cls(json.loads((Path(__file__).parent / "rates.json").read_text()))


        def premium(table, age, amount=1000.0):
            return round(amount * table.rates[age], 2)


        def survival(table, age, years):
            alive = 1.0
            for year in range(years):
                alive *= 1 - table.rates[age + year]
            return round(alive, 6)
    """,
    "life/rates.json": json.dumps([round(0.0005 * 1.09**a, 6) for a in range(121)]) + "\n",
    "tests/test_premium.py": """\
        from life.tables import LifeTable, premium


        def test_premium():
            assert premium(LifeTable.bundled(), 40) > 0
    """,
}


def test_a_function_no_test_calls_takes_the_object_the_tests_built_for_another(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = scanned(capsys, tmp_path / "repo", LIFE, "life")
    (fn,) = [f for f in report["functions"] if f["qualname"] == "survival"]
    assert fn["status"] == "biased", fn["reason"]
    (finding,) = fn["findings"]
    assert finding["attribute"] == "age"
    assert finding["example"]["inputs"]["table"].startswith("LifeTable(rates=[0.0005, ")


ACCOUNTS = {
    # The holder's fields are weighed by names only the data holds: `monthly_fee` names no
    # age, so a made-up Account holds no person for it. The tests set one up from a JSON
    # file and call `fee`; `monthly_fee`, which no test calls, takes the same instance.
    "bank/__init__.py": "",
    "bank/weights.json": '{"age": 0.5, "balance": 0.001}\n',
    "bank/accounts.py": """\
        import json
        from pathlib import Path

        WEIGHTS = json.loads((Path(__file__).parent / "weights.json").read_text())


        class Account:
            def __init__(self, holder):
                if holder.get("age", 0) < 18:
                    raise ValueError("an account holder is an adult")
                self.holder = holder

            def fee(self, amount):
                return round(amount * 0.01, 2)

            def monthly_fee(self):
                return round(sum(self.holder[k] * w for k, w in WEIGHTS.items()), 2)
    """,
    "tests/data/holder.json": '{"name": "Ann", "age": 70, "balance": 1200}\n',
    "tests/test_accounts.py": """\
        import json
        from pathlib import Path

        from bank.accounts import Account


        def test_fee():
            holder = json.loads((Path(__file__).parent / "data" / "holder.json").read_text())
            assert Account(holder).fee(100) == 1.0
    """,
}


def test_a_method_no_test_calls_takes_the_instance_the_tests_set_up_for_another(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = scanned(capsys, tmp_path / "repo", ACCOUNTS, "bank")
    statuses = {f["qualname"]: f["status"] for f in report["functions"]}
    assert statuses["Account.monthly_fee"] == "biased", report["functions"]
    (fn,) = [f for f in report["functions"] if f["qualname"] == "Account.monthly_fee"]
    assert [f["parameter"] for f in fn["findings"]] == ["self.holder['age']"]


PROFILE_REPOSITORY = {
    # The person is in a file the caller writes; the function is handed its path.
    "credit/__init__.py": "",
    "credit/limits.py": """\
        import json


        def credit_limit(profile_json):
            with open(profile_json, encoding="utf-8") as handle:
                profile = json.load(handle)
            limit = profile["income"] * 0.2
            if profile["applicant"]["age"] >= 65:
                limit = min(limit, 2000)
            return round(limit)
    """,
    "tests/test_limits.py": """\
        import json

        from credit.limits import credit_limit


        def test_limit(tmp_path):
            path = tmp_path / "ann.json"
            path.write_text(json.dumps({"income": 50000, "applicant": {"age": 40}}))
            assert credit_limit(str(path)) == 10000
    """,
}


def test_a_person_in_a_file_the_test_writes_is_varied_inside_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = scanned(capsys, tmp_path / "repo", PROFILE_REPOSITORY, "credit")
    finding = only_finding(report, "credit_limit", "age", "tests/test_limits.py::test_limit")
    # The file's content is shown as the input, the age tried written in.
    shown = finding["example"]["inputs"]["profile_json"]["content"]
    assert shown["income"] == 50000 and shown["applicant"]["age"] in finding["example"]["values"]


LETTERS_REPOSITORY = {
    # The employees are rows of a CSV file and the letters' texts templates in a folder,
    # both written by the test to a temporary folder it deletes; a letter goes out on a
    # birthday that is a multiple of five.
    "letters/__init__.py": "",
    "letters/generator.py": """\
        import csv
        import os
        from datetime import date


        def milestones(csv_path, template_dir, today):
            with open(os.path.join(template_dir, "cover", "en.txt"), encoding="utf-8") as f:
                cover = f.read()
            sent = []
            with open(csv_path, encoding="utf-8") as handle:
                for row in csv.DictReader(handle):
                    born = date.fromisoformat(row["DateOfBirth"])
                    age = today.year - born.year
                    birthday = (born.month, born.day) == (today.month, today.day)
                    if birthday and age % 5 == 0:
                        sent.append(cover.replace("$name", row["Name"]))
            return len(sent)
    """,
    "tests/test_generator.py": """\
        import os
        import shutil
        import tempfile
        from datetime import date

        from letters.generator import milestones


        def test_one_letter():
            folder = tempfile.mkdtemp()
            try:
                os.makedirs(os.path.join(folder, "templates", "cover"))
                with open(os.path.join(folder, "templates", "cover", "en.txt"), "w") as f:
                    f.write("Happy birthday, $name")
                with open(os.path.join(folder, "people.csv"), "w") as f:
                    f.write("Name,DateOfBirth\\nAnn,1986-05-28\\n")
                count = milestones(
                    os.path.join(folder, "people.csv"),
                    os.path.join(folder, "templates"),
                    date(2026, 5, 28),
                )
                assert count == 1
            finally:
                shutil.rmtree(folder)
    """,
}


def test_a_folder_and_a_file_the_test_deleted_are_written_again_the_birth_date_moved_by_years(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The folder of templates is kept as its files; the birth date, ISO text in a CSV cell,
    is moved by whole years, so the birthday the test chose stays a birthday."""
    report = scanned(capsys, tmp_path / "repo", LETTERS_REPOSITORY, "letters")
    finding = only_finding(report, "milestones", "age", "tests/test_generator.py::test_one_letter")
    born = finding["example"]["values"]
    assert all(str(value)[4:] == "-05-28" for value in born), born


COMMAND_REPOSITORY = {
    # A command-line command handed the path of a profile the project ships as an example:
    # no test calls it; the example file is its input, the person nested inside it.
    "quotes/__init__.py": "",
    "quotes/cli.py": """\
        import json

        import click


        def premium(profile, loading):
            base = 300 * loading
            if profile["driver"]["age"] < 25:
                base *= 2
            return base


        @click.command()
        @click.argument("profile_json")
        @click.option("--loading", default=1.0)
        def quote_cmd(profile_json, loading):
            with open(profile_json, encoding="utf-8") as handle:
                profile = json.load(handle)
            click.echo(f"premium: {premium(profile, loading)}")
    """,
    "examples/profile.json": '{"vehicle": {"make": "Fiat"}, "driver": {"age": 40}}\n',
}


def test_a_command_is_handed_the_path_of_an_example_file_and_the_person_inside_varied(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("click")
    report = scanned(capsys, tmp_path / "repo", COMMAND_REPOSITORY, "quotes")
    finding = only_finding(report, "quote_cmd", "age", "examples/profile.json as a path")
    assert finding["parameter"] == "profile_json['content']['driver']['age']"


LAW_REPOSITORY = {
    # The table the tests build holds its mortality law as a lambda: pickle cannot name it,
    # and no made-up table has a law to call.
    "life/__init__.py": "",
    "life/tables.py": """\
        class LifeTable:
            def __init__(self, law):
                self.law = law


        def single_premium(table, age):
            return round(10_000 * table.law(age), 2)
    """,
    "tests/test_tables.py": """\
        from life.tables import LifeTable, single_premium


        def test_premium():
            growth = 1.1
            table = LifeTable(lambda x: 0.0005 * growth ** x)
            assert single_premium(table, 40) > 0
    """,
}


def test_a_recorded_object_holding_a_lambda_is_replayed_and_proves_the_bias(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = scanned(capsys, tmp_path / "repo", LAW_REPOSITORY, "life")
    only_finding(report, "single_premium", "age", "tests/test_tables.py::test_premium")
    (recording,) = report["evidence"]
    assert "unpicklable" not in recording["dropped"]


def test_a_function_no_test_calls_takes_an_instance_of_its_parameter_s_class_passed_as_another(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `annuity(mt: LifeTable, age)` is called by nothing; the tests passed a LifeTable as
    # `table` to another function. A made-up table has no law to call.
    files = dict(LAW_REPOSITORY)
    files["life/tables.py"] = textwrap.dedent(files["life/tables.py"]) + (
        "\n\ndef annuity(mt: LifeTable, age):\n"
        "    return round(sum(1 - mt.law(age + t) for t in range(3)), 4)\n"
    )
    report = scanned(capsys, tmp_path / "repo", files, "life")
    only_finding(report, "annuity", "age")


README_REPOSITORY = {
    # No tests, no demo: the README shows the call, a table whose columns the caller names.
    "riskcalc/__init__.py": "from riskcalc.scores import risk_scores\n",
    "riskcalc/scores.py": """\
        def risk_scores(df, columns):
            ages, egfrs = df[columns["age"]], df[columns["egfr"]]
            return [
                round(0.02 * age - 0.01 * egfr + (0.3 if age >= 65 else 0.0), 3)
                for age, egfr in zip(ages, egfrs)
            ]
    """,
    "README.md": """\
        # riskcalc

        Usage:

        ```python
        patients = pd.DataFrame({"Age": [50, 58], "eGFR": [30, 40]})
        ```

        ```python
        risk_scores(patients, {"age": "Age", "egfr": "eGFR"})
        ```
    """,
}


def test_the_readme_s_example_is_recorded_and_the_person_inside_it_varied(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("pandas")
    report = scanned(capsys, tmp_path / "repo", README_REPOSITORY, "riskcalc")
    # Found in the second block, which uses what the first built and what the package
    # exports, imported by neither.
    only_finding(report, "risk_scores", "age", "README.md example (line 10)")
    (recording,) = report["evidence"]
    (entry,) = recording["entries"]
    assert (entry["status"], entry["tests"]) == ("ok: 2 example(s) ran, 0 raised", 2)


def test_a_project_whose_environment_has_no_pytest_runs_its_tests_on_codebias_s(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # An environment without pytest, as an sdist's runtime dependencies leave it. No made-up
    # customer gets past the member number's check: the proof needs the test's call.
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    repository(tmp_path / "repo", {
        "shop/__init__.py": "",
        "shop/pricing.py": "import re\n\n\n"
                           "def discount(customer):\n"
                           "    if not re.fullmatch(r'M[0-9]{6}Q', customer['member']):\n"
                           "        raise ValueError('not a member number')\n"
                           "    return 0.2 if customer['age'] >= 65 else 0.0\n",
        "tests/test_pricing.py": "from shop.pricing import discount\n\n\n"
                                 "def test_discount():\n"
                                 "    customer = {'age': 70, 'name': 'Ann', 'member': 'M123456Q'}\n"
                                 "    assert discount(customer) == 0.2\n",
    })  # fmt: skip
    main(["scan", str(tmp_path / "repo" / "shop"), "--format", "json",
          "--python", str(env / "bin" / "python")])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    only_finding(report, "discount", "age", "tests/test_pricing.py::test_discount")
    (recording,) = report["evidence"]
    (entry,) = recording["entries"]
    assert entry["status"].startswith("pytest exit code 0 (codebias's pytest")


def test_a_table_kept_whole_is_no_proof_when_the_value_tried_is_another_row_s(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The first row's age tried as 70 and 75, the ages of two other rows: the kept table
    # shows each value tried, and masking it hides those rows' too. No proof either way.
    pytest.importorskip("pandas")
    report = scanned(capsys, tmp_path / "repo", {
        "ckd/__init__.py": "",
        "ckd/model.py": "class RiskModel:\n"
                        "    def __init__(self, df):\n"
                        "        self.df = df\n\n"
                        "    def senior(self, age):\n"
                        "        return age >= 65\n",
        "tests/test_model.py": "import pandas as pd\n\nfrom ckd.model import RiskModel\n\n\n"
                               "def test_model():\n"
                               "    frame = pd.DataFrame({'Age': [65, 70, 60, 75], "
                               "'eGFR': [19, 50, 45, 22]})\n"
                               "    assert RiskModel(frame).df is frame\n",
    }, "ckd")  # fmt: skip
    (fn,) = [f for f in report["functions"] if f["qualname"] == "RiskModel.__init__"]
    assert fn["status"] == "clean", fn


ANNUITIES = {
    # Actuarial notation: `x` is the age, as the docstring says. The table is only built from
    # its bundled file (a made-up one is refused), so every made-up call raises; the test's
    # call holds the table and an `x` that no name marks as an age.
    **{name: text for name, text in LIFE.items() if not name.startswith("tests/")},
    "life/annuities.py": """\
        def annuity(table, x, n):
            \"\"\"The value of an annuity of 1 a year for `n` years.

            Args:
                table: the life table
                x: the age of the annuitant
                n: the term in years
            \"\"\"
            alive, value = 1.0, 0.0
            for year in range(n):
                value += alive * 0.97**year
                alive *= 1 - table.rates[x + year]
            return round(value * (0.9 if x >= 60 else 1.0), 4)
    """,
    "tests/test_annuity.py": """\
        from life.annuities import annuity
        from life.tables import LifeTable


        def test_annuity():
            assert annuity(LifeTable.bundled(), 40, 10) > 8
    """,
}


def test_a_recorded_value_is_protected_where_the_docstring_says_what_its_name_holds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = scanned(capsys, tmp_path / "repo", ANNUITIES, "life")
    source = "tests/test_annuity.py::test_annuity"
    finding = only_finding(report, "annuity", "age", source)
    assert finding["parameter"] == "x"
    assert finding["example"]["inputs"]["n"] == 10


def test_tests_that_import_the_package_through_its_source_folder_are_recorded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `from src.shop.models import ...`: the tests load the modules by another name than the
    # scan does (source root `src`); the same files, the same functions recorded, and the
    # instance they built (by the name `src.shop.models.Customer`) replayed.
    report = scanned(capsys, tmp_path / "repo", {
        "pyproject.toml": "[tool.setuptools.packages.find]\nwhere = [\"src\"]\n",
        "src/shop/__init__.py": "",
        "src/shop/models.py": """\
            class Customer:
                def __init__(self, record):
                    if not record.get("id"):
                        raise ValueError("a customer has an id")
                    self.record = record

                def discount(self):
                    return 0.2 if self.record["age"] >= 65 else 0.0
        """,
        "tests/test_models.py": """\
            from src.shop.models import Customer


            def test_discount():
                assert Customer({"id": 7, "age": 70}).discount() == 0.2
        """,
    }, "src/shop")  # fmt: skip
    only_finding(report, "Customer.discount", "age", "tests/test_models.py::test_discount")


def test_a_method_no_test_calls_takes_the_instance_most_filled_in(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The constructor calls `_load_rates` before the rates are kept: the first `self` the
    # tests recorded is half made. `loading`, which no test calls, takes the full one (a
    # made-up holder has no policy number of the form the constructor wants).
    report = scanned(capsys, tmp_path / "repo", {
        "cover/__init__.py": "",
        "cover/policy.py": """\
            import re


            class Policy:
                def __init__(self, holder):
                    if not re.fullmatch(r"P-[0-9]{6}", str(holder.get("number"))):
                        raise ValueError("not a policy number")
                    self.holder = holder
                    self.rates = self._load_rates()

                def _load_rates(self):
                    return {"base": 100.0, "senior": 1.4}

                def premium(self):
                    return self.rates["base"]

                def loading(self):
                    senior = self.holder["age"] >= 65
                    return self.rates["base"] * (self.rates["senior"] if senior else 1.0)
        """,
        "tests/test_policy.py": """\
            from cover.policy import Policy


            def test_premium():
                assert Policy({"number": "P-004512", "age": 40}).premium() == 100.0
        """,
    }, "cover")  # fmt: skip
    only_finding(report, "Policy.loading", "age")


def test_a_wrapper_no_test_calls_takes_what_the_recorded_instance_keeps(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `predict` only builds a `RiskModel` and asks it: the tests call the method, never the
    # wrapper. Which columns hold the person only `columns` says, so a made-up frame and
    # mapping never meet; the wrapper takes the frame and the mapping the instance keeps.
    pytest.importorskip("pandas")
    report = scanned(capsys, tmp_path / "repo", {
        "risk/__init__.py": "",
        "risk/model.py": """\
            class RiskModel:
                def __init__(self, frame, columns):
                    self.frame = frame
                    self.columns = columns

                def predict(self, years):
                    rows = zip(self.frame[self.columns["score"]], self.frame[self.columns["sex"]])
                    return [round(b * years * (1.2 if s == "male" else 1.0), 3) for b, s in rows]


            def predict(frame, columns, years):
                return RiskModel(frame, columns).predict(years)
        """,
        "tests/test_model.py": """\
            import pandas as pd

            from risk.model import RiskModel


            def test_predict():
                frame = pd.DataFrame({"Score": [0.1, 0.2], "Sex": ["female", "male"]})
                model = RiskModel(frame, {"score": "Score", "sex": "Sex"})
                assert len(model.predict(2)) == 2
        """,
    }, "risk")  # fmt: skip
    finding = only_finding(report, "predict", "gender")
    assert finding["parameter"].startswith("frame['Sex']")


# Frames of ages the tests build, each in a shape the recorded call alone reaches:
AGES_IN_A_FRAME = {
    # polars: a frame is immutable (a column is replaced, not set), and `group_by` gives
    # its groups in an order that changes from run to run; the age sits in a column that
    # `age_col` names, which a made-up frame cannot reach.
    "polars": {
        "ages/__init__.py": "",
        "ages/score.py": """\
            import polars as pl


            def score(df, id_col="id", age_col="age"):
                per_patient = df.group_by(id_col).agg(
                    pl.col("points").sum(), pl.col(age_col).max().alias("oldest")
                )
                bonus = (pl.col("oldest") >= 70).cast(pl.Int64)
                return per_patient.select(id_col, (pl.col("points") + bonus).alias("score"))
        """,
        "tests/test_score.py": """\
            import polars as pl

            from ages.score import score


            def test_score():
                df = pl.DataFrame({"id": [1, 1, 2, 3, 4], "points": [1, 2, 0, 3, 1],
                                   "age": [66, 66, 45, 52, 38]})
                assert score(df).height == 4
        """,
    },
    # `definitions_file` names a file, which alone makes a function about things (an HTTP
    # cache's `age`, a file's); the ages of a table the tests built are people's whatever
    # sits beside them.
    "pandas": {
        "ages/__init__.py": "",
        "ages/score.py": """\
            import json


            def score(df, definitions_file=None):
                weights = {"F32": 1.0, "I10": 0.5}
                if definitions_file is not None:
                    with open(definitions_file) as handle:
                        weights = json.load(handle)
                base = [weights.get(code, 0.0) for code in df["code"]]
                return [b + (1.0 if a >= 75 else 0.0) for b, a in zip(base, df["age"])]
        """,
        "tests/test_score.py": """\
            import pandas as pd

            from ages.score import score


            def test_score():
                df = pd.DataFrame({"code": ["F32", "I10", "X"], "age": [80, 60, 70]})
                assert len(score(df)) == 3
        """,
    },
}  # fmt: skip


@pytest.mark.parametrize("library", list(AGES_IN_A_FRAME))
def test_the_ages_of_a_frame_the_tests_build_are_varied_from_the_recorded_call(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, library: str
) -> None:
    pytest.importorskip(library)
    report = scanned(capsys, tmp_path / "repo", AGES_IN_A_FRAME[library], "ages")
    finding = only_finding(report, "score", "age", "tests/test_score.py::test_score")
    assert finding["parameter"].startswith("df['age']")


def test_a_frame_holding_a_person_is_borrowed_but_not_a_list_for_a_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `horizon_risk`, which no test calls, reads the sex by its name but the score through
    # `columns`: a made-up frame lacks the column the mapping names. It takes the frame and
    # mapping the test passed `risk_table`; not `horizon=[2, 5]`, a list where it takes a number.
    pytest.importorskip("pandas")
    report = scanned(capsys, tmp_path / "repo", {
        "risk/__init__.py": "",
        "risk/table.py": """\
            def horizon_risk(frame, columns, horizon=1):
                weights = [1.2 if s == "male" else 1.0 for s in frame["sex"]]
                return [round(b * horizon * w, 3) for b, w in zip(frame[columns["score"]], weights)]
        """,
        "risk/batch.py": """\
            def risk_table(frame, columns, horizon):
                scores = list(frame[columns["score"]])
                return {y: [round(b * y, 3) for b in scores] for y in horizon if "sex" in frame}
        """,
        "tests/test_table.py": """\
            import pandas as pd

            from risk.batch import risk_table


            def test_table():
                frame = pd.DataFrame({"Points": [0.1, 0.2], "sex": ["female", "male"]})
                assert len(risk_table(frame, {"score": "Points"}, horizon=[2, 5])) == 2
        """,
    }, "risk")  # fmt: skip
    finding = only_finding(report, "horizon_risk", "gender")
    assert finding["example"]["inputs"]["horizon"] != [2, 5]


def test_a_table_passed_whole_by_a_field_name_is_lent_to_a_made_up_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `survival`, which no test calls, reads `basis.qx[age + k]`: a made-up `basis.qx`
    # raises at every age. The test passed the project's mortality rates as `qx=` to
    # another function; a made-up `basis` takes them in its `qx` field.
    report = scanned(capsys, tmp_path / "repo", {
        "lifetab/__init__.py": "",
        "lifetab/annuity.py": """\
            def survival(basis, age, years):
                alive = 1.0
                for k in range(years):
                    alive *= 1 - basis.qx[age + k]
                return round(alive / (1 + basis.rate) ** years, 6)


            def expectancy(qx, age):
                alive, total = 1.0, 0.0
                for rate in qx[age:]:
                    alive *= 1 - rate
                    total += alive
                return round(total, 3)
        """,
        "tests/test_annuity.py": """\
            from lifetab.annuity import expectancy

            QX = [min(1.0, 0.0005 * 1.09 ** n) for n in range(111)]


            def test_expectancy():
                assert expectancy(qx=QX, age=40) > expectancy(qx=QX, age=70)
        """,
    }, "lifetab")  # fmt: skip
    finding = only_finding(report, "survival", "age")
    assert finding["example"]["inputs"]["basis"]["qx"][:2] == [0.0005, 0.000545], finding


def test_a_bias_past_a_threshold_the_test_never_reached_shows_with_another_input_moved(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The test's premium is under both caps, so its filer's age changes nothing as recorded;
    # no made-up Filer gets past the PAN check. The recorded call with the premium doubled
    # shows the higher cap an older filer has.
    report = scanned(capsys, tmp_path / "repo", {
        "tax/__init__.py": "",
        "tax/health.py": """\
            import re


            class Filer:
                def __init__(self, pan, age, premium):
                    if not re.fullmatch(r"[A-Z]{5}[0-9]{4}[A-Z]", pan):
                        raise ValueError("not a PAN")
                    self.pan, self.age, self.premium = pan, age, premium


            def health_deduction(filer):
                cap = 50000 if filer.age >= 60 else 25000
                return min(filer.premium, cap)
        """,
        "tests/test_health.py": """\
            from tax.health import Filer, health_deduction


            def test_deduction():
                assert health_deduction(Filer("ABCDE1234F", 64, 18000)) == 18000
        """,
    }, "tax")  # fmt: skip
    source = "tests/test_health.py::test_deduction"
    finding = only_finding(report, "health_deduction", "age", source)
    shown = finding["example"]["inputs"]["filer"]
    assert "premium=18000" not in shown and "pan='ABCDE1234F'" in shown, shown


def test_a_bias_behind_a_flag_the_test_left_off_shows_with_the_flag_flipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The church tax rate is the filer's region's, but the test's filer owes none: as recorded,
    # the region changes nothing. The same call with `church` flipped shows the region's rate.
    report = scanned(capsys, tmp_path / "repo", {
        "tax/__init__.py": "",
        "tax/church.py": """\
            import re

            RATES = {"Bavaria": 0.08, "Saxony": 0.09}


            class Filer:
                def __init__(self, tax_id, residence, church, tax):
                    if not re.fullmatch(r"[0-9]{11}", tax_id):
                        raise ValueError("not a tax id")
                    self.tax_id, self.residence, self.church = tax_id, residence, church
                    self.tax = tax


            def total_tax(filer):
                rate = RATES.get(filer.residence, 0.09) if filer.church else 0.0
                return round(filer.tax * (1 + rate), 2)
        """,
        "tests/test_church.py": """\
            from tax.church import Filer, total_tax


            def test_total():
                assert total_tax(Filer("12345678901", "Bavaria", False, 1000.0)) == 1000.0
        """,
    }, "tax")  # fmt: skip
    finding = only_finding(report, "total_tax", "region", "tests/test_church.py::test_total")
    assert "church=True" in finding["example"]["inputs"]["filer"]


def test_a_key_learnt_from_a_failing_call_is_set_in_the_instance_the_tests_built_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `options` is read by a key the source holds in a list: learnt from the call that fails
    # for it. No made-up `rates` holds an age band; the tests' instance does, and the search
    # over it must set the learnt key too (it raised KeyError inside codebias).
    report = scanned(capsys, tmp_path / "repo", {
        "cover/__init__.py": "",
        "cover/policy.py": """\
            FIELDS = ["base"]


            class Policy:
                def __init__(self, age, rates):
                    self.age = age
                    self.rates = rates

                def premium(self):
                    return 100.0

                def loading(self, options):
                    factor = 1.0
                    for band, value in self.rates.items():
                        if self.age >= int(band.split("_")[1]):
                            factor = value
                    amount = options[FIELDS[0]] * factor
                    return round(amount, 2) if options["rounded"] else amount
        """,
        "tests/test_policy.py": """\
            import json

            from cover.policy import Policy


            def test_premium(tmp_path):
                path = tmp_path / "rates.json"
                path.write_text('{"age_65_plus": 1.4}')
                assert Policy(40, json.loads(path.read_text())).premium() == 100.0
        """,
    }, "cover")  # fmt: skip
    finding = only_finding(report, "Policy.loading", "age")
    assert "'base'" in str(finding["example"]["inputs"]["options"])


def test_a_package_that_asks_for_its_own_version_at_import_runs_uninstalled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Run from its source, not installed (the App's sandbox, a run without its dependencies),
    # the package's `version("fares-kit")` raised at import: every function "cannot run",
    # and no test file that imports it could be recorded.
    report = scanned(capsys, tmp_path / "repo", {
        "fares/__init__.py": """\
            from importlib.metadata import version

            __version__ = version("fares-kit")
        """,
        "fares/rules.py": """\
            import re


            class Rider:
                def __init__(self, card, age):
                    if not re.fullmatch(r"C-[0-9]{6}", card):
                        raise ValueError("not a card number")
                    self.card, self.age = card, age


            def fare(rider):
                return 1.0 if rider.age >= 65 else 2.5


            def senior(age):
                return age >= 65
        """,
        "tests/test_rules.py": """\
            from fares.rules import Rider, fare


            def test_fare():
                assert fare(Rider("C-000123", 30)) == 2.5
        """,
    }, "fares")  # fmt: skip
    only_finding(report, "senior", "age")
    only_finding(report, "fare", "age", "tests/test_rules.py::test_fare")


def test_the_environment_the_tests_set_holds_when_their_calls_are_replayed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Every call asks who is calling, from a variable the deployment sets; the test module
    # sets it (`os.environ.setdefault`), and the sandbox's environment is empty: replayed
    # without it, every call would raise. `ration`, which the tests never call, runs its
    # made-up calls once more in the environment the project's run set.
    report = scanned(capsys, tmp_path / "repo", {
        "triage/__init__.py": "",
        "triage/identity.py": """\
            import os


            def current_role():
                role = os.environ.get("TRIAGE_ROLE", "")
                if role not in ("nurse", "doctor"):
                    raise PermissionError("TRIAGE_ROLE is not set by the deployment")
                return role
        """,
        "triage/rules.py": """\
            from triage.identity import current_role


            def priority(patient):
                current_role()
                return 2 if patient["age"] >= 70 else 1


            def ration(sex, weight_kg):
                current_role()
                return weight_kg * (30 if sex == "male" else 25)
        """,
        "tests/test_rules.py": """\
            import os

            os.environ.setdefault("TRIAGE_ROLE", "nurse")

            from triage.rules import priority


            def test_priority():
                assert priority({"name": "Ann", "age": 45}) == 1
        """,
    }, "triage")  # fmt: skip
    only_finding(report, "priority", "age", "tests/test_rules.py::test_priority")
    only_finding(report, "ration", "gender")


def test_a_state_the_tests_set_to_a_status_is_no_region(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # athlib's high-jump competition: its `state` is "drawn" or "finished", beside athletes'
    # ages in the same package; varied as a US state, it "proved" a region.
    report = scanned(capsys, tmp_path / "repo", {
        "meet/__init__.py": "",
        "meet/jump.py": """\
            class Competition:
                def __init__(self, jumpers, state="scheduled"):
                    self.jumpers, self.state = jumpers, state

                @property
                def is_finished(self):
                    return self.state in ("finished", "won", "drawn")


            def age_group(age):
                return "U17" if age < 17 else "SEN"
        """,
        "tests/test_jump.py": """\
            from meet.jump import Competition


            def test_finished():
                assert Competition(["Ann", "Bo"], state="drawn").is_finished
                assert not Competition(["Ann"], state="started").is_finished
        """,
    }, "meet")  # fmt: skip
    (fn,) = [f for f in report["functions"] if f["qualname"] == "Competition.is_finished"]
    assert fn["status"] != "biased", fn


def test_a_function_its_made_up_inputs_prove_ends_the_recording_of_a_slow_suite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Each of the suite's twenty tests takes half a second and calls `discount` with the
    # same pensioner: no test ends the run as having taught nothing, nor fills the function's
    # calls. The made-up ages prove the bias first; the recording then stops, its demo unrun.
    report = scanned(capsys, tmp_path / "repo", {
        "shop/__init__.py": "",
        "shop/pricing.py": "def discount(age):\n    return 0.2 if age >= 65 else 0.0\n",
        "tests/test_slow.py": """\
            import time

            import pytest

            from shop.pricing import discount


            @pytest.mark.parametrize("n", range(20))
            def test_discount(n):
                time.sleep(0.5)
                assert discount(70) == 0.2
        """,
        "examples/demo.py": "from shop.pricing import discount\nprint(discount(70))\n",
    }, "shop")  # fmt: skip
    only_finding(report, "discount", "age")
    (recording,) = report["evidence"]
    first, *rest = recording["entries"]
    assert first["status"] == "ended: every function recorded for has its calls or its verdict"
    assert first["tests"] < 20
    assert rest and all(e["status"] == "not run: nothing more to record" for e in rest)


def test_made_up_calls_that_raised_without_the_tests_environment_run_after_their_calls(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Every made-up call raises before the recording is over: the deployment's variable is
    # unset. Replayed, the test's call sets it and proves the age; the sex it never passed
    # is then proved by made-up calls in the same sandbox.
    report = scanned(capsys, tmp_path / "repo", {
        "clinic/__init__.py": "",
        "clinic/rules.py": """\
            import os


            def priority(patient, sex=None):
                if not os.environ.get("CLINIC_ROLE"):
                    raise PermissionError("CLINIC_ROLE is not set by the deployment")
                return (2 if patient["age"] >= 70 else 1) + (1 if sex == "female" else 0)
        """,
        "tests/test_rules.py": """\
            import os

            os.environ.setdefault("CLINIC_ROLE", "nurse")

            from clinic.rules import priority


            def test_priority():
                assert priority({"name": "Ann", "age": 45}) == 1
        """,
    }, "clinic")  # fmt: skip
    (fn,) = [f for f in report["functions"] if f["qualname"] == "priority"]
    sources = {f["attribute"]: f["example"].get("source") for f in fn["findings"]}
    assert sources == {"age": "tests/test_rules.py::test_priority", "gender": None}, fn


def test_a_function_only_its_recorded_calls_prove_is_proved_by_them_in_a_few_calls(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # No made-up customer has a member number: the made-up calls beside the recording show
    # nothing; the test's call, replayed once it is over, proves the age in a few calls.
    report = scanned(capsys, tmp_path / "repo", {
        "shop/__init__.py": "",
        "shop/pricing.py": """\
            import re
            import time


            def discount(customer):
                time.sleep(0.02)
                if not re.fullmatch(r"M[0-9]{6}Q", str(customer.get("member"))):
                    return 0.0  # no member: no discount
                return 0.2 if customer["age"] >= 65 else 0.0
        """,
        "tests/test_pricing.py": """\
            from shop.pricing import discount


            def test_discount():
                assert discount({"age": 70, "name": "Ann", "member": "M123456Q"}) == 0.2
        """,
    }, "shop")  # fmt: skip
    only_finding(report, "discount", "age", "tests/test_pricing.py::test_discount")
    (fn,) = [f for f in report["functions"] if f["qualname"] == "discount"]
    assert fn["executions"] < 100, fn["executions"]


def test_a_helper_no_run_calls_is_proved_from_the_call_its_caller_makes_of_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `points(values, weights)` sums the weights of whatever keys its caller hands it,
    # read from the package's table at run time: a made-up `values` holds none of them.
    # Nothing of the project calls anything; codebias calls `risk(age, smoker)` itself, and
    # `risk` hands `points` the record it builds and the weights it loads.
    report = scanned(capsys, tmp_path / "repo", {
        "clinic/__init__.py": "",
        "clinic/weights.csv": "factor,weight\nAge (years),0.04\nSmoker,0.7\n",
        "clinic/score.py": """\
            import csv
            import pathlib

            TABLE = pathlib.Path(__file__).with_name("weights.csv")


            def load_weights():
                with TABLE.open() as f:
                    return {row["factor"]: float(row["weight"]) for row in csv.DictReader(f)}


            def points(values, weights):
                return round(sum(values[name] * w for name, w in weights.items()), 3)


            def risk(age, smoker):
                values = {"Age (years)": max(age, 40), "Smoker": int(smoker)}
                return points(values, load_weights())
        """,
    }, "clinic")  # fmt: skip
    finding = only_finding(report, "points", "age", "codebias's call of clinic.score.risk")
    assert finding["parameter"] == "values['Age (years)']"
    assert finding["example"]["inputs"]["weights"] == {"Age (years)": 0.04, "Smoker": 0.7}
    (recording,) = report["evidence"]
    assert recording["entries"][-1]["label"] == "calls codebias made"


def test_a_parameter_the_tests_hand_a_sex_by_its_letters_is_a_sex(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `s` says nothing of itself and the code compares it with "M" alone (as likely a
    # month or a size): it is recorded all the same, in a module that speaks of people
    # (`sex_label`), and the tests hand it "M" in one call and "F" in another.
    report = scanned(capsys, tmp_path / "repo", {
        "growth/__init__.py": "",
        "growth/charts.py": """\
            def sex_label(sex):
                return {"M": "boy", "F": "girl"}[sex]


            def median_weight(s):
                return 3400 if s == "M" else 3280
        """,
        "tests/test_charts.py": """\
            from growth.charts import median_weight


            def test_boy():
                assert median_weight("M") > 3000


            def test_girl():
                assert median_weight("F") > 3000
        """,
    }, "growth")  # fmt: skip
    finding = only_finding(report, "median_weight", "gender", "tests/test_charts.py::test_boy")
    assert finding["parameter"] == "s"
    assert finding["example"]["values"] == ["M", "F"]
