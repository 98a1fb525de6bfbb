"""Never a crash: any literal Python allows can reach the value pools, the harness encoding and
the report, and every renderer writes any value a report can hold."""

from __future__ import annotations

import ast
import datetime
import decimal
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.report import Example, Finding, FunctionReport, ScanReport
from analysis.search.contexts import contexts
from analysis.source.functions import list_functions
from bot.render.json_report import render_json
from bot.render.markdown import render_report
from bot.render.sarif import render_sarif
from bot.render.text import render_text
from config.policy import default_policy

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(allow_nan=False, allow_infinity=False),
    st.binary(max_size=12),
    st.text(max_size=12),
    st.just(...),
)
hashable = st.one_of(scalars, st.tuples(scalars, scalars))
literals = st.one_of(
    scalars,
    st.tuples(scalars, scalars),
    st.lists(scalars, max_size=4),
    st.frozensets(hashable, max_size=4).map(set),
    st.dictionaries(hashable, scalars, max_size=4),
)


@settings(max_examples=150, deadline=None)
@given(value=literals, other=literals)
def test_any_literal_in_the_code_gives_inputs_that_encode(value: Any, other: Any) -> None:
    source = (
        f"LIMITS = {other!r}\n\n"
        "def fare(city, age, table):\n"
        f"    if city == {value!r} or city in LIMITS or table[age] == {value!r}:\n"
        "        return 3\n"
        f"    match age:\n        case {0!r}:\n            return {value!r}\n"
        "    return 2 if age > 64 else 1\n"
    )
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return  # a value whose repr is not source (nan, inf) is not a literal in code
    facts = ModuleFacts(tree)
    (info,) = list_functions(tree)
    model = InputBuilder(facts, default_policy()).build(info)
    for _, ctx in zip(range(40), contexts(model), strict=False):
        args, kwargs = model.assemble(ctx)
        json.dumps([args, kwargs], allow_nan=True)  # what goes to the harness
        json.dumps(model.plain(ctx), allow_nan=True)  # what goes into a report


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")

    __str__ = __repr__


reportable = st.recursive(
    st.one_of(
        scalars,
        st.just(decimal.Decimal("1.10")),
        st.just(datetime.datetime(2024, 2, 29, 12, 0)),
        st.builds(Unprintable),
        st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(inputs=st.dictionaries(st.text(max_size=8), reportable, max_size=3), values=reportable)
def test_every_format_writes_any_value_a_report_can_hold(
    inputs: dict[str, Any], values: Any
) -> None:
    finding = Finding("age", "applicant['age']", Example(inputs, [values, 1], ["a", "b\x1b"]), 3)
    function = FunctionReport("a\nb.py", "f", 1, 5, "biased", "dynamic", ["age"], [finding])
    report = ScanReport([function])
    for render in (render_json, render_sarif, render_report, render_text):
        assert render(report)
