"""Functions run where they live: as modules of their package, with the project read-only in the
sandbox, missing dependencies stubbed, and any valid Python source read as Python reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_helpers import SANDBOX

from analysis import Engine, FunctionReport
from analysis.sandbox import BwrapExecutor
from config.policy import build_policy

pytestmark = SANDBOX

PACKAGE = {
    ".git/config": "[credential]\n\thelper = store\n[http]\n\textraheader = AUTHORIZATION: x\n",
    "pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["src"]\n',
    "src/hr/__init__.py": "from .rules import SENIOR_AGE\nREADY = True\n",
    "src/hr/rules.py": (
        "SENIOR_AGE = 65\n\n\ndef gender_factor(g):\n    return 1.2 if g == 'male' else 1.0\n"
    ),
    "src/hr/pricing.py": """\
from . import READY
from .rules import SENIOR_AGE
from hr.rules import gender_factor


def premium(age, base):
    assert READY
    if age > SENIOR_AGE:
        return base * 2
    return base


def driver_premium(gender, base):
    return base * gender_factor(gender)


def sees_git(age):
    import os
    if os.path.exists(".git") or os.path.exists("/repo/.git"):
        return age > 65
    return 0
""",
    "scripts/tool.py": "import helper\n\n\ndef bonus(age):\n    return helper.bump(age)\n",
    "scripts/helper.py": "def bump(years):\n    return 10 if years < 40 else 0\n",
    "src/hr/legacy.py": """\
import vendor_sdk
from vendor_sdk.models import Base
try:
    import ujson as json
except ImportError:
    import json


@vendor_sdk.cache
def senior_rate(age):
    return 2 if age > 60 else 1


def vendor_score(age, base):
    if age > 30:
        return vendor_sdk.price(base)
    return base


def uses_json(gender):
    return json.dumps({"rate": 1 if gender == "female" else 2})


class Client(Base):
    def rate(self, age):
        return self.lookup(age) if age > 50 else 0


def lazy(gender):
    import optional_plugin
    return optional_plugin.adjust(gender)
""",
}


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
    return root


def scan(executor: BwrapExecutor, root: Path, **policy: object) -> dict[str, FunctionReport]:
    engine = Engine(build_policy([policy] if policy else []), executor=executor)
    report = engine.scan_paths([str(root)])
    return {f"{Path(f.path).name}::{f.qualname}": f for f in report.functions}


def verdict(report: FunctionReport) -> tuple[str, list[str]]:
    return report.status, report.flagged_attributes


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return write(tmp_path / "repo", dict(PACKAGE))


def test_modules_import_as_in_their_package(executor: BwrapExecutor, package: Path) -> None:
    found = scan(executor, package)
    # relative imports, the package's __init__, an absolute import of a sibling (src layout)
    assert verdict(found["pricing.py::premium"]) == ("biased", ["age"])
    assert verdict(found["pricing.py::driver_premium"]) == ("biased", ["gender"])
    # a loose script imports the module beside it, as when it runs
    assert verdict(found["tool.py::bonus"]) == ("biased", ["age"])


def test_the_sandbox_sees_a_copy_without_git(executor: BwrapExecutor, package: Path) -> None:
    assert verdict(scan(executor, package)["pricing.py::sees_git"]) == ("clean", [])


def test_a_missing_dependency_is_stubbed_and_what_touches_it_proves_nothing(
    executor: BwrapExecutor, package: Path
) -> None:
    found = scan(executor, package)
    touching = found["legacy.py::vendor_score"]
    assert verdict(touching) == ("unverified", ["age"])
    assert touching.reason is not None and "needs vendor_sdk" in touching.reason
    # a stub used as a decorator keeps the function it decorates
    assert verdict(found["legacy.py::senior_rate"]) == ("biased", ["age"])
    # an optional import inside try/except keeps its real fallback
    assert verdict(found["legacy.py::uses_json"]) == ("biased", ["gender"])
    # a class deriving from a stubbed base still gets built; its stub methods are touches
    assert found["legacy.py::Client.rate"].status == "unverified"
    # a module imported only inside the function is stubbed when the call needs it
    lazy = found["legacy.py::lazy"]
    assert lazy.status == "unverified" and "needs optional_plugin" in (lazy.reason or "")


def test_the_policy_can_stub_an_importable_module(executor: BwrapExecutor, package: Path) -> None:
    found = scan(executor, package, python={"stub": ["hr.rules"]})
    assert found["pricing.py::driver_premium"].status == "unverified"
    assert "needs hr.rules" in (found["pricing.py::driver_premium"].reason or "")


def test_any_encoding_python_accepts_is_read(executor: BwrapExecutor, tmp_path: Path) -> None:
    latin = (
        "# -*- coding: latin-1 -*-\n"
        "def tarif(residence):\n"
        "    return 2 if residence == 'Île' else 1\n"
    )
    root = write(
        tmp_path / "enc",
        {
            "latin.py": latin.encode("latin-1"),
            "bom.py": b"\xef\xbb\xbfdef senior(age):\n    return age > 70\n",
        },
    )
    found = scan(executor, root)
    assert verdict(found["latin.py::tarif"]) == ("biased", ["region"])
    assert verdict(found["bom.py::senior"]) == ("biased", ["age"])


def test_a_file_over_the_size_limit_is_skipped_with_a_note(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    big = "def senior(age):\n    return age > 70\n" + "# padding\n" * 2000
    root = write(tmp_path / "big", {"big.py": big, "small.py": "def f(age):\n    return age\n"})
    engine = Engine(build_policy([{"budget": {"max_file_bytes": 5000}}]), executor=executor)
    report = engine.scan_paths([str(root)])
    (problem,) = report.problems
    assert problem[0].endswith("big.py") and "max_file_bytes" in problem[1]
    assert any(f.qualname == "f" for f in report.functions)


def test_expressions_too_deep_to_analyse_lose_only_their_function(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    deep = "def deep(age):\n    return age + " + " + ".join(["1"] * 1500) + "\n"
    ok = "def senior(age):\n    return age > 70\n"
    root = write(tmp_path / "deep", {"deep.py": deep + "\n\n" + ok})
    found = scan(executor, root)
    assert found["deep.py::deep"].status in ("unverified", "clean", "biased")
    assert verdict(found["deep.py::senior"]) == ("biased", ["age"])


def test_bytes_and_other_literals_in_pools_never_crash(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    source = """\
def fare(city, age):
    if city == b'NYC' or age == 1j or city is ...:
        return 3
    return 2 if age > 64 else 1
"""
    found = scan(executor, write(tmp_path / "lit", {"lit.py": source}))
    # The city differs only between b'NYC' (or ...) and words: values of other kinds, which
    # a witness never swaps for each other (a bytes city is no text city).
    assert verdict(found["lit.py::fare"]) == ("biased", ["age"])


GROWTH = {
    "growth/__init__.py": "",
    "growth/constants/__init__.py": "from .ages import *\nMALE = 'male'\nFEMALE = 'female'\n",
    "growth/constants/ages.py": "LOWER = ((23 * 7) - (40 * 7)) / 365.25\nUPPER = 20.0\n",
    "growth/models.py": "class Child:\n    def __init__(self, sex, age):\n"
    "        self.sex = sex\n        self.age = age\n",
    "growth/helpers.py": "def is_boy(child):\n    return child.sex == 'male'\n",
    "growth/rules.py": """\
from datetime import date

from .constants import *
from .helpers import is_boy
from .models import Child


def reference(age: float, sex: str, method: str) -> str:
    if age < LOWER or age > UPPER:
        raise ValueError("no reference data at this age")
    if method not in ("height", "weight"):
        raise ValueError(method)
    if sex == MALE and age > 17.5:
        return "boys-late"
    return "general"


def band(child: Child) -> str:
    return "b" if is_boy(child) else "g"


def days_old(birth_date: date, observation_date: date) -> bool:
    return (observation_date - birth_date).days > 65 * 365


class Measurement:
    def __init__(self, sex: str) -> None:
        self.sex = sex

    def __band(self, age):
        return 1 if age > 16 else 2
""",
}


def test_constants_helpers_and_private_methods_come_from_the_project(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    # Ages of children live in another module (23 weeks of gestation to 20 years): drawn from
    # adults' ages, every call would be refused and nothing proved.
    reports = scan(executor, write(tmp_path / "repo", dict(GROWTH)))
    assert verdict(reports["rules.py::reference"]) == ("biased", ["age", "gender"])
    assert verdict(reports["rules.py::band"]) == ("biased", ["gender"])  # helper in helpers.py
    assert verdict(reports["rules.py::days_old"]) == ("biased", ["age"])  # dates, both of them
    assert verdict(reports["rules.py::Measurement.__band"]) == ("biased", ["age"])  # mangled


def test_a_stubbed_import_after_a_compiled_dependency_keeps_the_dependency(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    # Retrying the load with a stub must not re-import what already loaded whole: a compiled
    # core (pydantic's, numpy's) refuses to initialise twice in one process.
    files = {
        "app/__init__.py": "",
        "app/pricing.py": (
            "import numpy\nimport vendor_telemetry\n\n\n"
            "def premium(age):\n    return 2 if age > 60 else 1\n"
        ),
    }
    reports = scan(executor, write(tmp_path / "repo", files))
    assert verdict(reports["pricing.py::premium"]) == ("biased", ["age"])


def test_a_module_the_package_already_imported_is_not_run_twice(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    # networkx's __init__ imports every algorithm, each registering itself once: running the
    # module again would raise. Code that differs from the file (a fix being tried) still runs.
    files = {
        "algos/__init__.py": "REGISTRY = {}\nfrom .degree import degree_bonus\n",
        "algos/degree.py": (
            "from . import REGISTRY\n\n"
            "if 'degree' in REGISTRY:\n    raise KeyError('Algorithm already exists')\n"
            "REGISTRY['degree'] = True\n\n\n"
            "def degree_bonus(age):\n    return 2 if age > 60 else 1\n"
        ),
    }
    reports = scan(executor, write(tmp_path / "repo", files))
    assert verdict(reports["degree.py::degree_bonus"]) == ("biased", ["age"])


TYPED = {
    "scale/__init__.py": "",
    "scale/models.py": """\
from dataclasses import dataclass
from enum import IntEnum


class Sex(IntEnum):
    FEMALE = 0
    MALE = 1


@dataclass(frozen=True)
class Profile:
    height_cm: float
    age: int
    sex: Sex
""",
    "scale/body.py": """\
from .models import Profile


def fat_offset(profile: Profile) -> float:
    # `int()` of a word raises: only a member of Sex gets as far as the rule.
    return 10.0 + 5.0 * int(profile.sex) + 0.1 * profile.age
""",
}


def test_a_field_typed_by_a_class_the_module_never_names_gets_its_members(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    # `Sex` is named only in models.py: the record imported from there still needs a member.
    reports = scan(executor, write(tmp_path / "repo", dict(TYPED)))
    assert verdict(reports["body.py::fat_offset"]) == ("biased", ["age", "gender"])


SCRIPTS = {
    "scale2/__init__.py": (
        "import builtins\n"
        "original_help = builtins.help  # as site.py sets it\n"
        "builtins.help = lambda *a: print('see the README')  # not the harness's business\n"
    ),
    # A sibling named like a standard module must not hide the standard one.
    "scale2/types.py": "raise RuntimeError('the package folder came before the standard one')\n",
    "scale2/body_scales.py": "def fat_limit(sex):\n    return 25 if sex == 'female' else 18\n",
    "scale2/metrics.py": """\
import types

from body_scales import fat_limit


def fat_allowed(sex):
    return f"up to {fat_limit(sex)}%"


def check_age(age):
    if age > 99:
        exit()  # the script's way of refusing
    return age
""",
}


def test_a_sibling_imported_as_by_a_script_is_found_after_the_standard_library(
    executor: BwrapExecutor, tmp_path: Path
) -> None:
    reports = scan(executor, write(tmp_path / "repo", dict(SCRIPTS)))
    # `from body_scales import ...` inside a package works when its folder is on the path.
    assert verdict(reports["metrics.py::fat_allowed"]) == ("biased", ["gender"])
    # `help` and `exit` exist as in any interpreter started without -S.
    assert reports["metrics.py::check_age"].status != "unverified"
