"""The fix loop end to end: real SDK clients, scripted servers, the real engine and sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from analysis import Engine
from analysis.mitigation import Provider, mitigate
from analysis.mitigation.prompts import render_case
from bot.llm import provider_from_env
from config.policy import default_policy

PATH = "loans.py"
SOURCE = '''"""Loan rules."""

LIMIT = 30000


def approve(age: int, income: float) -> bool:
    if age > 60:
        return False
    return income > LIMIT


def fee(amount: float) -> float:
    return amount * 0.01
'''
GOOD = """def approve(age: int, income: float) -> bool:
    return income > LIMIT
"""
STILL_BIASED = """def approve(age: int, income: float) -> bool:
    if age > 75:
        return False
    return income > LIMIT
"""
RAISES_FOR_OLD = """def approve(age: int, income: float) -> bool:
    if age > 60:
        raise ValueError("applicant too old")
    return income > LIMIT
"""
ALWAYS_RAISES = """def approve(age: int, income: float) -> bool:
    raise RuntimeError("not implemented")
"""


def fenced(code: str) -> str:
    return f"Step 1: the age check is the bias.\n\n```python\n{code}```\n"


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    yield Engine(default_policy())  # the default executor: the bubblewrap sandbox


def provider_for(server: Any, server_env: Any, **env: str) -> Provider:
    provider = provider_from_env(default_policy(), server_env(server, **env))
    assert provider is not None
    return provider


def test_good_fix_is_accepted_with_patch_agreement_and_tokens(
    engine: Engine, llm_server: Any, server_env: Any
) -> None:
    llm_server.answer(fenced(GOOD), prompt_tokens=800, completion_tokens=200)
    result = mitigate(engine, SOURCE, PATH, "approve", provider_for(llm_server, server_env))
    assert result.status == "fixed", result.note
    assert (result.attempts, result.before, result.after) == (1, ["age"], [])
    assert result.tokens == {"prompt": 800, "completion": 200}
    assert result.new_function_source == GOOD
    assert result.new_module_source == SOURCE.replace(
        "    if age > 60:\n        return False\n", ""
    )
    assert result.patch is not None and result.patch.startswith("--- a/loans.py\n+++ b/loans.py\n")
    assert "-    if age > 60:\n" in result.patch
    assert result.agreement is not None and 0.0 <= result.agreement <= 1.0
    # The first request already carried the counterexample our tests found.
    assert result.report is not None
    assert render_case(result.report.findings[0]) in llm_server.conversation(0)


def test_still_biased_fix_is_fed_back_and_rejected_after_n_rounds(
    engine: Engine, llm_server: Any, server_env: Any
) -> None:
    for _ in range(3):
        llm_server.answer(fenced(STILL_BIASED))
    result = mitigate(
        engine, SOURCE, PATH, "approve", provider_for(llm_server, server_env), max_rounds=3
    )
    assert result.status == "not_fixed"
    assert result.attempts == 3 and len(llm_server.requests) == 3
    assert result.after == ["age"]
    assert result.patch is None and result.new_module_source is None
    assert "still biased for age" in (result.note or "")
    # Each later request carries the counterexample found in the model's own last answer.
    retest = engine.scan_function(SOURCE.replace("age > 60", "age > 75"), PATH, "approve")
    expected = render_case(retest.findings[0])
    assert "age = 60 gives" not in expected  # it is the new witness, not the original one
    for index in (1, 2):
        assert "still biased" in llm_server.last_user_message(index)
        assert expected in llm_server.last_user_message(index)
        assert STILL_BIASED.strip() in llm_server.conversation(index)  # its own answer


def test_second_round_fix_is_accepted(engine: Engine, openai_server: Any, server_env: Any) -> None:
    openai_server.answer(fenced(STILL_BIASED), prompt_tokens=100, completion_tokens=10)
    openai_server.answer(fenced(GOOD), prompt_tokens=150, completion_tokens=12)
    result = mitigate(engine, SOURCE, PATH, "approve", provider_for(openai_server, server_env))
    assert result.status == "fixed"
    assert result.attempts == 2
    assert [a.outcome for a in result.history] == ["biased", "accepted"]
    assert result.tokens == {"prompt": 250, "completion": 22}


REJECTIONS = [
    (
        "changed signature",
        fenced("def approve(income: float) -> bool:\n    return income > LIMIT\n"),
        "the signature changed",
    ),
    (
        "does not parse",
        fenced("def approve(age: int, income: float) -> bool:\n    return (income >\n"),
        "does not parse",
    ),
    ("prose only", "You should simply stop looking at the applicant's age.", "only prose"),
    ("raises on every call", fenced(ALWAYS_RAISES), "could not be run"),
]


@pytest.mark.parametrize(
    ("answer", "reason"), [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS]
)
def test_unusable_answer_is_rejected_with_a_clear_reason(
    engine: Engine, anthropic_server: Any, server_env: Any, answer: str, reason: str
) -> None:
    anthropic_server.answer(answer)
    anthropic_server.answer(answer)
    result = mitigate(
        engine, SOURCE, PATH, "approve", provider_for(anthropic_server, server_env), max_rounds=2
    )
    assert result.status == "not_fixed"
    assert reason in (result.note or "")
    assert all(a.outcome in ("rejected", "untestable") for a in result.history)
    # The model is told why, so that it can do better.
    assert "could not use your answer" in anthropic_server.last_user_message(1)
    assert reason in anthropic_server.last_user_message(1)


@pytest.mark.parametrize("status", [500, 429])
def test_provider_outage_gives_a_note_and_keeps_the_findings(
    engine: Engine, llm_server: Any, server_env: Any, status: int
) -> None:
    llm_server.fail(status, times=3)
    result = mitigate(engine, SOURCE, PATH, "approve", provider_for(llm_server, server_env))
    assert result.status == "error"
    assert "could not be reached" in (result.note or "")
    assert "after 2 retries" in (result.note or "")
    assert result.before == ["age"]
    assert [f.attribute for f in result.findings] == ["age"]
    assert result.to_dict("loans.py::approve")["findings"][0]["example"]["values"] == [60, 61]


def test_provider_timeout_gives_a_note(engine: Engine, openai_server: Any, server_env: Any) -> None:
    openai_server.hang(10, times=2)
    provider = provider_for(
        openai_server, server_env, CODEBIAS_LLM_TIMEOUT="0.3", CODEBIAS_LLM_MAX_RETRIES="1"
    )
    result = mitigate(engine, SOURCE, PATH, "approve", provider)
    assert result.status == "error"
    assert "timeout" in (result.note or "") and "0.3s" in (result.note or "")
    assert result.findings


def test_no_provider_reports_the_findings_and_asks_nothing(engine: Engine) -> None:
    result = mitigate(engine, SOURCE, PATH, "approve", None)
    assert result.status == "not_fixed"
    assert result.attempts == 0
    assert result.before == result.after == ["age"]
    assert result.findings and result.note


def test_clean_function_needs_no_model(engine: Engine, openai_server: Any, server_env: Any) -> None:
    source = "def fee(amount: float, age: int) -> float:\n    return amount * 0.01\n"
    result = mitigate(engine, source, PATH, "fee", provider_for(openai_server, server_env))
    assert result.status == "clean"
    assert openai_server.requests == []


def test_strategy_without_feedback_makes_one_attempt(
    engine: Engine, openai_server: Any, server_env: Any
) -> None:
    openai_server.answer(fenced(STILL_BIASED))
    result = mitigate(
        engine,
        SOURCE,
        PATH,
        "approve",
        provider_for(openai_server, server_env),
        strategy="few-shot",
        max_rounds=3,
    )
    assert result.status == "not_fixed"
    assert result.attempts == 1 and len(openai_server.requests) == 1
    assert "age = 60 gives" not in openai_server.conversation(0)
    assert "feedback-cot does" in (result.note or "")


def test_method_is_fixed_inside_its_class(
    engine: Engine, openai_server: Any, server_env: Any
) -> None:
    source = """class Screener:
    def __init__(self) -> None:
        self.bar = 3

    def assess(self, gender: str, experience: int) -> bool:
        if gender == "female":
            return experience >= self.bar + 2
        return experience >= self.bar
"""
    openai_server.answer(
        "```python\ndef assess(self, gender: str, experience: int) -> bool:\n"
        "    return experience >= self.bar\n```"
    )
    result = mitigate(
        engine, source, "screen.py", "Screener.assess", provider_for(openai_server, server_env)
    )
    assert result.status == "fixed", result.note
    assert result.new_module_source is not None
    assert (
        "    def assess(self, gender: str, experience: int) -> bool:\n"
        "        return experience >= self.bar\n" in result.new_module_source
    )


def test_fix_that_raises_instead_of_refusing_is_still_biased(
    engine: Engine, openai_server: Any, server_env: Any
) -> None:
    openai_server.answer(fenced(RAISES_FOR_OLD))
    openai_server.answer(fenced(GOOD))
    result = mitigate(engine, SOURCE, PATH, "approve", provider_for(openai_server, server_env))
    assert result.status == "fixed" and result.attempts == 2
    assert result.history[0].outcome == "biased"
    assert result.new_function_source == GOOD
    # The model is shown that its version refuses some ages (kind `refuses`, as in a scan).
    assert "raises ValueError: applicant too old" in openai_server.last_user_message(1)
    retest = engine.scan_function(SOURCE.replace("return False", 'raise ValueError("x")'),
                                  PATH, "approve")  # fmt: skip
    assert retest.findings[0].kind == "refuses"


def test_fix_carries_a_suggestion_for_the_functions_lines(
    engine: Engine, openai_server: Any, server_env: Any
) -> None:
    openai_server.answer(fenced(GOOD))
    result = mitigate(engine, SOURCE, PATH, "approve", provider_for(openai_server, server_env))
    assert result.status == "fixed"
    assert result.span == (6, 9)
    lines = SOURCE.splitlines(keepends=True)
    assert "".join(lines[:5]) + (result.suggestion or "") + "".join(lines[9:]) == (
        result.new_module_source
    )


RECORD_SOURCE = """def premium(applicant):
    base = applicant["claims"] * 100
    if applicant["gender"] == "male":
        base += 50
    return base
"""
RECORD_FIX = """def premium(applicant):
    base = applicant["claims"] * 100
    return base
"""


def test_a_fix_that_stops_reading_the_protected_field_is_accepted(
    engine: Engine, llm_server: Any, server_env: Any
) -> None:
    # The fixed record no longer carries a gender at all: the re-test finds no protected
    # input ("skipped"), which is exactly what a bias-free version looks like.
    llm_server.answer(fenced(RECORD_FIX))
    result = mitigate(
        engine, RECORD_SOURCE, "premiums.py", "premium", provider_for(llm_server, server_env)
    )
    assert result.status == "fixed", result.note
    assert (result.before, result.after) == (["gender"], [])
    assert result.agreement is not None and result.agreement > 0.5
