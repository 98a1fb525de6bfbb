"""Only real people (issue 10, item 6): weak categories (region, location, nationality,
age-like names) count only in a person context; infrastructure idioms are not people; a
normalised echo of the protected value is no difference."""

from __future__ import annotations

import pytest

from analysis import Engine, FunctionReport
from analysis.builder import InputBuilder
from analysis.functions import find_function
from analysis.hints import ModuleFacts
from analysis.source import parse_module
from config.policy import Policy, PolicyError, build_policy, default_policy

ENGINE = Engine(default_policy())

INFRASTRUCTURE = """
from datetime import timedelta


def dump_age(age: timedelta | int | None) -> str | None:
    if age is None:
        return None
    if isinstance(age, timedelta):
        age = int(age.total_seconds())
    return str(age) if age > 0 else "0"


def redirect(location, code=302):
    if location.startswith("/"):
        return (code, {"Location": "https://example.com" + location})
    return (code, {"Location": location})


class Changes:
    def add_change(self, action, name, type, ttl=600, identifier=None, weight=None,
                   region=None, alias_hosted_zone_id=None, health_check=None):
        change = {"action": action, "name": name, "ttl": ttl}
        if region is not None:
            change["Region"] = region
            change["SetIdentifier"] = identifier
        if weight:
            change["Weight"] = weight
        return change


class RegionInfo:
    def __init__(self, connection=None, name=None, endpoint=None):
        self.name = name
        self.endpoint = endpoint

    def connect(self, region):
        return region.endpoint if region.name == "us-east-1" else None


def cache_control(max_age=None):
    return f"max-age={max_age}" if max_age else "no-cache"


def policy_age_days(policy):
    return (policy.expires - policy.created) // 86400 if policy.age > 10 else 0


def set_headers(response, age, location):
    if age > 60:
        response["Age"] = str(age)
    return response


def file_is_stale(path, age):
    return age > 3600
"""

PEOPLE = """
def premium(age, region):
    rate = 100 + (50 if age > 60 else 0)
    return rate * (1.2 if region == "urban" else 1.0)


def ship(customer):
    if customer.region == "EU":
        return 5
    return 10


def loan(applicant_age):
    return applicant_age < 65


def discount(user, location):
    return 0.1 if location == "rural" else 0.0


def triage(patient):
    return "urgent" if patient["age"] > 70 else "normal"


def greet(name, gender, age):
    return f"Dear {name}" if age > 30 else f"Hi {name}"
"""

ECHOES = """
def sex_label(row):
    return str(row["sex"]).strip().lower()


def shout(gender):
    return gender.upper()


def titled(gender, name):
    return {"name": name, "gender": gender.title()}
"""


def categories_of(source: str, qualname: str, policy: Policy | None = None) -> list[str]:
    """The categories the engine would test in `qualname` (no sandbox needed)."""
    parsed = parse_module(source, "m.py")
    info = find_function(parsed.tree, qualname)
    assert info is not None
    model = InputBuilder(ModuleFacts(parsed.tree), policy or default_policy()).build(info)
    return sorted({leaf.category for leaf in model.protected if leaf.category})


@pytest.mark.parametrize(
    "qualname",
    [
        "dump_age",
        "redirect",
        "Changes.add_change",
        "RegionInfo.connect",
        "cache_control",
        "policy_age_days",
        "set_headers",
        "file_is_stale",
    ],
)
def test_infrastructure_names_are_not_people(qualname: str) -> None:
    assert categories_of(INFRASTRUCTURE, qualname) == []


@pytest.mark.parametrize(
    ("qualname", "expected"),
    [
        ("premium", ["age", "region"]),
        ("ship", ["region"]),
        ("loan", ["age"]),
        ("discount", ["region"]),
        ("triage", ["age"]),
        ("greet", ["age", "gender"]),
    ],
)
def test_people_are_still_people(qualname: str, expected: list[str]) -> None:
    assert categories_of(PEOPLE, qualname) == expected


def test_the_policy_adds_person_markers() -> None:
    source = "def quote(voyager, region, cache):\n    return 2 if region == 'EU' else cache\n"
    assert categories_of(source, "quote") == []
    policy = build_policy([{"people": {"markers": ["voyager"]}}])
    assert categories_of(source, "quote", policy) == ["region"]
    # The built-in markers stay: a policy adds to them.
    assert "customer" in policy.people.markers


def test_the_policy_adds_non_person_patterns() -> None:
    source = "def price(shard_region):\n    return 2 if shard_region == 'EU' else 1\n"
    assert categories_of(source, "price") == ["region"]
    policy = build_policy([{"people": {"not_people": ["shard"]}}])
    assert categories_of(source, "price", policy) == []


def test_the_policy_can_make_every_category_strong() -> None:
    source = "def fee(region, ttl):\n    return 2 if region == 'EU' else ttl\n"
    assert categories_of(source, "fee") == []
    policy = build_policy([{"people": {"weak": []}}])
    assert categories_of(source, "fee", policy) == ["region"]


def test_an_unknown_weak_category_in_the_policy_is_an_error() -> None:
    with pytest.raises(PolicyError, match="people.weak"):
        build_policy([{"people": {"weak": ["regoin"]}}])


@pytest.mark.sandbox
@pytest.mark.parametrize("qualname", ["sex_label", "shout", "titled"])
def test_a_normalised_echo_is_no_difference(qualname: str) -> None:
    report: FunctionReport = ENGINE.scan_function(ECHOES, "echo.py", qualname)
    assert report.status == "clean", report.findings


@pytest.mark.sandbox
def test_people_in_weak_categories_are_still_found_biased() -> None:
    for qualname, attributes in [("premium", ["age", "region"]), ("ship", ["region"]),
                                 ("loan", ["age"])]:  # fmt: skip
        report = ENGINE.scan_function(PEOPLE, "people.py", qualname)
        assert report.status == "biased"
        assert report.biased_attributes == attributes
