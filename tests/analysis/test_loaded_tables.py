"""Tables a module builds as it loads (a JSON file of the year's parameters read at import),
looked up by a protected input: their keys, read in the sandbox once the module has loaded,
are values the search tries, as the constants of a table written in the source would be."""

from __future__ import annotations

import ast
from pathlib import Path

from analysis_kit import scan_in_package, verdict, write_package

from analysis.execution.harness.loading import table_keys
from analysis.facts.module import ModuleFacts

PAYROLL = """
import json

# The year's parameters, as a package reads them from its JSON file.
PARAMETERS = json.loads('{"disability": {"1": 12000, "2": 7000, "3": 3000}, "rate": 0.15}')


class Settings:
    def __init__(self, data):
        self.DISABILITY = data["disability"]
        self.RATE = data["rate"]


SETTINGS = Settings(PARAMETERS)


def net_pay(gross: float, disability_degree: str = "0") -> float:
    allowance = SETTINGS.DISABILITY.get(str(disability_degree), 0)
    return gross - max(0, gross - allowance) * SETTINGS.RATE


def net_pay_indexed(gross: float, disability_degree: str = "0") -> float:
    table = {"0": 0, **PARAMETERS["disability"]}
    return gross - max(0, gross - table[disability_degree]) * PARAMETERS["rate"]


FLAT = json.loads('{"1": 5000, "2": 5000, "3": 5000}')


def uniform(gross: float, disability_degree: str = "0") -> float:
    # Every degree's allowance is the same, and so is the default's: the degree changes nothing.
    return gross - FLAT.get(str(disability_degree), 5000)
"""


def loaded(source: str, name: str) -> list[str]:
    return ModuleFacts(ast.parse(source)).hint(name).loaded


def test_a_global_table_looked_up_by_a_name_is_filed_under_it() -> None:
    assert set(loaded(PAYROLL, "disability_degree")) == {"SETTINGS.DISABILITY", "FLAT"}


def test_a_local_a_parameter_or_the_instance_holds_no_module_table() -> None:
    source = """
def f(degree, rates):
    table = make()
    return table[degree] + rates.get(degree) + self.table[degree]
"""
    assert loaded(source, "degree") == []


def test_the_child_reads_the_keys_of_the_tables_asked_for() -> None:
    namespace: dict[str, object] = {}
    exec(compile(PAYROLL, "case.py", "exec"), namespace)

    class Module:
        pass

    module = Module()
    vars(module).update(namespace)
    keys = table_keys(module, ["SETTINGS.DISABILITY", "SETTINGS.RATE", "json.loads", "NOWHERE"])
    # Only mappings answer: a number, a function, a missing name tell nothing.
    assert keys == {"SETTINGS.DISABILITY": ["1", "2", "3"]}


def test_the_keys_of_a_table_built_at_import_prove_the_bias() -> None:
    report = verdict(PAYROLL, "net_pay")
    assert report.status == "biased", report.reason
    assert [f.attribute for f in report.findings] == ["disability"]
    example = report.findings[0].example
    assert example is not None and set(example.values) & {"1", "2", "3"}


def test_a_degree_that_changes_nothing_stays_clean() -> None:
    report = verdict(PAYROLL, "uniform")
    assert report.status == "clean", report.findings


def test_a_package_reading_its_json_file_at_import(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            "payroll/__init__.py": "",
            "payroll/parameters.json": '{"allowances": {"1": 12000, "2": 7000, "3": 3000}}',
            "payroll/core.py": """
                import json
                from pathlib import Path

                ALLOWANCES = json.loads(
                    (Path(__file__).parent / "parameters.json").read_text()
                )["allowances"]


                def taxable(gross, engel_derecesi="0"):
                    return max(0, gross - ALLOWANCES.get(engel_derecesi, 0))
            """,
        },
    )
    report = scan_in_package(root, "payroll/core.py", "taxable")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"disability"}
