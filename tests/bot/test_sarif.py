"""SARIF for code scanning: one result per finding, its rule named by the attribute.

Code scanning groups and dismisses alerts by `ruleId`, and tracks one alert across pushes
by its fingerprint: a rule named after the function (or anything but the attribute) would
make a new rule per function and lose every dismissal. Checked on a report built by hand,
against the SARIF 2.1.0 schema in schemas/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from analysis.report import Accepted, Example, Finding, FunctionReport, ScanReport
from bot.render.sarif import render_sarif

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((ROOT / "schemas/sarif-2.1.0.json").read_text())


def report() -> ScanReport:
    premium = FunctionReport("pricing/rates.py", "Rates.premium", 10, 20, "biased")
    premium.findings = [
        Finding("age", "age", Example({"age": 30, "base": 1}, [30, 70], ["1", "2"]), line=12),
        Finding("gender", "person['sex']", Example({"person": {}}, ["f", "m"], ["1", "2"]), 14),
    ]
    legacy = FunctionReport("legacy.py", "score", 3, 9, "unverified", "static")
    legacy.findings = [Finding("race", "race", None, 5, "static")]
    legacy.reason = "needs vendor_sdk, which cannot be imported here"
    senior = FunctionReport("pricing/rates.py", "senior_discount", 30, 33, "clean")
    senior.accepted = [
        Accepted(Finding("age", "age", Example({"age": 1}, [64, 65], ["0", "5"]), 31), "statute")
    ]
    return ScanReport([premium, legacy, senior])


def results() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    sarif = json.loads(render_sarif(report()))
    jsonschema.validate(sarif, SARIF_SCHEMA)
    (run,) = sarif["runs"]
    return run["tool"]["driver"]["rules"], run["results"]


def test_the_rule_of_each_result_is_named_by_its_attribute_not_its_function() -> None:
    _, found = results()
    assert [r["ruleId"] for r in found] == [
        "codebias/age",
        "codebias/gender",
        "codebias/race",
        "codebias/age",
    ]


def test_rules_are_one_per_attribute_and_each_result_points_at_its_own() -> None:
    rules, found = results()
    assert [r["id"] for r in rules] == ["codebias/age", "codebias/gender", "codebias/race"]
    for item in found:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]


def test_the_function_is_the_logical_location_and_the_finding_line_the_region() -> None:
    _, found = results()
    where = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        )
        for r in found
    ]
    assert where == [
        ("pricing/rates.py", 12, "Rates.premium"),
        ("pricing/rates.py", 14, "Rates.premium"),
        ("legacy.py", 5, "score"),
        ("pricing/rates.py", 31, "senior_discount"),
    ]


def test_proven_bias_is_an_error_a_static_finding_a_warning() -> None:
    _, found = results()
    assert [(r["level"], r["properties"]["method"]) for r in found] == [
        ("error", "dynamic"),
        ("error", "dynamic"),
        ("warning", "static"),
        ("error", "dynamic"),
    ]


def test_an_accepted_finding_is_a_suppressed_result_with_its_reason() -> None:
    _, found = results()
    assert [r.get("suppressions") for r in found] == [
        None,
        None,
        None,
        [{"kind": "inSource", "justification": "statute"}],
    ]


def test_the_fingerprint_is_stable_per_function_and_attribute() -> None:
    _, found = results()
    assert [r["partialFingerprints"]["codebias/v1"] for r in found] == [
        "pricing/rates.py::Rates.premium::age",
        "pricing/rates.py::Rates.premium::gender",
        "legacy.py::score::race",
        "pricing/rates.py::senior_discount::age",
    ]
    assert render_sarif(report()) == render_sarif(report())


def test_the_message_carries_the_counterexample() -> None:
    _, found = results()
    text = found[0]["message"]["text"]
    assert "Rates.premium" in text and "from 30 to 70" in text and "from 1 to 2" in text
