"""Only real people (issue 10, item 6; issue 24, item 6): a weak word (`region`, `country`,
`location`, `gender`, `degree`) counts only with evidence of a person, a strong one (`sex`,
`ethnicity`, `date_of_birth`) anywhere, `age` unless the code is about infrastructure;
infrastructure idioms are not people; a normalised echo of the protected value is no
difference."""

from __future__ import annotations

import pytest

from analysis import Engine, FunctionReport
from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.shapes import InputModel
from analysis.source.functions import find_function, list_functions
from analysis.source.reading import parse_module
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


class Num2Word_ES:
    # Of a `num2words` language (a `not_people` phrase, in the plural there): the grammatical
    # gender of its words.
    def to_currency(self, val, currency="EUR", gender="o"):
        return f"{val} {currency} ciento{gender}"


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


def model_of(source: str, qualname: str, policy: Policy | None = None) -> InputModel:
    """The inputs of `qualname` as the engine would test them (no sandbox needed)."""
    parsed = parse_module(source, "m.py")
    info = find_function(parsed.tree, qualname)
    assert info is not None
    return InputBuilder(ModuleFacts(parsed.tree), policy or default_policy()).build(info)


def categories_of(source: str, qualname: str, policy: Policy | None = None) -> list[str]:
    """The categories the engine would test in `qualname`."""
    model = model_of(source, qualname, policy)
    return sorted({leaf.category for leaf in model.protected if leaf.category})


@pytest.mark.parametrize(
    "qualname",
    [
        "dump_age",
        "redirect",
        "Changes.add_change",
        "RegionInfo.connect",
        "cache_control",
        "Num2Word_ES.to_currency",
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
    source = (
        "def price(customer, shard_region):\n"
        "    return 2 if shard_region == 'EU' else customer.discount\n"
    )
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
    with pytest.raises(PolicyError, match="people.unless_infrastructure"):
        build_policy([{"people": {"unless_infrastructure": ["agee"]}}])


# Each a module of its own, as in the libraries they come from: a cloud SDK's endpoint rules
# and serialisation, a phone-number library's numbering plans, a numbers-to-words library's
# grammatical gender, a graph library's node degree. None describes a person.
THINGS = {
    "a region matched against partitions": (
        "import re\n"
        "def is_partition_match(region, partition):\n"
        "    matches = re.match(partition['regionRegex'], region) is not None\n"
        "    return region in partition['regions'] or matches\n"
    ),
    "a serialisation location": (
        "def is_json_value_header(shape):\n"
        "    return (\n"
        "        shape.serialization.get('jsonvalue', False)\n"
        "        and shape.serialization.get('location') == 'header'\n"
        "    )\n"
    ),
    "a phone number's region and country codes": (
        "CALLING_CODES = {'US': 1, 'GB': 44, 'DE': 49}\n"
        "def country_code_for_region(region_code):\n"
        "    return CALLING_CODES.get(region_code.upper(), 0)\n"
        "def dialling_prefix(region_dialing_from, country_code):\n"
        "    same = CALLING_CODES.get(region_dialing_from) == country_code\n"
        "    return '' if same else '00'\n"
    ),
    "a numeral's grammatical gender": (
        "ONES = {1: ('odin', 'odna'), 2: ('dva', 'dve')}\n"
        "def to_cardinal(number, gender='m'):\n"
        "    return ONES[number][1 if gender == 'f' else 0]\n"
    ),
    "a graph node's degree": (
        "def regular_graph_exists(n, degree):\n    return n * degree % 2 == 0 and degree < n\n"
    ),
    "a state machine's state": (
        "TRANSITIONS = {'idle': {'go': 'running'}}\n"
        "def transition(state, event):\n"
        "    return TRANSITIONS.get(state, {}).get(event, state)\n"
        "def feasible(node, graph_params, state_params):\n"
        "    return node in graph_params and node not in state_params\n"
    ),
    "a number's country code beside a user's formats and a candidate match": (
        "def format_by_pattern(numobj, number_format, user_defined_formats):\n"
        "    prefix = '+%d ' % numobj.country_code if numobj.country_code != 1 else ''\n"
        "    return prefix + user_defined_formats.get(number_format, '')\n"
        "def verify(numobj, candidate):\n"
        "    return str(numobj.country_code) in candidate\n"
    ),
}


@pytest.mark.parametrize("source", THINGS.values(), ids=list(THINGS))
def test_weak_words_that_describe_no_person_are_not_protected(source: str) -> None:
    parsed = parse_module(source, "m.py")
    for info in list_functions(parsed.tree):
        assert categories_of(source, info.qualname) == [], info.qualname


# Weak words beside evidence of a person, each a module of its own.
WEAK_WITH_A_PERSON = {
    "a strong word beside it": ("def quote(sex, region):\n    return (sex, region)\n", "quote"),
    "a person's field beside it": (
        "def estimate_premium(data):\n"
        "    if data['smoker'] and data['region'] == 'southeast':\n"
        "        return 50.0\n"
        "    return 0.0\n",
        "estimate_premium",
    ),
    "compared with a person's value": (
        "def rural_bonus(region):\n    return 0.1 if region == 'rural' else 0.0\n",
        "rural_bonus",
    ),
    "a module about people": (
        "def ethnic_weight(ethnicity):\n    return 1.0 if ethnicity else 0.5\n"
        "RATES = {'EU': 1.2}\n"
        "def rate(region):\n    return RATES.get(region, 1.0)\n",
        "rate",
    ),
    "a US state beside a person's income": (
        "NO_INCOME_TAX = {'TX', 'FL', 'WA'}\n"
        "def state_income_tax(income, state):\n"
        "    return 0.0 if state in NO_INCOME_TAX else income * 0.05\n",
        "state_income_tax",
    ),
    "a person's field in the module's prose": (
        "def hra_exemption(basic, hra_received, rent_paid, metro=True):\n"
        "    \"\"\"basic: the monthly basic salary.\"\"\"\n"
        "    share = 0.5 if metro else 0.4\n"
        "    return min(hra_received, basic * share, rent_paid - basic / 10)\n",
        "hra_exemption",
    ),
    "a person's name on its function": (
        "def passenger_fare(country, fare):\n    return fare * (2 if country == 'X' else 1)\n",
        "passenger_fare",
    ),
}


@pytest.mark.parametrize(
    ("source", "qualname"), WEAK_WITH_A_PERSON.values(), ids=list(WEAK_WITH_A_PERSON)
)
def test_weak_words_count_with_evidence_of_a_person(source: str, qualname: str) -> None:
    assert "region" in categories_of(source, qualname)


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ("user_agent, region", []),  # a marker before another word names that thing
        ("member_shapes, location", []),
        ("main_applicant, region", ["region"]),  # a marker as the last word is a person
        ("customer_id, country", ["region"]),  # or followed by what holds one
        ("user, location", ["region"]),
    ],
)
def test_a_marker_names_a_person_as_the_last_word_of_a_name(
    params: str, expected: list[str]
) -> None:
    first, second = params.split(", ")
    source = f"def f({params}):\n    return {first} if {second} == 'X' else None\n"
    assert categories_of(source, "f") == expected


def test_strong_words_count_even_beside_infrastructure() -> None:
    source = (
        "def cached_discount(date_of_birth, ttl):\n"
        "    return ttl if date_of_birth.year < 1960 else 0\n"
    )
    assert categories_of(source, "cached_discount") == ["age"]


def test_a_number_named_for_a_quantity_about_an_attribute_is_not_the_attribute() -> None:
    # `row['region_risk_score']` was varied as the person's region with values [2, "urban"].
    source = (
        "def risk(applicant):\n"
        "    points = 2 if applicant['region_risk_score'] > 1 else 0\n"
        "    if applicant['gender_factor'] * 3 > 2:\n"
        "        points += 1\n"
        "    return points + (1 if applicant['sex_code'] == 1 else 0)\n"
    )
    protected = model_of(source, "risk").protected
    assert [(leaf.display, leaf.category) for leaf in protected] == [
        ("applicant['sex_code']", "gender")
    ]


def test_the_policy_names_what_people_have() -> None:
    source = "def fee(member_record):\n    return 2 if member_record['region'] == 'X' else 1\n"
    assert categories_of(source, "fee") == ["region"]  # `member`: a marker
    source = "def fee(record):\n    return 2 if record['region'] == 'X' else record['dues']\n"
    assert categories_of(source, "fee") == []
    policy = build_policy([{"people": {"fields": ["dues"]}}])
    assert categories_of(source, "fee", policy) == ["region"]
    assert "income" in policy.people.fields  # the built-in fields stay


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


@pytest.mark.sandbox
@pytest.mark.parametrize("source", THINGS.values(), ids=list(THINGS))
def test_names_that_describe_no_person_are_no_finding(source: str) -> None:
    for report in ENGINE.scan_source(source, "things.py"):
        assert report.status == "skipped", (report.qualname, report.status, report.findings)
