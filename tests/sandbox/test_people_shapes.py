"""People as real code holds them (issue "Real repositories 2/2", items 1-3): lists of records
ranked, filtered and indexed; lists of a project's class; accessors `person("age", period)`
and what a call gives back; flags named by a value; functions kept in a class."""

from __future__ import annotations

import pytest
from sandbox_helpers import SANDBOX

from analysis import Engine, FunctionReport
from analysis.sandbox import BwrapExecutor
from config.policy import build_policy

pytestmark = SANDBOX

SOURCE = """
from dataclasses import dataclass
from datetime import date


@dataclass
class Applicant:
    name: str
    age: int
    gender: str
    score: float


def rank(candidates):
    return sorted(candidates, key=lambda c: c["score"] - (5 if c["age"] > 50 else 0))


def rank_fairly(candidates):
    ranked = sorted(candidates, key=lambda c: c["score"])
    return [(c["name"], c["age"]) for c in ranked]


def top_pick(applicants: list[Applicant]) -> str:
    best = max(applicants, key=lambda a: a.score + (1 if a.gender == "male" else 0))
    return best.name


def first_in_line(queue):
    return "priority" if queue[0]["age"] > 70 else "normal"


def everyone(household):
    return [member for member in household]


class pension:
    label = "state pension"

    def formula(person, period, parameters):
        return person("age", period) >= parameters(period).general.age_of_retirement


class allowance:
    def formula(household, period, parameters):
        return household("rent", period) * parameters(period).benefits.rate


def rate(is_female: bool, base: float) -> float:
    return base * (0.9 if is_female else 1.0)


def rate_named(isMale, base):
    if isMale:
        return base
    return base * 0.9


def create_data_point(age, height):
    return {"age": round(age, 4), "height": height}


def decimal_age(birth_date: date, observation_date: date) -> float:
    return (observation_date - birth_date).days / 365.25


def age_factor(birth_date: date, observation_date: date) -> float:
    return 1.5 if (observation_date - birth_date).days / 365.25 > 60 else 1.0


def greet(gender):
    return "Dear " + ("Sir" if gender == "male" else "Madam")
"""


@pytest.fixture(scope="module")
def reports(
    executor: BwrapExecutor, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, FunctionReport]:
    folder = tmp_path_factory.mktemp("shapes")
    (folder / "shapes.py").write_text(SOURCE)
    engine = Engine(build_policy([]), executor=executor)
    return {f.qualname: f for f in engine.scan_paths([str(folder / "shapes.py")]).functions}


def verdict(report: FunctionReport) -> tuple[str, list[str]]:
    return report.status, report.flagged_attributes


def test_a_ranking_over_records_is_tested_against_a_peer(
    reports: dict[str, FunctionReport],
) -> None:
    assert verdict(reports["rank"]) == ("biased", ["age"])
    finding = reports["rank"].findings[0]
    assert finding.example is not None
    people = finding.example.inputs["candidates"]
    assert isinstance(people, list) and len(people) == 2  # the person tried, and a peer


def test_returning_the_people_in_a_fair_order_is_no_finding(
    reports: dict[str, FunctionReport],
) -> None:
    # The peer's age is echoed too: masked like the tried person's, not a difference.
    assert verdict(reports["rank_fairly"]) == ("clean", [])
    assert verdict(reports["everyone"]) == ("skipped", [])  # reads no one's attribute


def test_items_of_a_list_of_a_project_class_and_by_index(
    reports: dict[str, FunctionReport],
) -> None:
    assert verdict(reports["top_pick"]) == ("biased", ["gender"])
    assert verdict(reports["first_in_line"]) == ("biased", ["age"])


def test_accessors_and_functions_kept_in_a_class(reports: dict[str, FunctionReport]) -> None:
    # OpenFisca's shape: `formula(person, period, parameters)` has no self.
    assert reports["pension.formula"].status == "biased"
    assert "age" in reports["pension.formula"].flagged_attributes
    assert verdict(reports["allowance.formula"]) == ("skipped", [])


def test_a_flag_named_by_a_value_takes_true_and_false(reports: dict[str, FunctionReport]) -> None:
    for name in ("rate", "rate_named"):
        report = reports[name]
        assert verdict(report) == ("biased", ["gender"])
        assert report.findings[0].example is not None
        assert sorted(report.findings[0].example.values) == [False, True]
    assert verdict(reports["greet"]) == ("biased", ["gender"])  # the module's words stay


def test_echoes_rounded_and_conversions_are_not_decisions(
    reports: dict[str, FunctionReport],
) -> None:
    assert verdict(reports["create_data_point"]) == ("clean", [])  # round(age, 4) echoed
    assert verdict(reports["decimal_age"]) == ("clean", [])  # computes the age itself
    assert verdict(reports["age_factor"]) == ("biased", ["age"])  # decides on it
