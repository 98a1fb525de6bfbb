"""A parameter whose values are written through a boolean mask holds one value per person: a
pandas Series (akiflagger's creatinine imputation), given to the function as one, or as the
harness's stand-in column where pandas cannot be imported."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from analysis_kit import leaf, model_of, verdict
from harness_kit import InProcessHarness, in_process_harness

from analysis import Engine
from analysis.execution.process import ProcessExecutor
from analysis.shapes import LeafShape, SeriesShape
from config.policy import build_policy

IMPUTE = """
def impute(age, female):
    kappa = 0.9 - 0.2 * female
    alpha = -0.302 + 0.061 * female
    ratio = 75 / (142 * (1 + 0.012 * female) * 0.9938 ** age)
    creat = kappa
    creat[ratio < 1] = kappa * ratio ** (-1 / 1.2)
    creat[ratio >= 1] = kappa * ratio ** (1 / alpha)
    return creat
"""


@pytest.fixture
def h() -> Iterator[InProcessHarness]:
    with in_process_harness() as harness:
        yield harness


def test_values_written_through_a_mask_are_a_series() -> None:
    model = model_of(IMPUTE, "impute")
    assert all(isinstance(p.shape, SeriesShape) for p in model.params)
    assert len(model.params) == 2
    assert leaf(model, "age").category == "age"


def test_a_parameter_named_for_a_value_of_its_category_is_its_flag() -> None:
    """`female` used as a number is 1 for women: True and False, never 'male'."""
    assert leaf(model_of(IMPUTE, "impute"), "female").pool == [True, False]
    documented = (
        "def f(black, age):\n"
        '    """Args:\n        black (int): race of patient, black or not\n    """\n'
        "    return 1.159 * black + age\n"
    )
    assert leaf(model_of(documented), "black").category == "race"
    assert leaf(model_of(documented), "black").pool == [True, False]
    # named like a colour, and nothing says it is a race: no person's attribute
    colour = "def f(black):\n    return 1.159 * black\n"
    assert leaf(model_of(colour), "black").category is None


def test_a_number_that_is_never_masked_stays_a_number() -> None:
    model = model_of("def f(age):\n    return 0.9938 ** age\n")
    assert isinstance(model.params[0].shape, LeafShape)


@pytest.mark.parametrize("stub", [[], ["pandas"]], ids=["pandas", "stand-in"])
def test_the_series_answers_masked_assignment(h: InProcessHarness, stub: list[str]) -> None:
    h.load(IMPUTE, "impute", stub=stub, stub_missing=False)
    series = {"__cb__": "series"}
    outcome = h.call({**series, "values": [30, 30]}, {**series, "values": [True, False]})
    assert outcome["ok"], outcome
    rows = eval(outcome["repr"])  # a list from pandas, {row: value} from the stand-in
    woman, man = rows.values() if isinstance(rows, dict) else rows
    assert (round(woman, 4), round(man, 4)) == (1.0302, 1.3114)


def test_the_imputation_is_biased_for_age_and_sex_without_pandas() -> None:
    policy = build_policy([{"python": {"stub": ["pandas"]}}])
    with Engine(policy, executor=ProcessExecutor()) as engine:
        report = engine.scan_function("import pandas as pd\n" + IMPUTE, "aki.py", "impute")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"age", "gender"}


def test_the_imputation_is_biased_with_pandas() -> None:
    report = verdict(IMPUTE, "impute")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"age", "gender"}


def test_a_position_written_is_no_mask() -> None:
    """`slots[n - 1] = age`: a list written at a position, not a column by a test."""
    model = model_of("def f(n, age, slots):\n    slots[n - 1] = age\n    return slots\n")
    assert not any(isinstance(p.shape, SeriesShape) for p in model.params)
