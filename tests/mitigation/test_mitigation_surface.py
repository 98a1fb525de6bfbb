"""The public surface of the mitigation packages, and the direction of dependencies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import analysis.mitigation
import bot.llm

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("module", [analysis.mitigation, bot.llm], ids=lambda m: m.__name__)
def test_every_exported_name_exists(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    for name in names:
        assert hasattr(module, name), name


def test_engine_side_imports_no_sdk_and_nothing_of_bot() -> None:
    code = (
        "import sys, analysis.mitigation; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'anthropic', 'bot')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_selecting_no_provider_imports_no_sdk() -> None:
    code = (
        "import sys; from bot.llm import provider_from_env; from config.policy import "
        "default_policy; assert provider_from_env(default_policy(), {}) is None; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'anthropic')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
