"""The recorder running an OpenFisca country package's YAML tests (harness/recorder.py, an
`openfisca` entry): openfisca_core's own runner builds the package's CountryTaxBenefitSystem
and runs each case, the formula the case computes is recorded with its population, period
and parameters, the case named as the call's source, and the population is described by
what it answers (`person("age", period)`)."""

from __future__ import annotations

import base64
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy
import pytest
from harness_kit import InProcessHarness, in_process_harness
from openfisca_country import write_country

from analysis.execution.harness.callcopy import dumps_call

pytest.importorskip("openfisca_core")
from openfisca_core.indexed_enums import Enum, EnumArray  # noqa: E402


class Housing(Enum):
    owner = "Owner"
    tenant = "Tenant"


@pytest.fixture
def h() -> Iterator[InProcessHarness]:
    with in_process_harness() as running:
        yield running


def test_a_yaml_case_s_formula_call_is_recorded_and_named_by_the_case(
    h: InProcessHarness, tmp_path: Path
) -> None:
    write_country(tmp_path)
    module = tmp_path / "country/variables/pension.py"
    line = [
        n for n, text in enumerate(module.read_text().splitlines(), 1) if "def formula" in text
    ][-1]  # state_pension's
    root = str(tmp_path)
    assert h.load("", qualname="", paths=[root], cwd=root, stub_missing=False)["loaded"]
    lines = h.record({
        "targets": [{"id": 0, "file": str(module), "name": "formula", "lines": [line]}],
        "entries": [{"kind": "openfisca", "args": ["country/tests/pension.yaml"],
                     "country": "country", "label": "openfisca test"}],
        "repo": root,
    })  # fmt: skip
    (call,) = [line["call"] | {"pickle": line["pickle"]} for line in lines if "call" in line]
    assert call["source"] == "country/tests/pension.yaml::a retired couple"
    (person, _, population), period, parameters = call["params"]
    assert (person, period[0], parameters[0]) == ("person", "period", "parameters")
    # What the formula's `person("age", period)` answered, though the case gives birth years:
    # the population is taken as the formula returns.
    answers = dict(population["items"])
    assert population["t"] == "map" and population["type"] == "Population"
    assert [v["v"] for v in answers["age"]["values"]] == [70, 68]
    entry = next(line for line in lines if "entry" in line)
    assert (entry["status"], entry["tests"]) == ("pytest exit code 0", 1)
    # The population pickles and loads back, though it answers unknown attributes itself.
    loaded: dict[str, Any] = pickle.loads(base64.b64decode(call["pickle"]))
    assert list(loaded["args"][0]("age", loaded["args"][1])) == [70, 68]


def test_an_array_of_an_enum_s_codes_keeps_its_enum_when_a_call_is_pickled() -> None:


    array = EnumArray(numpy.array([1, 0], dtype=numpy.int16), Housing)
    loaded = pickle.loads(dumps_call({"args": [array], "kwargs": {}}, 1 << 20))["args"][0]
    assert loaded.possible_values is Housing
    assert list(loaded.decode_to_str()) == ["tenant", "owner"]


class Household:
    """Answers an unknown attribute from its fields, as an OpenFisca population does
    (`person.household`): an empty instance recurses on `self.members`."""

    def __init__(self, members: list[str]) -> None:
        self.members = members

    def __getattr__(self, name: str) -> Any:
        if name in self.members:
            return name
        raise AttributeError(name)


def test_an_object_answering_unknown_attributes_itself_pickles_by_its_fields() -> None:
    household = Household(["ann", "bob"])
    loaded = pickle.loads(dumps_call({"args": [household], "kwargs": {}}, 1 << 20))["args"][0]
    assert loaded.members == ["ann", "bob"] and loaded.ann == "ann"
    with pytest.raises(RecursionError):
        pickle.loads(pickle.dumps(household))  # the default way
