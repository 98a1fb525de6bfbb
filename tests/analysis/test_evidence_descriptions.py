"""What the host reads of a recorded call (analysis/evidence/described.py, calls.py): the
child's description, untrusted, checked node by node and bounded; anything off-shape is
refused with InvalidEvidence and nothing else."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.errors import InvalidEvidence
from analysis.evidence.calls import FunctionKey, read_call
from analysis.evidence.described import (
    EnumValue,
    FrameValue,
    MappingValue,
    ObjectValue,
    Reader,
    Scalar,
    SequenceValue,
    shown,
)

APPLICANT = {
    "t": "object", "type": "Applicant", "how": "dataclass",
    "fields": [
        ["name", {"t": "scalar", "kind": "str", "v": "Ann"}],
        ["sex", {"t": "scalar", "kind": "str", "v": "Male", "choices": ["Male", "Female"]}],
    ],
}  # fmt: skip
FRAME = {
    "t": "frame", "type": "DataFrame", "rows": 40,
    "columns": [
        ["sex", {"dtype": "object", "values": [{"t": "scalar", "kind": "str", "v": v}
                                                for v in "MFMFM"]}],
        ["income", {"dtype": "int64", "values": [{"t": "scalar", "kind": "int", "v": 10}]}],
    ],
}  # fmt: skip
FUNCTIONS = {0: FunctionKey("pkg/pricing.py", "quote")}


def test_each_kind_of_node_reads_into_its_class() -> None:
    reader = Reader()
    applicant = reader.node(APPLICANT)
    assert isinstance(applicant, ObjectValue) and applicant.how == "dataclass"
    sex = dict(applicant.fields)["sex"]
    assert sex == Scalar("str", "Male", ("Male", "Female"))
    frame = reader.node(FRAME)
    assert isinstance(frame, FrameValue) and frame.rows == 40
    assert reader.node({"t": "enum", "type": "Sex", "member": "MALE", "members": ["MALE"]}) == (
        EnumValue("Sex", "MALE", ("MALE",))
    )
    listed = reader.node({"t": "seq", "type": "list", "items": [APPLICANT], "len": 9})
    assert isinstance(listed, SequenceValue) and listed.length == 9
    mapping = reader.node({"t": "map", "type": "dict", "items": [[1, APPLICANT]], "len": 1})
    assert isinstance(mapping, MappingValue) and mapping.items[0][0] == 1


@pytest.mark.parametrize(
    "node",
    [
        {"t": "scalar", "kind": "int", "v": "30"},  # a number that is text
        {"t": "scalar", "kind": "bool", "v": 1},
        {"t": "scalar", "kind": "float", "v": "1e999"},
        {"t": "scalar", "kind": "code", "v": "os.system('x')"},
        {"t": "object", "type": "X", "how": "eval", "fields": []},
        {"t": "map", "type": "dict", "items": [[None, APPLICANT]], "len": 1},
        {"t": "map", "type": "dict", "items": [["a"]], "len": 1},
        {"t": "seq", "type": "list", "items": [], "len": -1},
        {"t": "frame", "type": "DataFrame", "rows": 1, "columns": [["a", "not a column"]]},
        {"t": "unknown"},
        ["not", "an", "object"],
    ],
)
def test_an_off_shape_node_is_refused(node: Any) -> None:
    with pytest.raises(InvalidEvidence):
        Reader().node(node)


def test_a_description_too_deep_or_too_large_is_refused() -> None:
    deep: dict[str, Any] = {"t": "scalar", "kind": "int", "v": 1}
    for _ in range(20):
        deep = {"t": "seq", "type": "list", "items": [deep], "len": 1}
    with pytest.raises(InvalidEvidence):
        Reader().node(deep)
    wide = {"t": "seq", "type": "list", "items": [FRAME] * 60, "len": 60}
    with pytest.raises(InvalidEvidence):
        Reader().node({"t": "seq", "type": "list", "items": [wide] * 60, "len": 60})


def test_long_texts_and_lists_are_cut() -> None:
    node = Reader().node({"t": "scalar", "kind": "str", "v": "x" * 10_000})
    assert isinstance(node, Scalar) and len(node.value) == 300
    many = Reader().node(
        {"t": "seq", "type": "list", "items": [{"t": "opaque", "type": "X"}] * 500, "len": 500}
    )
    assert isinstance(many, SequenceValue) and len(many.items) == 60


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=30,
)
NODE_KEYS = st.fixed_dictionaries(
    {"t": st.sampled_from(["scalar", "enum", "map", "seq", "object", "frame", "series", "opaque"])},
    optional={
        "type": JSON, "kind": st.sampled_from(["int", "str", "float", "bool", "none", "date"]),
        "v": JSON, "items": JSON, "len": JSON, "fields": JSON, "how": JSON, "columns": JSON,
        "rows": JSON, "member": JSON, "members": JSON, "values": JSON, "dtype": JSON,
        "choices": JSON, "name": JSON,
    },
)  # fmt: skip


@given(st.one_of(JSON, NODE_KEYS))
def test_any_json_reads_or_is_refused_with_invalid_evidence(data: Any) -> None:
    try:
        Reader().node(data)
    except InvalidEvidence:
        pass


def test_shown_shortens_and_writes_the_changed_leaf_in() -> None:
    reader = Reader()
    applicant = reader.node(APPLICANT)
    assert shown(applicant) == "Applicant(name='Ann', sex='Male')"
    female = "Applicant(name='Ann', sex='Female')"
    assert shown(applicant, (((("attr", "sex"),), "Female"),)) == female
    frame = reader.node(FRAME)
    assert shown(frame, (((("key", "sex"), ("rows", 0)), "F"),)) == {
        "DataFrame": "40 rows", "sex": ["F", "F", "M"], "income": [10],
    }  # fmt: skip
    assert shown(frame, (((("key", "sex"), ("rows", "*")), "F"),))["sex"] == ["F", "F", "F"]
    # Another input moved around the call as recorded is written in beside the value tried.
    sex, income = (("key", "sex"), ("rows", 0)), (("key", "income"), ("rows", 0))
    both = shown(frame, ((sex, "F"), (income, 99)))
    assert (both["sex"][0], both["income"]) == ("F", [99])
    people = reader.node({"t": "seq", "type": "list", "items": [APPLICANT] * 5, "len": 12})
    assert shown(people)[-1] == "… 9 more"


def call_line(**call: Any) -> dict[str, Any]:
    rate = {"t": "opaque", "type": "Rate"}
    base = {"target": 0, "source": "tests/test_p.py::test_a", "main": None, "paths": ["tests"],
            "params": [["applicant", "arg", APPLICANT], ["rate", "kw", rate]]}  # fmt: skip
    return {"call": {**base, **call}, "pickle": base64.b64encode(b"\x80\x04N.").decode()}


def test_a_streamed_call_is_read_with_its_arguments_positions_and_keywords() -> None:
    call, data, replaying = read_call(call_line(), "c1", FUNCTIONS, 1000, "/repo")
    assert call.id == "c1" and call.function == FUNCTIONS[0]
    assert call.source == "tests/test_p.py::test_a"
    assert [(p.name, p.how, p.where) for p in call.params] == [
        ("applicant", "arg", 0), ("rate", "kw", "rate")
    ]  # fmt: skip
    assert data == b"\x80\x04N." and replaying.paths == ("tests",) and replaying.main is None
    _, _, demo = read_call(
        call_line(main={"path": "/repo/examples/demo.py"}), "c2", FUNCTIONS, 1000, "/repo"
    )
    assert demo.main == {"path": "examples/demo.py"}


@pytest.mark.parametrize(
    "line",
    [
        call_line(target=7),  # a function nobody asked for
        call_line(target=True),
        call_line(params=[["applicant", "sideways", APPLICANT]]),
        call_line(main={"path": "/etc/passwd"}),  # a program outside the project
        call_line(main={"path": "/repo/../etc/passwd"}),
        call_line(main={"module": "os; rm -rf"}),
        call_line(environ=[["A", "b"]]),  # an environment not an object
        {"call": {"target": 0, "params": []}, "pickle": "not base64!"},
        {"call": {"target": 0, "params": []}, "pickle": "A" * 4000},  # over the size asked
        {"call": "nothing"},
    ],
)
def test_a_streamed_call_off_shape_is_refused(line: dict[str, Any]) -> None:
    with pytest.raises(InvalidEvidence):
        read_call(line, "c1", FUNCTIONS, 1000, "/repo")


def test_paths_outside_the_project_are_dropped() -> None:
    _, _, replaying = read_call(
        call_line(paths=["tests", "/etc", "../up", "a/../../b", 3]), "c1", FUNCTIONS, 1000, "/repo"
    )
    assert replaying.paths == ("tests",)


def test_the_environment_the_run_set_is_kept_for_the_replay_text_only() -> None:
    environ = {"A207_CALLER": "doctor", "N": 3, "BAD=NAME": "x", "LONG": "v" * 400, "": "e"}
    _, _, replaying = read_call(call_line(environ=environ), "c1", FUNCTIONS, 1000, "/repo")
    assert replaying.environ == (("A207_CALLER", "doctor"),)
    assert replaying.index_entry()["environ"] == {"A207_CALLER": "doctor"}
