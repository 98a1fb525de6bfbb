"""A best-of pick with a conditional penalty shows its bias (issue 24, item 7).

`max(applicants, key=hiring_score)` where the score takes points off a woman with under three
years of experience: the pick changes only when the candidate is in that state (under three
years) and the peer is close enough to win by the penalty. The inputs of the item that guard
branches are varied for the candidate and for the peer, as a flat function's guarded inputs
are, however the pick is written (`max`, `sorted(...)[0]`, an index, a comprehension), with
the item a dict or a declared dataclass.
"""

from __future__ import annotations

import pytest
from analysis_kit import model_of, verdict

from analysis.search.contexts import contexts
from analysis.shapes import peer_index, peer_path

SCORE = """
def hiring_score(applicant):
    score = applicant["years_experience"] * 10 + applicant["test_score"]
    if applicant["gender"] == "female" and applicant["years_experience"] < 3:
        score -= 25
    return score
"""

PICKS: dict[str, str] = {
    "max(key=)": (
        "def top_candidate(applicants):\n"
        '    return max(applicants, key=hiring_score)["name"]\n'
    ),
    "sorted()[0]": (
        "def top_candidate(applicants):\n"
        '    return sorted(applicants, key=hiring_score, reverse=True)[0]["name"]\n'
    ),
    "an index": (
        "def top_candidate(applicants):\n"
        "    scores = [hiring_score(a) for a in applicants]\n"
        '    return applicants[scores.index(max(scores))]["name"]\n'
    ),
    "a comprehension": (
        "def top_candidate(applicants):\n"
        "    best = max(hiring_score(a) for a in applicants)\n"
        '    return [a["name"] for a in applicants if hiring_score(a) == best][0]\n'
    ),
}

DATACLASS = """
from dataclasses import dataclass


@dataclass
class Applicant:
    name: str
    gender: str
    years_experience: int
    test_score: int


def hiring_score(applicant: Applicant) -> int:
    score = applicant.years_experience * 10 + applicant.test_score
    if applicant.gender == "female" and applicant.years_experience < 3:
        score -= 25
    return score


def top_candidate(applicants: list[Applicant]) -> str:
    return max(applicants, key=hiring_score).name
"""


@pytest.mark.parametrize("pick", PICKS.values(), ids=list(PICKS))
def test_a_best_of_pick_with_a_conditional_penalty_is_biased(pick: str) -> None:
    report = verdict(SCORE + "\n\n" + pick, "top_candidate")
    assert report.status == "biased", (report.status, report.reason, report.executions)
    assert {f.attribute for f in report.findings} == {"gender"}


def test_a_pick_among_declared_records_is_biased() -> None:
    report = verdict(DATACLASS, "top_candidate")
    assert report.status == "biased", (report.status, report.reason, report.executions)
    assert [f.parameter for f in report.findings] == ["applicants[0].gender"]


def test_the_peer_is_tried_in_each_state_its_guarded_inputs_reach() -> None:
    """The peer's `years_experience` takes the code's values (2, 3, 4) as the candidate's
    does, one at a time and beside each of the candidate's."""
    model = model_of(SCORE + "\n\n" + PICKS["max(key=)"], "top_candidate")
    years = next(leaf for leaf in model.leaves if leaf.name == "years_experience")
    own = years.pool[peer_index(years)]  # the peer's value where the context sets none
    tried = [(ctx[years.path], ctx.get(peer_path(years.path), own)) for ctx in contexts(model)]
    assert {peer for _, peer in tried} >= {2, 3, 4}
    assert {(2, 3), (2, 4), (3, 2), (4, 2)} <= set(tried)
