"""`codebias scan` of an OpenFisca country package, end to end (analysis/evidence/openfisca.py):
its formulas are methods of `Variable` classes that only the framework calls, with a
population, a period and the parameters tree; the package's YAML test runs through
openfisca_core's own runner while recording, the formula's call is recorded, the age its
population answers is flipped inside it, and the finding names the YAML case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openfisca_country import write_country

from bot.cli import main

SOURCE = "country/tests/pension.yaml::a retired couple"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("openfisca_core")
    root = write_country(tmp_path_factory.mktemp("openfisca") / "repo")
    (root / ".git").mkdir()
    return root


def test_a_formula_is_proved_biased_from_its_yaml_case(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    code = main(["scan", str(repo / "country"), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    (fn,) = [f for f in report["functions"] if f["qualname"] == "state_pension.formula"]
    assert fn["status"] == "biased", fn
    assert code == 1
    finding = next(f for f in fn["findings"] if f["attribute"] == "age")
    example = finding["example"]
    assert example["source"] == SOURCE
    assert example["outputs"][0] != example["outputs"][1]
    (recording,) = report["evidence"]
    assert recording["calls"] >= 1 and recording["tests"] == 1
