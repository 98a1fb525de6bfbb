"""Putting the new function into its module, and a patch that `git apply` takes."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from analysis.mitigation import Candidate
from analysis.mitigation.splice import (
    find_function,
    function_source,
    splice,
    unified_patch,
)

MODULE = '''"""Pricing."""
from __future__ import annotations

import math


def premium(age, base):
    if age > 65:
        return base * 2
    return base


class Quote:
    rate = 1.0

    @staticmethod
    def price(age, base):
        """Price a policy.

        Older people pay more.
        """
        if age > 65:
            return base * 1.5
        return base

    def other(self):
        return 1
'''


def spliced(
    qualname: str, new_function: str, imports: list[str] | None = None, source: str = MODULE
) -> str:
    info = find_function(ast.parse(source), qualname)
    assert info is not None
    return splice(source, info, Candidate(new_function, imports or []))


def test_top_level_function_is_replaced_and_the_rest_kept() -> None:
    out = spliced("premium", "def premium(age, base):\n    return base\n")
    assert "def premium(age, base):\n    return base\n\n\nclass Quote:" in out
    assert out.startswith('"""Pricing."""\nfrom __future__ import annotations\n\nimport math\n')
    assert "def other(self):" in out
    ast.parse(out)


def test_method_is_indented_into_its_class_without_touching_its_docstring() -> None:
    new = (
        '@staticmethod\ndef price(age, base):\n    """Price a policy.\n\n'
        '    Everyone pays the same.\n    """\n    return base\n'
    )
    out = spliced("Quote.price", new)
    tree = ast.parse(out)
    info = find_function(tree, "Quote.price")
    assert info is not None
    assert ast.get_docstring(info.node) == "Price a policy.\n\nEveryone pays the same."
    assert "    @staticmethod\n    def price(age, base):\n" in out
    assert "        return base\n\n    def other(self):" in out


def test_function_source_is_the_definition_at_column_zero() -> None:
    info = find_function(ast.parse(MODULE), "Quote.price")
    assert info is not None
    text = function_source(MODULE, info)
    assert text.startswith("@staticmethod\ndef price(age, base):\n")
    ast.parse(text)


def test_imports_go_after_the_existing_ones() -> None:
    out = spliced("premium", "def premium(age, base):\n    return base\n", ["import statistics"])
    assert "import math\nimport statistics\n" in out
    ast.parse(out)


def test_imports_go_after_docstring_and_future_when_module_has_no_import() -> None:
    source = '"""Doc."""\n\n\ndef f(age):\n    return age > 3\n'
    out = spliced("f", "def f(age):\n    return True\n", ["import os"], source)
    assert out.startswith('"""Doc."""\nimport os\n\n')
    ast.parse(out)


def test_file_without_final_newline_stays_that_way() -> None:
    source = "def f(age):\n    return age > 3"
    assert spliced("f", "def f(age):\n    return True\n", source=source) == (
        "def f(age):\n    return True"
    )


@pytest.mark.parametrize("final_newline", [True, False])
def test_patch_applies_with_git(tmp_path: Path, final_newline: bool) -> None:
    before = MODULE if final_newline else MODULE.rstrip("\n")
    after = spliced("premium", "def premium(age, base):\n    return base\n", source=before)
    patch = unified_patch(before, after, "pkg/pricing.py")
    assert patch.startswith("--- a/pkg/pricing.py\n+++ b/pkg/pricing.py\n@@ ")
    (tmp_path / "pkg").mkdir()
    target = tmp_path / "pkg" / "pricing.py"
    target.write_text(before)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "fix.patch").write_text(patch)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    assert target.read_text() == after


def test_no_change_gives_an_empty_patch() -> None:
    assert unified_patch(MODULE, MODULE, "x.py") == ""
