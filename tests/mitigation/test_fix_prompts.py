"""Each strategy's prompt says what it must, and nothing it must not."""

from __future__ import annotations

import pytest

from analysis.mitigation import STRATEGIES, UnknownStrategy, get_strategy
from analysis.mitigation.prompts import (
    SHOTS,
    feedback_message,
    initial_messages,
    rejection_message,
)
from analysis.report import Example, Finding

FUNCTION = """def assess(applicant):
    if applicant["age"] > 60:
        return False
    return applicant["experience"] >= 3
"""
FINDINGS = [
    Finding(
        "age",
        "applicant['age']",
        Example({"applicant": {"age": 60, "experience": 3}}, [60, 61], ["True", "False"]),
        line=2,
    ),
    Finding("marital_status", "applicant['married']", None, line=7, method="static"),
]


def conversation(name: str) -> tuple[str, str]:
    messages = initial_messages(
        get_strategy(name),
        function_source=FUNCTION,
        qualname="assess",
        path="pkg/hiring.py",
        attributes=["age", "gender"],
        findings=FINDINGS,
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    return messages[0]["content"], messages[1]["content"]


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_prompt_states_the_task_and_the_answer_format(name: str) -> None:
    system, user = conversation(name)
    assert "age and gender" in system
    assert FUNCTION.rstrip() in user
    assert "`assess`" in user and "pkg/hiring.py" in user
    assert "every parameter" in user  # keep the signature
    assert "```python" in user  # how to answer


# How the first finding's counterexample must read: inputs, protected values, outputs.
CASE_PARTS = ['"age": 60', '"experience": 3', "age = 60 gives True", "age = 61 gives False"]


@pytest.mark.parametrize("name", sorted(n for n, s in STRATEGIES.items() if s.feedback))
def test_feedback_prompts_carry_the_counterexamples(name: str) -> None:
    _, user = conversation(name)
    for part in CASE_PARTS:
        assert part in user
    assert "applicant['age']" in user  # how the function receives the attribute
    # A static finding has no example, but its attribute and line are still named.
    assert "marital status" in user or "marital_status" in user
    assert "line 7" in user


@pytest.mark.parametrize("name", sorted(n for n, s in STRATEGIES.items() if not s.feedback))
def test_prompts_without_feedback_do_not_leak_test_results(name: str) -> None:
    _, user = conversation(name)
    assert "gives True" not in user
    assert "applicant['age']" not in user


EXPECTED = [
    ("zero-shot", ["influence the result"], ["Biased (", "step by step"]),
    ("one-shot", ["an example", "approve_loan"], ["starting_salary", "step by step"]),
    (
        "few-shot",
        ["examples", "approve_loan", "starting_salary", "rank_candidate"],
        ["step by step"],
    ),
    ("cot1", ["step by step"], ["Biased (", "1. Say what"]),
    (
        "cot2",
        ["step by step", "1. Say what", "4. Check that no other behaviour changed"],
        ["Biased ("],
    ),
    ("feedback-zero-shot", ["influence the result", "found it biased"], ["step by step"]),
    ("feedback-one-shot", ["approve_loan", "found it biased"], ["starting_salary"]),
    ("feedback-few-shot", ["rank_candidate", "found it biased"], ["step by step"]),
    ("feedback-cot1", ["step by step", "found it biased"], ["1. Say what"]),
    ("feedback-cot2", ["1. Say what", "found it biased"], ["Biased ("]),
    ("feedback-cot", ["1. Say what", "found it biased"], ["Biased ("]),
]


@pytest.mark.parametrize(("name", "must", "must_not"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_strategy_specific_guidance(name: str, must: list[str], must_not: list[str]) -> None:
    _, user = conversation(name)
    for text in must:
        assert text in user
    for text in must_not:
        assert text not in user


def test_every_strategy_has_an_expectation_and_the_default_uses_feedback() -> None:
    assert {e[0] for e in EXPECTED} == set(STRATEGIES)
    assert get_strategy("feedback-cot").feedback


def test_shot_examples_are_python_that_parses() -> None:
    import ast

    for _, before, after in SHOTS:
        ast.parse(before)
        ast.parse(after)


def test_feedback_after_a_round_names_the_remaining_cases() -> None:
    message = feedback_message("Screener.assess", FINDINGS[:1])
    assert message["role"] == "user"
    text = message["content"]
    assert "still biased" in text and "`assess`" in text
    for part in CASE_PARTS:
        assert part in text


def test_rejection_message_passes_the_reason_on() -> None:
    message = rejection_message("assess", "the code does not parse (line 3: invalid syntax)")
    assert "does not parse (line 3" in message["content"]
    assert "`assess`" in message["content"]


def test_unknown_strategy_lists_the_known_ones() -> None:
    with pytest.raises(UnknownStrategy, match="feedback-cot"):
        get_strategy("telepathy")
