"""What a module takes from its project: constants (through star imports, aliases, re-exports
and arithmetic), record classes and helpers, read from source without importing anything."""

from __future__ import annotations

import ast
from pathlib import Path

from analysis.facts.imports import ImportedNames
from analysis.facts.module import ModuleFacts
from analysis.scan.project import Project

FILES = {
    "care/__init__.py": "",
    "care/constants/__init__.py": (
        "from .ages import *\nfrom .codes import MALE as BOY\n__all__ = ['LOWER', 'UPPER', 'BOY']\n"
    ),
    "care/constants/ages.py": (
        "WEEKS = 7\nLOWER = ((23 * WEEKS) - (40 * WEEKS)) / 365.25\nUPPER = 20.0\n_PRIVATE = 1\n"
    ),
    "care/constants/codes.py": "MALE = 'male'\nFEMALE = 'female'\n",
    "care/models.py": (
        "import enum\nfrom dataclasses import dataclass\n\n"
        "class Sex(enum.Enum):\n    MALE = 'm'\n    FEMALE = 'f'\n\n"
        "@dataclass\nclass Child:\n    age: float\n    sex: Sex\n"
    ),
    "care/helpers.py": "def is_boy(child):\n    return child.sex == 'male'\n",
    "care/cycle_a.py": "from .cycle_b import B\nA = 1\n",
    "care/cycle_b.py": "from .cycle_a import A\nB = 2\n",
    "care/rules.py": """\
from .constants import *
from . import constants
from .constants import codes as c
import care.constants.codes
from .models import Child, Sex as Gender
from .helpers import is_boy
from .cycle_a import A
from numpy import pi
""",
}


def imported(tmp_path: Path) -> tuple[ModuleFacts, ImportedNames]:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    project = Project.discover(tmp_path)
    location = project.locate(tmp_path / "care/rules.py")
    assert location is not None and location.name == "care.rules"
    names = ImportedNames(project)
    tree = ast.parse(FILES["care/rules.py"])
    return ModuleFacts(tree, names.of(tree, location)), names


def facts_in_project(tmp_path: Path, files: dict[str, str], module: str) -> ModuleFacts:
    """The facts of `module` of a project made of `files`, with what it imports from them."""
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    project = Project.discover(tmp_path)
    location = project.locate(tmp_path / module)
    assert location is not None
    tree = ast.parse(files[module])
    return ModuleFacts(tree, ImportedNames(project).of(tree, location))


def test_constants_come_through_star_imports_all_and_arithmetic(tmp_path: Path) -> None:
    facts, _ = imported(tmp_path)
    assert facts.constants["LOWER"] == (23 * 7 - 40 * 7) / 365.25
    assert facts.constants["UPPER"] == 20.0 and facts.constants["BOY"] == "male"
    assert "WEEKS" not in facts.constants  # left out of __all__
    assert "_PRIVATE" not in facts.constants


def test_module_aliases_reach_their_constants(tmp_path: Path) -> None:
    facts, _ = imported(tmp_path)
    assert facts.constants["constants.UPPER"] == 20.0  # from . import constants
    assert facts.constants["c.FEMALE"] == "female"  # from .constants import codes as c


def test_classes_enums_and_helpers_are_known_under_the_local_name(tmp_path: Path) -> None:
    facts, _ = imported(tmp_path)
    assert facts.classes["Child"].name == "Child"
    assert facts.enums["Gender"] == ["MALE", "FEMALE"]
    assert facts.functions["is_boy"].name == "is_boy"


def test_cycles_end_and_names_outside_the_project_are_unknown(tmp_path: Path) -> None:
    facts, names = imported(tmp_path)
    assert facts.constants["A"] == 1
    assert "pi" not in facts.constants  # numpy is not the project's: never read
    assert names._exports("care.cycle_b", ("",), 0) is not None


def test_folding_refuses_what_is_not_plain_arithmetic() -> None:
    facts = ModuleFacts(ast.parse("A = 2 ** 10000\nB = 'x' * 5\nC = 1 / 0\nD = 10 // 3 + 0.5\n"))
    assert "A" not in facts.constants and "B" not in facts.constants
    assert "C" not in facts.constants and facts.constants["D"] == 3.5


def test_a_dict_keyed_by_an_unhashable_constant_is_no_constant() -> None:
    # networkx: a dict whose keys name other dicts; reading it must not end the scan.
    facts = ModuleFacts(ast.parse("A = {1: 2}\nB = {A: 3}\nC = {(1, [2]): 1}\nD = {'k': A}\n"))
    assert "B" not in facts.constants and "C" not in facts.constants
    assert facts.constants["D"] == {"k": {1: 2}}


def test_an_imported_class_s_own_validation_bounds_its_fields(tmp_path: Path) -> None:
    """drugdose's `Patient` refuses a weight outside (0, 500] in `__post_init__`: a module that
    builds one learns that, and rests the weight on a value that builds it."""
    files = {
        "clinic/__init__.py": "",
        "clinic/patient.py": (
            "from dataclasses import dataclass\n"
            "@dataclass\nclass Patient:\n    weight_kg: float\n    age_years: float = 30\n"
            "    def __post_init__(self):\n"
            "        if self.weight_kg <= 0 or self.weight_kg > 500:\n"
            "            raise ValueError('weight')\n"
        ),
        "clinic/checks.py": (
            "from .patient import Patient\n"
            "def flags(patient: Patient, min_age=None):\n"
            "    return ['young'] if min_age is not None and patient.age_years < min_age else []\n"
        ),
    }
    facts = facts_in_project(tmp_path, files, "clinic/checks.py")
    assert ("<=", 500.0) in facts.hint("weight_kg").bounds


def test_a_class_of_the_module_says_what_self_holds_over_its_imported_base(tmp_path: Path) -> None:
    """cvd-risk's WHO model: the base class in another module sets `supported_regions = None`,
    the model its own list; `region not in self.supported_regions` offers the model's."""
    files = {
        "risk/__init__.py": "",
        "risk/base.py": "class Model:\n    supported_regions = None\n",
        "risk/who.py": (
            "from risk.base import Model\n"
            "class WHO(Model):\n"
            "    supported_regions = ['AFR_D', 'EUR_A']\n"
            "    def risk(self, age, region):\n"
            "        if region not in self.supported_regions:\n"
            "            raise ValueError('unknown region')\n"
            "        return age * (1.4 if region.startswith('AFR') else 1.0)\n"
        ),
    }
    facts = facts_in_project(tmp_path, files, "risk/who.py")
    assert facts.constants["self.supported_regions"] == ["AFR_D", "EUR_A"]
    assert facts.constants["Model.supported_regions"] is None  # the base's own, kept
    assert facts.hints["region"].accepted == ["AFR_D", "EUR_A"]


def test_the_keys_of_a_table_are_a_constant_list() -> None:
    # cvd-risk's SMART2: `supported_regions = list(_SMART2_REGIONAL_RATIOS.keys())`
    facts = ModuleFacts(
        ast.parse(
            "RATIOS = {'europe_low': 1.0, 'asia': 0.8}\n"
            "A = list(RATIOS.keys())\nB = sorted(RATIOS)\nC = list(RATIOS.values())\n"
            "D = tuple(RATIOS)\n"
        )
    )
    assert facts.constants["A"] == ["europe_low", "asia"]
    assert facts.constants["B"] == ["asia", "europe_low"]
    assert facts.constants["C"] == [1.0, 0.8]
    assert facts.constants["D"] == ["europe_low", "asia"]
