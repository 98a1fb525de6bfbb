"""Import roots and module names, found the way Python tools find them."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.scan.project import Project, package_root


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_regular_package_is_imported_from_the_folder_above_its_topmost_init(
    tmp_path: Path,
) -> None:
    tree(tmp_path, {"app/__init__.py": "", "app/hr/__init__.py": "", "app/hr/pay.py": ""})
    where = Project.discover(tmp_path).locate(tmp_path / "app/hr/pay.py")
    assert where is not None
    assert (where.name, where.root, where.file) == ("app.hr.pay", "", "app/hr/pay.py")


def test_an_init_file_is_its_package(tmp_path: Path) -> None:
    tree(tmp_path, {"app/__init__.py": ""})
    where = Project.discover(tmp_path).locate(tmp_path / "app/__init__.py")
    assert where is not None and (where.name, where.is_package) == ("app", True)


@pytest.mark.parametrize(
    "config,files",
    [
        ("pyproject.toml", '[tool.setuptools.packages.find]\nwhere = ["lib"]\n'),
        ("pyproject.toml", '[tool.setuptools]\npackage-dir = {"" = "lib"}\n'),
        ("pyproject.toml", '[tool.hatch.build.targets.wheel]\npackages = ["lib/ns"]\n'),
        ("pyproject.toml", '[tool.poetry]\npackages = [{include = "ns", from = "lib"}]\n'),
        ("pyproject.toml", '[tool.pdm.build]\npackage-dir = "lib"\n'),
        ("setup.cfg", "[options]\npackage_dir =\n    = lib\n"),
        ("setup.py", "setup(package_dir={'': 'lib'})\n"),
    ],
)
def test_declared_package_folders_are_import_roots(tmp_path: Path, config: str, files: str) -> None:
    # `ns` has no __init__.py: a namespace package, found only through the declared root.
    tree(tmp_path, {config: files, "lib/ns/rules.py": ""})
    project = Project.discover(tmp_path)
    assert project.roots == ("lib", "")
    where = project.locate(tmp_path / "lib/ns/rules.py")
    assert where is not None and (where.name, where.root) == ("ns.rules", "lib")


def test_a_src_layout_is_found_without_configuration(tmp_path: Path) -> None:
    tree(tmp_path, {"src/ns/mod.py": ""})
    where = Project.discover(tmp_path).locate(tmp_path / "src/ns/mod.py")
    assert where is not None and where.name == "ns.mod"


def test_a_loose_script_has_its_own_folder_on_the_path(tmp_path: Path) -> None:
    tree(tmp_path, {"scripts/tool.py": "import helper\n", "scripts/helper.py": ""})
    where = Project.discover(tmp_path).locate(tmp_path / "scripts/tool.py")
    assert where is not None and where.paths[0] == "scripts"


def test_policy_paths_come_first(tmp_path: Path) -> None:
    tree(tmp_path, {"vendorized/x.py": "", "src/y.py": ""})
    assert Project.discover(tmp_path, ["vendorized"]).roots == ("vendorized", "")


def test_names_python_cannot_import_are_not_modules(tmp_path: Path) -> None:
    tree(tmp_path, {"my-script.py": "", "a b/c.py": ""})
    project = Project.discover(tmp_path)
    assert project.locate(tmp_path / "my-script.py") is None
    assert project.locate(tmp_path / "a b/c.py") is None
    assert project.locate(tmp_path.parent / "elsewhere.py") is None


def test_a_file_named_alone_belongs_to_its_package(tmp_path: Path) -> None:
    tree(tmp_path, {"a/__init__.py": "", "a/b/__init__.py": "", "a/b/c.py": "", "loose.py": ""})
    assert package_root(tmp_path / "a/b/c.py") == tmp_path.resolve()
    assert package_root(tmp_path / "loose.py") is None


def test_a_broken_pyproject_is_no_reason_to_fail(tmp_path: Path) -> None:
    tree(tmp_path, {"pyproject.toml": "[tool.setuptools\n", "pkg/__init__.py": ""})
    assert Project.discover(tmp_path).roots == ("",)
