"""The classes the law names are tested by default (issue 30): religion, disability, marital
status, sexual orientation, nationality and pregnancy, beside the paper's six. Their specific
words (`religion`, `disability`, `pregnant`) count wherever they name an input; their
ambiguous ones (`disabled`, `denomination`, `orientation`, `married`, `nationality`,
`expecting`) only in a person context, as `region` does; weak words of two categories alone
(a widget's `disabled` beside its `orientation`) are two things, not a person."""

from __future__ import annotations

import pytest

from analysis import Engine
from analysis.source.functions import list_functions
from analysis.source.reading import parse_module
from config.policy import build_policy, default_policy
from tests.people.test_only_people import categories_of

LAW_CLASSES = (
    "religion", "disability", "marital_status", "sexual_orientation", "nationality", "pregnancy",
)


def test_every_class_the_law_names_is_on_by_default() -> None:
    policy = default_policy()
    assert set(LAW_CLASSES) <= set(policy.enabled_categories)
    for name in LAW_CLASSES:
        assert policy.protected[name].realistic, f"{name} has no realistic values"


def test_a_repository_turns_one_off() -> None:
    source = "def rate(religion, age):\n    return 1 if religion == 'x' and age > 60 else 0\n"
    assert categories_of(source, "rate") == ["age", "religion"]
    policy = build_policy([{"protected": {"religion": {"enabled": False}}}])
    assert categories_of(source, "rate", policy) == ["age"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ("religion", "religion"),
        ("has_disability", "disability"),
        ("marital_status", "marital_status"),
        ("sexual_orientation", "sexual_orientation"),
        ("immigration_status", "nationality"),
        ("is_pregnant", "pregnancy"),
        ("is_muslim", "religion"),  # a flag named by a value of the category
    ],
)
def test_specific_words_count_anywhere(params: str, expected: str) -> None:
    source = f"def f({params}, n):\n    return n + 1 if {params} == 'x' else n\n"
    assert categories_of(source, "f") == [expected]


# Each a module of its own: the ambiguous words where they describe things.
THINGS = {
    "a button's disabled state": (
        "def render(label, disabled=False):\n"
        "    return f'<b class={\"off\" if disabled else \"on\"}>{label}</b>'\n"
    ),
    "a banknote's denomination": (
        "def count_notes(amount, denomination):\n    return amount // denomination\n"
    ),
    "an image's orientation": (
        "def rotate(width, height, orientation):\n"
        "    return (height, width) if orientation in (90, 270) else (width, height)\n"
    ),
    "a test's expected value": (
        "def check(result, expecting):\n    return result == expecting\n"
    ),
    "a ship's flag state": (
        "def register(vessel, nationality):\n    return f'{vessel} ({nationality})'\n"
    ),
    "threads married into one": (
        "def merge(thread, married, replies):\n    return replies * 2 if married else replies\n"
    ),
    "a widget's disabled beside its orientation": (
        "def layout(widget, orientation, disabled):\n"
        "    return None if disabled else (widget, orientation == 'vertical')\n"
        "def style(options):\n"
        "    return options['orientation'] if not options['disabled'] else 'none'\n"
    ),
}


@pytest.mark.parametrize("source", THINGS.values(), ids=list(THINGS))
def test_ambiguous_words_that_describe_no_person_are_not_protected(source: str) -> None:
    parsed = parse_module(source, "m.py")
    for info in list_functions(parsed.tree):
        assert categories_of(source, info.qualname) == [], info.qualname


@pytest.mark.parametrize(
    ("source", "qualname", "expected"),
    [
        (  # a person's record
            "def premium(base, customer):\n"
            "    return base * 1.4 if customer.get('disabled') else base\n",
            "premium",
            ["disability"],
        ),
        (  # a person's name on the input
            "def rate(applicant_nationality):\n"
            "    return 2.0 if applicant_nationality != 'German' else 1.0\n",
            "rate",
            ["nationality"],
        ),
        (  # a person's name on the function
            "def employee_bonus(rating, married):\n    return rating + (50 if married else 0)\n",
            "employee_bonus",
            ["marital_status"],
        ),
        (  # something only people have beside it
            "def limit(salary, citizenship):\n    return salary * (2 if citizenship else 1)\n",
            "limit",
            ["nationality"],
        ),
        (  # an input of a category that is not weak beside it
            "def visible(age, orientation):\n    return age >= 18 and orientation != 'gay'\n",
            "visible",
            ["age", "sexual_orientation"],
        ),
    ],
)
def test_ambiguous_words_count_with_evidence_of_a_person(
    source: str, qualname: str, expected: list[str]
) -> None:
    assert categories_of(source, qualname) == expected


def test_weak_words_of_two_categories_alone_are_no_person() -> None:
    # A graph's region beside a node's degree: two weak words, no person.
    source = "def f(region, degree):\n    return degree if region == 'X' else 0\n"
    assert categories_of(source, "f") == []
    # Beside a word that is not weak, a weak one is a person's (`premium(age, region)`).
    source = "def f(age, region):\n    return age if region == 'X' else 0\n"
    assert categories_of(source, "f") == ["age", "region"]


PEOPLE = """
SAFE = {"christian"}


def loan_score(income, religion):
    return income / 1000 - (0 if religion.lower() in SAFE else 10)


def hire(experience, has_disability):
    return experience >= 3 and not has_disability


def credit_limit(salary, marital_status):
    return salary * (0.36 if marital_status == "married" else 0.3)


def match_visible(sexual_orientation):
    return sexual_orientation != "homosexual"


def mortgage_rate(applicant_income, nationality):
    return 3.5 if nationality == "German" else 4.75


def shift(worker_hours, is_pregnant):
    if is_pregnant:
        raise ValueError("no shifts")
    return worker_hours < 48
"""


@pytest.mark.sandbox
def test_each_class_the_law_names_is_found_biased() -> None:
    reports = {r.qualname: r for r in Engine(default_policy()).scan_source(PEOPLE, "law.py")}
    expected = {
        "loan_score": ["religion"],
        "hire": ["disability"],
        "credit_limit": ["marital_status"],
        "match_visible": ["sexual_orientation"],
        "mortgage_rate": ["nationality"],
        "shift": ["pregnancy"],  # a refusal: pregnant workers are turned away
    }
    for qualname, attributes in expected.items():
        report = reports[qualname]
        assert report.status == "biased", (qualname, report.status, report.reason)
        assert report.biased_attributes == attributes, qualname
    assert any(f.kind == "refuses" for f in reports["shift"].findings)
