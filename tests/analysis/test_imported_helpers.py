"""A function imported from another module of the project brings the helpers of its own
module along (analysis/facts/exports.py `Exports.helpers`): what they read and compare the
caller's input with is what the caller's input is."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis import Engine
from config.policy import default_policy

ENGINE = Engine(default_policy())

CALLER = (
    "from .rules import scored_rule\n\n\n"
    "def scored(base, person):\n"
    "    return scored_rule(base, person)\n"
)


def verdict(tmp_path: Path, rules: str, caller: str = CALLER) -> tuple[str, list[str]]:
    package = tmp_path / "pricing"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text(rules)
    (package / "caller.py").write_text(caller)
    scan = ENGINE.scan_paths([str(package)])
    report = next(f for f in scan.functions if f.qualname == "scored")
    return report.status, report.biased_attributes


@pytest.mark.sandbox
def test_the_imported_function_hands_the_record_to_a_helper_of_its_module(tmp_path: Path) -> None:
    # `scored` never reads `person`: the keys are read two modules and one helper away.
    rules = (
        "def _factor(person):\n"
        "    return 3 if person['age'] >= 65 else 0\n\n\n"
        "def scored_rule(base, person):\n"
        "    return base + _factor(person)\n"
    )
    assert verdict(tmp_path, rules) == ("biased", ["age"])


@pytest.mark.sandbox
def test_a_weak_word_is_a_persons_by_what_the_helper_compares_it_with(tmp_path: Path) -> None:
    # A zip code is a person's only by `v == "rural"`, written in the helper of rules.py.
    rules = (
        "def _weight(v):\n"
        "    return 3 if v == 'rural' else 0\n\n\n"
        "def scored_rule(base, person):\n"
        "    return base + _weight(person['zip_code'])\n"
    )
    assert verdict(tmp_path, rules) == ("biased", ["region"])


@pytest.mark.sandbox
def test_so_does_a_function_reached_through_its_module(tmp_path: Path) -> None:
    # `import pricing.rules as rules` then `rules.scored_rule(...)`.
    rules = (
        "def _factor(person):\n"
        "    return 3 if person['sex'] == 'female' else 0\n\n\n"
        "def scored_rule(base, person):\n"
        "    return base + _factor(person)\n"
    )
    caller = (
        "import pricing.rules as rules\n\n\n"
        "def scored(base, person):\n"
        "    return rules.scored_rule(base, person)\n"
    )
    assert verdict(tmp_path, rules, caller) == ("biased", ["gender"])
