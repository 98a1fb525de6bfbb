"""Which of a project's programs a recording runs (analysis/evidence/entrypoints.py): the
tests that import a module under test (directly, through a package's `__init__`, or through
their folder's conftest), the modules' own `__main__` demos, the programs in demo folders;
or the policy's `evidence.run` commands instead."""

from __future__ import annotations

import textwrap
from pathlib import Path

from analysis.evidence.entrypoints import EntryPoint, entry_points
from analysis.scan.project import Project


def project(root: Path, files: dict[str, str]) -> Project:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return Project.discover(root)


LAYOUT = {
    "pkg/__init__.py": "from .pricing import quote\n",
    "pkg/pricing.py": "def quote(a):\n    return a\n\nif __name__ == '__main__':\n    quote(1)\n",
    "pkg/other.py": "def helper():\n    return 1\n",
    "tests/test_direct.py": "from pkg.pricing import quote\n",
    "tests/test_through_init.py": "from pkg import quote\n",
    "tests/test_relative_name.py": "import pkg.pricing as p\n",
    "tests/test_other.py": "from pkg.other import helper\n",
    "tests/test_unrelated.py": "import json\n",
    "tests/fixtures/conftest.py": "from pkg.pricing import quote\n",
    "tests/fixtures/test_uses_fixture.py": "def test_x(applicant):\n    pass\n",
    "examples/demo.py": "from pkg import quote\nprint(quote(2))\n",
    "examples/unrelated_demo.py": "print('hello')\n",
    "scripts/run_report.py": "import pkg.pricing\nif __name__ == '__main__':\n    pass\n",
    "tools/cli.py": "from pkg.pricing import quote\nif __name__ == '__main__':\n    quote(3)\n",
    "tools/lib.py": "from pkg.pricing import quote\n",  # no main block, not a demo folder
    "setup.py": "from pkg.pricing import quote\nif __name__ == '__main__':\n    pass\n",
}


def test_tests_that_import_a_module_under_test_run_in_one_pytest(tmp_path: Path) -> None:
    found = entry_points(project(tmp_path, LAYOUT), {"pkg.pricing"})
    pytest_entry = found.entries[0]
    assert pytest_entry.kind == "pytest"
    assert sorted(pytest_entry.args) == [
        "tests/fixtures/test_uses_fixture.py",  # its conftest imports the module
        "tests/test_direct.py",
        "tests/test_relative_name.py",
        "tests/test_through_init.py",  # pkg/__init__ imports pricing
    ]


def test_a_package_whose_init_does_not_import_the_module_does_not_reach_it(
    tmp_path: Path,
) -> None:
    found = entry_points(project(tmp_path, LAYOUT), {"pkg.other"})
    assert found.entries[0].args == ("tests/test_other.py",)


def test_tests_that_import_the_module_through_its_source_folder_reach_it(tmp_path: Path) -> None:
    # `from src.pkg.pricing import quote`, from a test run at the repository's top, loads
    # the file of the module `pkg.pricing` (source root `src`).
    found = entry_points(project(tmp_path, {
        "src/pkg/__init__.py": "",
        "src/pkg/pricing.py": "def quote(a):\n    return a\n",
        "tests/test_src.py": "from src.pkg.pricing import quote\n",
        "tests/test_src_package.py": "import src.pkg as p\n",
    }), {"pkg.pricing"})  # fmt: skip
    assert found.entries[0].args == ("tests/test_src.py",)


def test_demos_the_module_s_own_main_first_then_demo_folders_then_other_mains(
    tmp_path: Path,
) -> None:
    found = entry_points(project(tmp_path, LAYOUT), {"pkg.pricing"})
    programs = [(e.kind, e.label, e.module or e.path) for e in found.entries[1:]]
    assert programs == [
        ("module", "pkg/pricing.py __main__", "pkg.pricing"),
        ("script", "examples/demo.py __main__", "examples/demo.py"),
        ("script", "scripts/run_report.py __main__", "scripts/run_report.py"),
        ("script", "tools/cli.py __main__", "tools/cli.py"),
    ]


def test_a_program_runs_with_the_switch_of_its_demonstration(tmp_path: Path) -> None:
    """Without it, such a program asks its user for a person (stdin is closed) or prints its
    usage: `--example` in sys.argv (praevius), a declared `--demo` switch, a `demo`
    sub-command. An option that takes a value, or a switch for something else, is no demo."""
    main = "\nif __name__ == '__main__':\n    main()\n"
    found = entry_points(project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/pricing.py": "def quote(a):\n    return a\n",
        "pkg/predict.py": "import sys\nfrom pkg.pricing import quote\n"
        "def main():\n    if '--example' in sys.argv:\n        quote(70)\n" + main,
        "examples/cli.py": "import argparse\nfrom pkg.pricing import quote\ndef main():\n"
        "    p = argparse.ArgumentParser()\n    p.add_argument('--verbose', action='store_true')\n"
        "    p.add_argument('--demo', action='store_true')\n    p.parse_args()\n" + main,
        "examples/tool.py": "import argparse\nfrom pkg.pricing import quote\ndef main():\n"
        "    p = argparse.ArgumentParser()\n    s = p.add_subparsers()\n    s.add_parser('demo')\n"
        "    p.add_argument('--sample', type=int)\n" + main,
        "examples/plain.py": "import argparse\nfrom pkg.pricing import quote\ndef main():\n"
        "    p = argparse.ArgumentParser()\n    p.add_argument('--example', type=str)\n" + main,
    }), {"pkg.pricing"})  # fmt: skip
    programs = {e.label: e.argv for e in found.entries}
    assert programs == {
        "pkg/predict.py __main__ --example": ("--example",),
        "examples/cli.py __main__ --demo": ("--demo",),
        "examples/tool.py __main__ demo": ("demo",),
        "examples/plain.py __main__": (),
    }


def test_nothing_to_run_when_nothing_imports_the_modules(tmp_path: Path) -> None:
    found = entry_points(project(tmp_path, LAYOUT), {"pkg.nowhere"})
    assert found.entries == []


def test_the_policy_s_commands_replace_what_is_found(tmp_path: Path) -> None:
    found = entry_points(
        project(tmp_path, LAYOUT),
        {"pkg.pricing"},
        [
            "pytest -q tests/test_direct.py",
            "python -m pytest tests",
            "python examples/demo.py --fast",
            "python -m pkg.pricing",
            "make test",
            "python ../outside.py",
            "python 'unbalanced",
        ],
    )
    assert found.entries == [
        EntryPoint("pytest", "pytest", args=("-q", "tests/test_direct.py")),
        EntryPoint("pytest", "pytest", args=("tests",)),
        EntryPoint("script", "examples/demo.py __main__", path="examples/demo.py",
                   argv=("--fast",)),
        EntryPoint("module", "python -m pkg.pricing", module="pkg.pricing"),
    ]  # fmt: skip
    assert len(found.warnings) == 3
    assert "'make test' is left out" in found.warnings[0]


def test_entries_go_to_the_child_with_paths_as_it_sees_them() -> None:
    script = EntryPoint("script", "examples/demo.py __main__", path="examples/demo.py")
    assert script.wire("/repo") == {
        "kind": "script", "path": "/repo/examples/demo.py", "argv": [],
        "label": "examples/demo.py __main__",
    }  # fmt: skip


# An OpenFisca country package: formulas only the framework calls, tested by YAML cases.
COUNTRY = {
    "country/__init__.py": """\
        from openfisca_core.taxbenefitsystems import TaxBenefitSystem
        from country import entities

        class CountryTaxBenefitSystem(TaxBenefitSystem):
            def __init__(self):
                super().__init__(entities.entities)
        """,
    "country/entities.py": "entities = []\n",
    "country/variables/benefits.py": """\
        class pension:
            def formula(person, period, parameters):
                return person("age", period) >= 65
        """,
    "country/parameters/rate.yaml": "values:\n  2020-01-01:\n    value: 1\n",
    "country/tests/benefits/pension.yaml": """\
        - name: a senior
          period: 2024-01
          input:
            age: 70
          output:
            pension: true
        """,
    "country/tests/notes.yaml": "title: not a test\n",
    "tests/test_api.py": "import json\n",
}


def test_an_openfisca_country_package_s_yaml_tests_are_an_entry_point(tmp_path: Path) -> None:
    found = entry_points(project(tmp_path, COUNTRY), {"country.variables.benefits"})
    assert found.entries == [
        EntryPoint("openfisca", "openfisca test (1 YAML paths)",
                   args=("country/tests/benefits/pension.yaml",), module="country"),
    ]  # fmt: skip
    assert found.entries[0].wire("/repo") == {
        "kind": "openfisca", "args": ["country/tests/benefits/pension.yaml"],
        "country": "country", "label": "openfisca test (1 YAML paths)",
    }  # fmt: skip


def test_yaml_tests_run_only_for_a_module_of_the_country_package(tmp_path: Path) -> None:
    files = {**COUNTRY, "other/__init__.py": "", "other/calc.py": "def f(age):\n    return age\n"}
    assert entry_points(project(tmp_path, files), {"other.calc"}).entries == []
    plain = {k: v for k, v in COUNTRY.items() if k != "country/__init__.py"}
    plain["country/__init__.py"] = "class CountryTaxBenefitSystem:\n    pass\n"
    found = entry_points(project(tmp_path / "plain", plain), {"country.variables.benefits"})
    assert found.entries == []


def test_the_policy_may_name_openfisca_test(tmp_path: Path) -> None:
    found = entry_points(
        project(tmp_path, COUNTRY),
        {"country.variables.benefits"},
        [
            "openfisca test --country-package country country/tests",
            "openfisca test -c=country -v country/tests/benefits/pension.yaml",
            "openfisca test --extensions ext country/tests",
            "openfisca serve",
        ],
    )
    assert found.entries == [
        EntryPoint("openfisca", "openfisca test (1 YAML paths)", args=("country/tests",),
                   module="country"),
        EntryPoint("openfisca", "openfisca test (1 YAML paths)",
                   args=("country/tests/benefits/pension.yaml",), module="country"),
    ]  # fmt: skip
    assert len(found.warnings) == 2
    assert "`openfisca test PATHS`" in found.warnings[0]
