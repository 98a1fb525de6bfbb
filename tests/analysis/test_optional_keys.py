"""A key read with a default is still an input (issue 24, item 1).

`policy.get("age", 0) > 80` decides as much as `policy["age"] > 80`: the record may lack
the key, but when it holds one the code uses it, so the search varies it. Every way code
reads an optional field (`.get(k, d)`, `getattr(o, k, d)`, `.get` in a helper,
`setdefault`, `.get(k) or d`) gives its leaf, and a record that holds a person's sex
is a person's record whatever it is called: its age is that person's age.
"""

from __future__ import annotations

import pytest
from analysis_kit import model_of, verdict

# The issue's function: an insurance policy record holding the insured's gender and age.
CLAIM_PRIORITY = """
def claim_priority(policy, severity):
    score = severity
    if policy.get("gender") == "male":
        score += 1
    if policy.get("age", 0) > 80:
        score += 2
    return score
"""

# Each way of reading an optional age, in a record beside its gender.
OPTIONAL_READS: dict[str, str] = {
    ".get(k, default)": """
def f(policy, severity):
    bonus = 1 if policy.get("gender") == "male" else 0
    return severity + bonus + (2 if policy.get("age", 0) > 80 else 0)
""",
    "getattr(o, k, default)": """
def f(policy, severity):
    bonus = 1 if getattr(policy, "gender", "") == "male" else 0
    return severity + bonus + (2 if getattr(policy, "age", 0) > 80 else 0)
""",
    ".get in a helper": """
def _age_of(record):
    return record.get("age", 0)


def f(policy, severity):
    bonus = 1 if policy.get("gender") == "male" else 0
    return severity + bonus + (2 if _age_of(policy) > 80 else 0)
""",
    "setdefault, then a read": """
def f(policy, severity):
    policy.setdefault("age", 0)
    bonus = 1 if policy.get("gender") == "male" else 0
    return severity + bonus + (2 if policy["age"] > 80 else 0)
""",
    "the value setdefault gives": """
def f(record, severity):
    age = record.setdefault("age", 0)
    bonus = 1 if record.get("gender") == "male" else 0
    return severity + bonus + (2 if age > 80 else 0)
""",
    "setdefault in a helper": """
def _bonus(rec):
    return (2 if rec.setdefault("age", 0) > 80 else 0) + (1 if rec.get("sex") == "m" else 0)


def f(record, severity):
    return severity + _bonus(record)
""",
    ".get(k) or default": """
def f(policy, severity):
    age = policy.get("age") or 0
    bonus = 1 if policy.get("gender") == "male" else 0
    return severity + bonus + (2 if age > 80 else 0)
""",
}


def test_the_issues_claim_priority_tests_and_proves_the_age_read_with_a_default() -> None:
    report = verdict(CLAIM_PRIORITY, "claim_priority")
    assert report.attributes_tested == ["age", "gender"], (report.status, report.reason)
    assert {f.attribute for f in report.findings} == {"age", "gender"}
    age = next(f for f in report.findings if f.attribute == "age")
    assert age.parameter == "policy['age']"
    assert age.example is not None and 80 in age.example.values


@pytest.mark.parametrize("source", OPTIONAL_READS.values(), ids=list(OPTIONAL_READS))
def test_each_way_of_reading_an_optional_key_is_varied_and_proved(source: str) -> None:
    report = verdict(source)
    assert "age" in report.attributes_tested, (report.attributes_tested, report.reason)
    assert "age" in {f.attribute for f in report.findings}, (report.status, report.reason)


def test_setdefault_reads_the_key_it_sets() -> None:
    model = model_of("def f(record):\n    return record.setdefault('age', 0) > 80\n")
    assert [(x.display, x.category) for x in model.protected] == [("record['age']", "age")]


@pytest.mark.parametrize(
    ("source", "categories"),
    [
        ("def f(policy):\n    return policy.age > 80 or policy.sex == 'm'\n", {"age", "gender"}),
        ("def f(file):\n    return file['age'] > 80 or file['race'] == 'x'\n", {"age", "race"}),
    ],
    ids=["policy", "file"],
)
def test_a_record_holding_a_persons_sex_or_race_is_a_persons_whatever_its_name(
    source: str, categories: set[str]
) -> None:
    assert {x.category for x in model_of(source).protected} == categories


def test_a_policys_age_alone_stays_the_policys() -> None:
    source = "def f(policy):\n    return policy.age > 10\n"
    assert model_of(source).protected == []
