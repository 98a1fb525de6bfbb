"""Fixes without a model, verified as a model's are: the real engine and sandbox re-run the
search on each rewrite and compare its outputs with the original's; with a model configured
(scripted servers), the smaller verified fix is proposed, saying which made it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from analysis import Engine
from analysis.mitigation import mechanical_fix, propose_fix
from bot.llm import provider_from_env
from config.policy import default_policy

PATH = "rules.py"


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    yield Engine(default_policy())  # the default executor: the bubblewrap sandbox


FIXED = [
    (
        "branch",
        """\
def salary_offer(candidate):
    base = 50000
    if candidate["experience"] > 5:
        base += 10000
    if candidate["gender"] == "female":
        base -= 5000
    return base
""",
        "salary_offer",
        "collapse-branch",
        '-    if candidate["gender"] == "female":\n-        base -= 5000\n',
    ),
    (
        "lookup",
        """\
RATES = {"rural": 1.3, "urban": 1.1, "north": 0.9}


def premium(region, coverage):
    return round(RATES.get(region, 1.0) * coverage, 2)
""",
        "premium",
        "neutral-entry",
        "+    return round(1.0 * coverage, 2)\n",
    ),
    (
        "filter",
        """\
def shortlist(candidates):
    return [c["name"] for c in candidates if c["race"] == "White"]
""",
        "shortlist",
        "drop-filter",
        '+    return [c["name"] for c in candidates]\n',
    ),
    (
        "frame",
        """\
import pandas as pd


def working_age(df: pd.DataFrame) -> list:
    return df[df["AGEP"] < 65]["SERIALNO"].tolist()
""",
        "working_age",
        "drop-filter",
        '+    return df["SERIALNO"].tolist()\n',
    ),
    (
        "formula",
        """\
def medical_costs(age, bmi):
    return 2000 + age * 250 + bmi * 100
""",
        "medical_costs",
        "pin-reference",
        "+    return 2000 + 30 * 250 + bmi * 100\n",
    ),
]


@pytest.mark.parametrize(
    ("source", "qualname", "rule", "change"), [f[1:] for f in FIXED], ids=[f[0] for f in FIXED]
)
def test_a_common_form_of_bias_is_fixed_without_a_model(
    engine: Engine, source: str, qualname: str, rule: str, change: str
) -> None:
    result = mechanical_fix(engine, source, PATH, qualname)
    assert result.status == "fixed", result.note
    assert (result.strategy, result.rule, result.attempts) == ("mechanical", rule, 0)
    assert result.after == [] and result.agreement == 1.0
    assert result.patch is not None and change in result.patch
    assert result.note is not None and rule in result.note and "reference group" in result.note
    # What is shown is what was verified: the patched module re-tested anew has no bias.
    assert result.new_module_source is not None
    retest = engine.scan_function(result.new_module_source, PATH, qualname)
    assert retest.is_settled and not retest.is_biased


def test_where_no_rule_applies_it_says_so(engine: Engine) -> None:
    source = """\
def pick(person, field="sex"):
    return 1 if person[field] == "male" else 0
"""
    report = engine.scan_function(source, PATH, "pick")
    if not report.is_biased:
        pytest.skip("the engine does not prove this function biased")
    result = propose_fix(engine, source, PATH, "pick", provider=None, report=report)
    assert result.status == "not_fixed" and result.patch is None
    assert "no mechanical rule applies" in (result.note or "")
    assert "no language model is configured" in (result.note or "")


def test_a_rewrite_that_changes_what_the_attribute_did_not_decide_is_never_shown(
    engine: Engine,
) -> None:
    # The reference group's region is not in the table: its entry would raise for everyone.
    source = """\
TABLE = {"north": 1.2, "south": 0.8}


def factor(region, base):
    return base * TABLE[region]
"""
    result = mechanical_fix(engine, source, PATH, "factor")
    assert result.status == "not_fixed"
    assert result.patch is None and result.new_module_source is None
    assert result.after == ["region"]
    assert "no mechanical fix passed the tests" in (result.note or "")


def test_a_function_with_nothing_to_fix_needs_no_rule(engine: Engine) -> None:
    source = "def fee(amount, age):\n    return amount * 0.01\n"
    result = mechanical_fix(engine, source, PATH, "fee")
    assert result.status == "clean" and result.rule is None


QUOTE = """\
def quote(age, base):
    if age > 60:
        factor = 1.5
    else:
        factor = 1.0
    return base * factor
"""
# Smaller than the rules' fix (which replaces the whole if with `factor = 1.0`): one line.
SMALL_MODEL_FIX = """```python
def quote(age, base):
    if age > 60:
        factor = 1.0
    else:
        factor = 1.0
    return base * factor
```"""
LARGE_MODEL_FIX = """```python
def quote(age, base):
    # Everyone pays the base rate.
    factor = 1.0
    result = base * factor
    return result
```"""


def provider_for(server: Any, server_env: Any) -> Any:
    provider = provider_from_env(default_policy(), server_env(server))
    assert provider is not None
    return provider


def test_with_a_model_the_smaller_verified_fix_is_the_models_when_it_is_smaller(
    engine: Engine, openai_server: Any, server_env: Any
) -> None:
    openai_server.answer(SMALL_MODEL_FIX, prompt_tokens=300, completion_tokens=50)
    result = propose_fix(engine, QUOTE, PATH, "quote", provider_for(openai_server, server_env))
    assert result.status == "fixed", result.note
    assert (result.strategy, result.rule) == ("feedback-cot", None)
    assert result.changed_lines == 2
    assert "smaller than the mechanical one" in (result.note or "")
    assert len(openai_server.requests) == 1


def test_with_a_model_the_rules_fix_is_proposed_when_it_is_smaller_and_the_cost_is_told(
    engine: Engine, openai_server: Any, server_env: Any
) -> None:
    openai_server.answer(LARGE_MODEL_FIX, prompt_tokens=300, completion_tokens=50)
    result = propose_fix(engine, QUOTE, PATH, "quote", provider_for(openai_server, server_env))
    assert result.status == "fixed", result.note
    assert (result.strategy, result.rule) == ("mechanical", "collapse-branch")
    assert result.new_function_source == (
        "def quote(age, base):\n    factor = 1.0\n    return base * factor\n"
    )
    assert result.attempts == 1 and result.tokens == {"prompt": 300, "completion": 50}
    assert "chosen over the model's fix" in (result.note or "")


def test_a_model_that_fails_leaves_the_rules_fix_standing(
    engine: Engine, openai_server: Any, server_env: Any
) -> None:
    openai_server.fail(500, times=4)
    result = propose_fix(engine, QUOTE, PATH, "quote", provider_for(openai_server, server_env))
    assert result.status == "fixed" and result.rule == "collapse-branch"
    assert "the model gave no verified fix" in (result.note or "")


CLOCKED = """\
import time


def triage(age, severity):
    return (age > 70 or severity > 8, time.time())
"""


def test_a_clock_beside_the_decision_is_no_change_of_output(engine: Engine) -> None:
    # The same code agrees with itself on every input, though its clock moves between runs.
    assert engine.agreement(CLOCKED, CLOCKED, PATH, "triage") == 1.0
    result = mechanical_fix(engine, CLOCKED, PATH, "triage")
    assert result.status == "fixed", result.note
    assert result.new_function_source == (
        "def triage(age, severity):\n    return (severity > 8, time.time())\n"
    )


def test_a_rewrite_still_biased_for_another_attribute_is_never_shown(engine: Engine) -> None:
    # The rules fix the gender branch; the age is decided in a helper handed the whole
    # record, which no rule rewrites: the rewrite keeps every output of the reference group,
    # yet is still biased, so it is no fix.
    source = """\
def _senior(person):
    return person["age"] > 60


def offer(person):
    if _senior(person):
        return 0
    return 10 if person["gender"] == "male" else 5
"""
    report = engine.scan_function(source, PATH, "offer")
    assert set(report.biased_attributes) == {"age", "gender"}
    result = mechanical_fix(engine, source, PATH, "offer", report)
    assert result.status == "not_fixed" and result.patch is None
    assert "still biased for age" in (result.note or "")
