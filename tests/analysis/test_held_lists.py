"""People inside a record: a household's members, a file's people. The items of a list a
record holds are records of the fields read of them, in a loop over it, through a local,
or one taken by position (analysis/facts/item_reads.py `held_item_accesses`)."""

from __future__ import annotations

import pytest
from analysis_kit import verdict

HOUSEHOLDS = """\
def children_allowance(household):
    total = 0.0
    for member in household["members"]:
        if member["age"] < 18:
            total += 100
    return total


def pensioners(household):
    members = household["members"]
    return len([m for m in members if m["age"] >= 65])


def head_allowance(household):
    head = household.members[0]
    return 200 if head.sex == "female" else 100


def women_named(data):
    return [p["name"] for p in data["people"] if p["gender"] == "female"]


def sizes(household):
    return len(household["members"])
"""


@pytest.mark.parametrize(
    ("qualname", "category"),
    [("children_allowance", "age"), ("pensioners", "age"), ("head_allowance", "gender"),
     ("women_named", "gender")],
)  # fmt: skip
def test_a_person_inside_a_list_a_record_holds_is_varied(qualname: str, category: str) -> None:
    report = verdict(HOUSEHOLDS, qualname)
    assert report.status == "biased", report.reason
    assert report.biased_attributes == [category]


def test_a_list_whose_items_are_never_read_holds_no_one() -> None:
    assert not verdict(HOUSEHOLDS, "sizes").findings
