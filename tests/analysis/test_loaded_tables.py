"""Tables a module builds as it loads (a JSON file of the year's parameters read at import),
looked up by a protected input: their keys, read in the sandbox once the module has loaded,
are values the search tries, as the constants of a table written in the source would be."""

from __future__ import annotations

import ast
from pathlib import Path

from analysis_kit import scan_in_package, verdict, write_package

from analysis.execution.harness.loading import table_keys
from analysis.facts.hint import Hint
from analysis.facts.module import ModuleFacts
from analysis.inputs.loaded_tables import seed_table_keys
from analysis.shapes import Leaf
from analysis.values import EnumMember

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


RETURN = """
from enum import Enum


class Status(Enum):
    SINGLE = 1
    JOINT = 2


def _deductions():
    return {Status.SINGLE: 12000, Status.JOINT: 24000}


DEDUCTION = _deductions()
LIMIT = {year: 10000 + 100 * (year - 2018) for year in range(2018, 2027)}
RATE = {year: 0.2 for year in range(2016, 2025)}


def taxable(income, year, marital_status):
    return (income - DEDUCTION[marital_status] - LIMIT[year]) * RATE[year]
"""


def test_tables_keyed_by_members_and_years_give_the_values_to_rest_on() -> None:
    # Every call with a word for the status, or a year neither table has, raises KeyError:
    # the status rests on a member, the year on a year both tables have.
    report = verdict(RETURN, "taxable")
    assert report.status == "biased", report.reason
    assert [f.attribute for f in report.findings] == ["marital_status"]
    example = report.findings[0].example
    assert example is not None and 2018 <= example.inputs["year"] <= 2024


def test_an_input_rests_on_a_key_every_table_it_indexes_has() -> None:
    year = Leaf((("param", "year"),), "year", "year", [0, 1, 2, 3, 10], None)
    status = Leaf((("param", "s"),), "s", "s", ["married", "single"], "marital_status")
    hints = {"year": Hint(loaded=["LIMIT", "RATE"]), "s": Hint(loaded=["DEDUCTION"])}
    members = (EnumMember("Status", "SINGLE"), EnumMember("Status", "JOINT"))
    keys = {"LIMIT": (2018, 2019, 2020), "RATE": (2016, 2017, 2018, 2019), "DEDUCTION": members}
    seed_table_keys([year, status], hints, keys)
    assert year.pool[year.typical] == 2018 and {2016, 2019, 2020} <= set(year.pool)
    # a protected input's words stay to be tried; it rests on a member, as the table needs
    assert status.pool[status.typical] == members[0] and "married" in status.pool


def test_a_table_written_out_is_read_as_it_is_once_loaded() -> None:
    # Its keys may be members of an Enum the module imports: the child reads them as loaded.
    source = "RATES = {1: 0.1}\n\ndef f(status):\n    return RATES[status] + RATES.get(status)\n"
    assert loaded(source, "status") == ["RATES"]


# A package's tables, read in as it loads, can take a gigabyte (cvd-risk's Globorisk data:
# a 5 MB pickle that unpacks to 0.97 GB): the module loads, and its functions run.
LARGE_TABLES = """
TABLES = bytearray(1100 << 20)  # the data a package reads in at import


def premium(age: int) -> float:
    return 100.0 + TABLES[0] + (40.0 if age >= 60 else 0.0)
"""


def test_a_module_whose_tables_take_a_gigabyte_loads_and_runs() -> None:
    report = verdict(LARGE_TABLES, "premium")
    assert report.biased_attributes == ["age"], report.reason
