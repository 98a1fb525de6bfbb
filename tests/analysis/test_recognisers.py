"""The recognisers of an input's shape: each usable alone, their order the priority."""

from __future__ import annotations

import ast

from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import RECOGNISERS, InputBuilder, Spot
from analysis.shapes import FrameShape, Leaf, RecordShape, Shape
from analysis.source.functions import find_function
from analysis.values import MISSING
from config.policy import default_policy

# A table filtered by its own column is read by key as a record would be.
FILTERED = (
    "def adults(df):\n"
    "    df = df.copy()\n"
    "    return df[df['age'] >= 18]\n"
)


def recognise(source: str, name: str, recogniser: str) -> Shape | None:
    """What one recogniser, by its name, makes of parameter `name` of `adults`."""
    tree = ast.parse(source)
    info = find_function(tree, "adults")
    assert info is not None
    builder = InputBuilder(ModuleFacts(tree), default_policy())
    spot = Spot(name, None, MISSING, (("param", name),), 0, None)
    (chosen,) = [r for r in RECOGNISERS if r.name == recogniser]
    leaves: list[Leaf] = []
    return chosen.build(builder, spot, info.node, leaves) if chosen.applies(spot) else None


def test_each_recogniser_answers_alone() -> None:
    assert isinstance(recognise(FILTERED, "df", "DataFrame"), FrameShape)
    assert isinstance(recognise(FILTERED, "df", "record of the fields read"), RecordShape)
    assert recognise(FILTERED, "df", "Series") is None


def test_the_first_that_recognises_an_input_gives_its_shape() -> None:
    """Read by key, the table is a record too: the DataFrame comes first in the order."""
    names = [r.name for r in RECOGNISERS]
    assert names.index("DataFrame") < names.index("record of the fields read")
    tree = ast.parse(FILTERED)
    info = find_function(tree, "adults")
    assert info is not None
    model = InputBuilder(ModuleFacts(tree), default_policy()).build(info)
    assert isinstance(model.params[0].shape, FrameShape)
