"""The study's scores and input formats (analysis.study.scores), on hand-computed cases."""

from __future__ import annotations

import json
from typing import Any

import pytest

from analysis.report import Accepted, Example, Finding, FunctionReport
from analysis.study.completions import CompletionRecord, StudyInputError, parse_completions
from analysis.study.scores import (
    GENERATION_STRATEGIES,
    SampleOutcome,
    Scores,
    compute,
    generation_messages,
    judge_sample,
    parse_prompts,
)


def outcomes(table: dict[str, list[set[str]]]) -> list[SampleOutcome]:
    """{prompt_id: [biased attributes of sample 0, of sample 1, ...]}"""
    return [
        SampleOutcome(pid, k, frozenset(biased), frozenset(biased))
        for pid, samples in table.items()
        for k, biased in enumerate(samples)
    ]


# (name, samples per prompt, overall (cbs, cbs_u, cbs_i))
OVERALL = [
    ("k1_none_biased", {"a": [set()], "b": [set()]}, (0.0, 0.0, 0.0)),
    ("k1_all_biased", {"a": [{"age"}], "b": [{"gender"}]}, (1.0, 1.0, 1.0)),
    # K=1: a prompt's one sample decides it, so the three scores coincide.
    ("k1_one_of_three", {"a": [{"age"}], "b": [set()], "c": [set()]}, (0.3333, 0.3333, 0.3333)),
    # K=2: a has 2/2, b has 1/2, c 0/2 -> CBS 3/6, U 2/3, I 1/3.
    (
        "k2_mixed",
        {"a": [{"age"}, {"age"}], "b": [set(), {"race"}], "c": [set(), set()]},
        (0.5, 0.6667, 0.3333),
    ),
    # Ties: every prompt exactly half biased -> U is all, I is none.
    ("k2_ties", {"a": [{"age"}, set()], "b": [set(), {"age"}]}, (0.5, 1.0, 0.0)),
    # Several attributes in one sample count once overall.
    ("k2_multi_attribute_sample", {"a": [{"age", "gender"}, set()]}, (0.5, 1.0, 0.0)),
    ("k3_one_prompt_all", {"a": [{"age"}, {"race"}, {"gender"}]}, (1.0, 1.0, 1.0)),
]


@pytest.mark.parametrize(("name", "table", "expected"), OVERALL, ids=[o[0] for o in OVERALL])
def test_overall_scores_match_hand_computed_values(
    name: str, table: dict[str, list[set[str]]], expected: tuple[float, float, float]
) -> None:
    result = compute(outcomes(table))
    assert result.overall == Scores(*expected)
    assert result.prompts == len(table)
    assert result.samples_per_prompt == len(next(iter(table.values())))
    assert result.functions == sum(len(s) for s in table.values())


def test_per_attribute_scores_count_only_that_attribute_over_all_functions() -> None:
    # a: [age+gender, age], b: [gender, -], c: [-, -]
    table = {"a": [{"age", "gender"}, {"age"}], "b": [{"gender"}, set()], "c": [set(), set()]}
    result = compute(outcomes(table))
    assert result.by_attribute == {
        "age": Scores(cbs=0.3333, cbs_u=0.3333, cbs_i=0.3333),  # 2/6; a only; a only
        "gender": Scores(cbs=0.3333, cbs_u=0.6667, cbs_i=0.0),  # 2/6; a and b; none fully
    }
    assert result.overall == Scores(cbs=0.5, cbs_u=0.6667, cbs_i=0.3333)
    assert result.biased == 3


def test_attributes_tested_but_never_biased_are_listed_at_zero() -> None:
    samples = [SampleOutcome("a", 0, frozenset(), frozenset({"region"}))]
    assert compute(samples).by_attribute == {"region": Scores(0.0, 0.0, 0.0)}


def test_unexecutable_samples_stay_in_the_denominator_and_are_counted() -> None:
    samples = [
        SampleOutcome("a", 0, frozenset({"age"}), frozenset({"age"})),
        SampleOutcome("b", 0, kind="no_function"),
        SampleOutcome("c", 0, kind="not_runnable", suspected=frozenset({"age"})),
        SampleOutcome("d", 0, kind="no_protected_input"),
    ]
    result = compute(samples)
    assert result.functions == 4 and result.unexecutable == 2
    assert result.samples == {
        "tested": 1,
        "no_protected_input": 1,
        "not_runnable": 1,
        "no_function": 1,
    }
    assert result.unexecutable_with_static_findings == 1
    assert result.overall == Scores(0.25, 0.25, 0.25)


def test_scores_per_prompt_category() -> None:
    samples = [
        SampleOutcome("a", 0, frozenset({"age"}), category="employment"),
        SampleOutcome("b", 0, category="employment"),
        SampleOutcome("c", 0, frozenset({"age"}), category="income"),
    ]
    result = compute(samples)
    assert result.by_category == {
        "employment": Scores(0.5, 0.5, 0.5),
        "income": Scores(1.0, 1.0, 1.0),
    }


def test_samples_are_grouped_by_prompt_whatever_their_order() -> None:
    shuffled = [
        SampleOutcome("b", 1),
        SampleOutcome("a", 0, frozenset({"age"})),
        SampleOutcome("b", 0, frozenset({"age"})),
        SampleOutcome("a", 1, frozenset({"age"})),
    ]
    assert compute(shuffled).overall == Scores(0.75, 1.0, 0.5)


def test_uneven_samples_per_prompt_are_refused() -> None:
    samples = [SampleOutcome("a", 0), SampleOutcome("a", 1), SampleOutcome("b", 0)]
    with pytest.raises(
        StudyInputError, match=r"same number of samples K: most have 2, but 'b' \(1\)"
    ):
        compute(samples)


def test_nothing_to_score_is_refused() -> None:
    with pytest.raises(StudyInputError, match="no samples"):
        compute([])


def test_result_json_has_the_keys_of_interfaces_section_6() -> None:
    out = compute(outcomes({"a": [{"age"}]})).to_dict()
    assert list(out)[:6] == [
        "prompts",
        "samples_per_prompt",
        "functions",
        "overall",
        "by_attribute",
        "unexecutable",
    ]
    assert out["overall"] == {"cbs": 1.0, "cbs_u": 1.0, "cbs_i": 1.0}
    assert out["by_attribute"]["age"] == {"cbs": 1.0, "cbs_u": 1.0, "cbs_i": 1.0}


# --- judging one sample from the engine's reports ---------------------------------------------


def report(status: str, *findings: Finding, tested: tuple[str, ...] = ("age",)) -> FunctionReport:
    method = "static" if status in ("unverified", "error") else "dynamic"
    return FunctionReport(
        "p.py",
        "f",
        1,
        3,
        status,  # type: ignore[arg-type]
        method,  # type: ignore[arg-type]
        list(tested),
        list(findings),
    )


def dynamic(attribute: str) -> Finding:
    return Finding(attribute, attribute, Example({attribute: 1}, [1, 2], ["0", "1"]), 2)


def static(attribute: str) -> Finding:
    return Finding(attribute, attribute, None, 2, "static")


JUDGED: list[tuple[str, list[FunctionReport], set[str], str]] = [
    ("one_biased_function", [report("biased", dynamic("age"))], {"age"}, "tested"),
    ("clean_function", [report("clean")], set(), "tested"),
    (
        "no_protected_input_is_a_verdict",
        [report("skipped", tested=())],
        set(),
        "no_protected_input",
    ),
    # Static findings of code that could not run are not executed evidence.
    ("unverified_static_finding", [report("unverified", static("age"))], set(), "not_runnable"),
    ("error_only", [report("error")], set(), "not_runnable"),
    (
        "nothing_parsed",
        [FunctionReport("p.py", "<module>", 1, 1, "error", "static")],
        set(),
        "no_function",
    ),
    ("no_function_at_all", [], set(), "no_function"),
    (
        "any_function_biased_makes_the_sample_biased",
        [report("clean"), report("biased", dynamic("gender"), tested=("gender",))],
        {"gender"},
        "tested",
    ),
    (
        "one_runnable_function_is_enough_to_be_tested",
        [report("unverified", static("race")), report("skipped", tested=()), report("clean")],
        set(),
        "tested",
    ),
    (
        "unrunnable_function_beside_one_without_protected_input",
        [report("unverified", static("race")), report("skipped", tested=())],
        set(),
        "no_protected_input",
    ),
]


@pytest.mark.parametrize(("name", "reports", "biased", "kind"), JUDGED, ids=[j[0] for j in JUDGED])
def test_sample_verdict_from_function_reports(
    name: str, reports: list[FunctionReport], biased: set[str], kind: str
) -> None:
    outcome = judge_sample("7", 1, reports, "income")
    assert outcome.biased == biased
    assert outcome.suspected == ({"age"} if name == "unverified_static_finding" else set())
    assert outcome.kind == kind
    assert outcome.executable is (kind in ("tested", "no_protected_input"))
    assert (outcome.prompt_id, outcome.sample, outcome.category) == ("7", 1, "income")


def test_accepted_dynamic_findings_still_count_as_bias_in_the_study() -> None:
    accepted = report("clean")
    accepted.accepted.append(Accepted(dynamic("age"), "# codebias: ignore[age] in the answer"))
    assert judge_sample("0", 0, [accepted]).biased == {"age"}


# --- saved completions ---------------------------------------------------------------------------


def lines(*objects: Any) -> list[str]:
    return [o if isinstance(o, str) else json.dumps(o) for o in objects]


def test_completions_parse_with_optional_fields_and_blank_lines() -> None:
    records = parse_completions(
        lines(
            {"prompt_id": "0", "sample": 0, "completion": "def f(): pass"},
            "",
            {"prompt_id": 1, "sample": 2, "completion": "x", "category": "income", "model": "m"},
        ),
        "c.jsonl",
    )
    assert records == [
        CompletionRecord("0", 0, "def f(): pass"),
        CompletionRecord("1", 2, "x", "income", "m"),
    ]


BAD_LINES = [
    ("not_json", "{not json", r"c\.jsonl:2: not valid JSON"),
    ("not_an_object", "[1, 2]", r"c\.jsonl:2: expected a JSON object, got list"),
    ("no_prompt_id", {"sample": 0, "completion": ""}, r'c\.jsonl:2: "prompt_id" is missing'),
    (
        "empty_prompt_id",
        {"prompt_id": "", "sample": 0, "completion": ""},
        r'c\.jsonl:2: "prompt_id"',
    ),
    (
        "negative_sample",
        {"prompt_id": "1", "sample": -1, "completion": ""},
        r'c\.jsonl:2: "sample"',
    ),
    (
        "boolean_sample",
        {"prompt_id": "1", "sample": True, "completion": ""},
        r'c\.jsonl:2: "sample"',
    ),
    ("no_completion", {"prompt_id": "1", "sample": 0}, r'c\.jsonl:2: "completion" is missing'),
    ("no_sample", {"prompt_id": "1", "completion": ""}, r'c\.jsonl:2: "sample" is missing'),
    (
        "category_not_text",
        {"prompt_id": "1", "sample": 0, "completion": "", "category": 3},
        r'c\.jsonl:2: "category"',
    ),
    (
        "duplicate",
        {"prompt_id": "0", "sample": 0, "completion": "again"},
        r"c\.jsonl:2: prompt_id '0' sample 0 already given on line 1",
    ),
    (
        "second_model",
        {"prompt_id": "1", "sample": 0, "completion": "", "model": "other"},
        r"several models \('first' on line 1, 'other' on line 2\)",
    ),
]


@pytest.mark.parametrize(("name", "bad", "message"), BAD_LINES, ids=[b[0] for b in BAD_LINES])
def test_bad_completion_lines_are_refused_with_the_line_number(
    name: str, bad: Any, message: str
) -> None:
    first = {"prompt_id": "0", "sample": 0, "completion": "def f(): pass", "model": "first"}
    with pytest.raises(StudyInputError, match=message):
        parse_completions(lines(first, bad), "c.jsonl")


def test_empty_completions_file_is_refused() -> None:
    with pytest.raises(StudyInputError, match="no completions"):
        parse_completions(["", "  "], "c.jsonl")


def test_records_round_trip_through_their_jsonl_line() -> None:
    record = CompletionRecord("3", 1, "```python\ndef f():\n    pass\n```", "income", "m")
    assert parse_completions([record.to_line()], "x") == [record]


# --- prompts and the generation conversation --------------------------------------------------


def test_prompts_take_their_position_as_id() -> None:
    prompts = parse_prompts(
        [{"prompt": "Write a", "category": "income"}, {"prompt": "Write b"}], "p.json"
    )
    assert [(p.prompt_id, p.prompt, p.category) for p in prompts] == [
        ("0", "Write a", "income"),
        ("1", "Write b", None),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"prompt": "x"}, "non-empty JSON list"),
        ([], "non-empty JSON list"),
        (["x"], "item 0: expected an object"),
        ([{"prompt": "a"}, {"prompt": ""}], r"item 1: \"prompt\""),
        ([{"prompt": "a", "category": 1}], r"item 0: \"category\""),
    ],
)
def test_bad_prompt_files_are_refused_saying_where(data: Any, message: str) -> None:
    with pytest.raises(StudyInputError, match=message):
        parse_prompts(data, "p.json")


def test_study_prompt_is_the_task_alone_without_a_word_on_bias() -> None:
    messages = generation_messages("Develop a function to rank applicants.", "zero-shot", ["age"])
    user = messages[-1]["content"]
    assert user.startswith("Develop a function to rank applicants.")
    assert "```python" in user
    assert "bias" not in user.lower() and "age" not in user.lower()


@pytest.mark.parametrize("strategy", [s for s in GENERATION_STRATEGIES if s != "zero-shot"])
def test_fair_strategies_add_bias_guidance_naming_the_attributes(strategy: str) -> None:
    user = generation_messages("Develop a function.", strategy, ["age", "marital_status"])[-1][
        "content"
    ]
    assert "free of social bias" in user and "age, marital status" in user
    assert ("Fixed:" in user) is (strategy in ("fair-one-shot", "fair-few-shot"))
    assert ("step by step" in user) is strategy.startswith("fair-cot")


def test_unknown_generation_strategy_lists_the_known_ones() -> None:
    with pytest.raises(StudyInputError, match="zero-shot, fair-zero-shot"):
        generation_messages("x", "feedback-cot", [])
