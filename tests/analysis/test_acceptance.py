"""Accepting findings as people write it (`# codebias: ignore`, `allow:`), and a word for every
accepting line that can never match: the real engine, real sandbox, real policy layers."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis import Engine
from analysis.report import ScanReport
from analysis.search.acceptance import resolve
from config.policy import build_policy, parse_layer

AGE_RULE = "    if age > 60:\n        return False\n    return income > 30000\n"


def scan(
    tmp_path: Path,
    source: str,
    policy_yaml: str = "",
    diff: str | None = None,
    folder: bool = False,
) -> ScanReport:
    """pricing.py, named on its own (or its whole folder)."""
    file = tmp_path / "pricing.py"
    file.write_text(source)
    policy = build_policy([parse_layer(policy_yaml, "test policy")])
    return Engine(policy).scan_paths([str(tmp_path if folder else file)], diff_text=diff)


def only(report: ScanReport) -> tuple[str, list[str], list[str]]:
    (fn,) = report.functions
    return fn.status, [a.finding.attribute for a in fn.accepted], [a.reason for a in fn.accepted]


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        # The documented form, on the def line.
        ("def approve(age, income):  # codebias: ignore[age] statutory limit\n", "statutory limit"),
        # Without a category: every attribute of this function.
        ("def approve(age, income):  # codebias: ignore statutory limit\n", "statutory limit"),
        # A synonym names its category.
        ("def approve(age, income):  # codebias: ignore[years old] statutory\n", "statutory"),
        # On the line above the def, and above its decorators.
        ("# codebias: ignore[age] reviewed\ndef approve(age, income):\n", "reviewed"),
        (
            "import functools\n\n\n# codebias: ignore[age]: reviewed\n@functools.lru_cache\n"
            "def approve(age, income):\n",
            "reviewed",
        ),
        # On the closing line of a multi-line signature, or on any line of it.
        (
            "def approve(\n    age: int,\n    income: float,\n"
            ") -> bool:  # codebias: ignore[age] ok\n",
            "ok",
        ),
        ("def approve(\n    age: int,  # codebias: ignore[age] ok\n    income: float,\n):\n", "ok"),
        # Comment lines between the signature and the first statement.
        ("def approve(age, income):\n    # codebias: ignore[age] reviewed\n", "reviewed"),
        # Loose spellings of the marker, and no reason at all.
        ("def approve(age, income):  #CodeBias:ignore[AGE]\n", "accepted in the code"),
        ("def approve(age, income):  # codebias ignore[age] - reviewed\n", "reviewed"),
    ],
)
def test_ignore_comments_are_accepted_where_people_put_them(
    tmp_path: Path, source: str, reason: str
) -> None:
    report = scan(tmp_path, source + AGE_RULE)
    assert only(report) == ("clean", ["age"], [reason])
    assert report.functions[0].shown_status == "accepted"
    assert report.functions[0].accepted[0].source == "code"
    assert report.warnings == []


def test_ignore_with_a_parameter_name_resolves_to_its_category(tmp_path: Path) -> None:
    source = (
        "def premium(sex, base):  # codebias: ignore[sex] actuarial table\n"
        "    return base * (1.2 if sex == 'male' else 1.0)\n"
    )
    report = scan(tmp_path, source)
    assert only(report) == ("clean", ["gender"], ["actuarial table"])


def test_ignore_of_another_category_leaves_the_finding_standing(tmp_path: Path) -> None:
    source = "def approve(age, income):  # codebias: ignore[gender] n/a\n" + AGE_RULE
    report = scan(tmp_path, source)
    assert only(report) == ("biased", [], [])
    # approve has no gender input at all: the comment can never accept anything.
    assert report.warnings == [
        f"{tmp_path / 'pricing.py'}:1: ignore[gender]: approve has no gender input, so it "
        "accepts nothing"
    ]


@pytest.mark.parametrize(
    ("source", "warning"),
    [
        (
            "def approve(age, income):  # codebias: ignore[agee] typo\n" + AGE_RULE,
            "pricing.py:1: ignore[agee]: 'agee' is no protected category or synonym "
            "(did you mean 'age'?), so it accepts nothing",
        ),
        (
            "def approve(age, income):\n    x = 1\n    # codebias: ignore[age] too late\n"
            + AGE_RULE,
            "pricing.py:3: this `# codebias: ignore` is on no function's signature",
        ),
        (
            "def approve(age, income):\n" + AGE_RULE + "# codebias: ignore[age] below\n",
            "pricing.py:5: this `# codebias: ignore` is on no function's signature",
        ),
        (
            "def approve(age, income):  # codebias: skip[age]\n" + AGE_RULE,
            "pricing.py:1: '# codebias: skip[age]' is not understood",
        ),
    ],
)
def test_what_cannot_match_stays_biased_and_is_named(
    tmp_path: Path, source: str, warning: str
) -> None:
    report = scan(tmp_path, source)
    assert only(report)[0] == "biased"
    assert any(warning in w for w in report.warnings), report.warnings


ALLOW = "allow:\n  - function: {function!r}\n    attribute: {attribute}\n    reason: reviewed\n"
# Every category is on by default: an allow entry or a name meets one switched off here.
RELIGION_OFF = "protected:\n  religion:\n    enabled: false\n"


@pytest.mark.parametrize(
    ("function", "attribute"),
    [
        ("approve", "age"),
        ("pricing.approve", "age"),
        ("pricing.*", "age"),
        ("pricing.py::approve", "age"),  # the form `codebias fix` takes
        ("pricing:approve", "age"),
        ("approve", "dob"),  # a synonym
        ("approve", "'*'"),
    ],
)
def test_allow_entries_match_in_every_natural_form(
    tmp_path: Path, function: str, attribute: str
) -> None:
    report = scan(
        tmp_path,
        "def approve(age, income):\n" + AGE_RULE,
        ALLOW.format(function=function, attribute=attribute),
    )
    assert only(report) == ("clean", ["age"], ["reviewed"])
    assert report.functions[0].accepted[0].source == "policy"
    assert report.warnings == []


@pytest.mark.parametrize(
    ("function", "attribute", "warning"),
    [
        (
            "approve",
            "agee",
            "allow entry 1 (function 'approve'): attribute 'agee' is no protected category "
            "or synonym (did you mean 'age'?), so it accepts nothing",
        ),
        (
            "approve",
            "religion",
            "allow entry 1 (function 'approve'): attribute 'religion' is switched off",
        ),
        (
            "pricing.aprove",
            "age",
            "allow entry 1 (function 'pricing.aprove'): no scanned function matches it",
        ),
        (
            "other.py::approve",
            "age",
            "allow entry 1 (function 'other.py::approve'): no scanned function matches it",
        ),
    ],
)
def test_allow_entries_that_cannot_match_are_named(
    tmp_path: Path, function: str, attribute: str, warning: str
) -> None:
    report = scan(
        tmp_path,
        "def approve(age, income):\n" + AGE_RULE,
        RELIGION_OFF + ALLOW.format(function=function, attribute=attribute),
        folder=True,
    )
    assert only(report)[0] == "biased"
    assert any(w.startswith(warning) for w in report.warnings), report.warnings


@pytest.mark.parametrize(
    ("function", "warned"),
    [
        ("pricing.aprove", True),  # about pricing.py, which was tested whole
        ("pricing.*", False),  # matches approve
        ("other.py::approve", False),  # about a file this scan did not read
        ("other.approve", False),
        ("*.aprove", False),  # a glob in the module's place names no file in particular
        ("aprove", False),
    ],
)
def test_a_scan_of_named_files_names_only_entries_about_them(
    tmp_path: Path, function: str, warned: bool
) -> None:
    allow = ALLOW.format(function=function, attribute="age")
    report = scan(tmp_path, "def approve(age, income):\n" + AGE_RULE, allow)
    assert bool(report.warnings) is warned, report.warnings


def test_a_diff_scan_does_not_call_unseen_allow_entries_missing(tmp_path: Path) -> None:
    source = "def approve(age, income):\n" + AGE_RULE + "\n\ndef other(x):\n    return x\n"
    diff = "--- a/pricing.py\n+++ b/pricing.py\n@@ -7,1 +7,1 @@\n-    return 0\n+    return x\n"
    report = scan(tmp_path, source, ALLOW.format(function="approve", attribute="age"), diff)
    assert [f.qualname for f in report.functions] == ["other"]
    assert report.warnings == []


@pytest.mark.parametrize(
    ("written", "category", "problem"),
    [
        ("age", "age", None),
        ("Sex", "gender", None),
        ("applicant_ethnicity", "race", None),
        ("*", "*", None),
        ("all", "*", None),
        ("faith", "religion", "switched off"),  # a synonym of a category switched off
        ("agee", None, "did you mean 'age'?"),
        ("income", None, "no protected category"),
    ],
)
def test_names_resolve_to_categories(
    written: str, category: str | None, problem: str | None
) -> None:
    resolved = resolve(build_policy([parse_layer(RELIGION_OFF, "test policy")]), written)
    assert resolved.category == category
    assert (resolved.problem is None) if problem is None else (problem in (resolved.problem or ""))
