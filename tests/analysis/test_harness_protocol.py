"""The child's side of the protocol (analysis/execution/harness/runner.py), run in this process.

Each test sends the harness the request a parent sends (execution.py) and reads the reply
off its pipe as JSON, so a change of the wire format, of what an outcome carries, or of how
values are decoded fails here, with coverage of the harness itself.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from harness_kit import InProcessHarness, in_process_harness

from analysis.errors import ReplyForged
from analysis.execution.harness import runner as child
from analysis.execution.process import HARNESS_SCRIPT, Channel


@pytest.fixture
def h() -> Iterator[InProcessHarness]:
    with in_process_harness() as running:
        yield running


# -- load ----------------------------------------------------------------------------------


def test_load_replies_loaded_and_no_stubs(h: InProcessHarness) -> None:
    reply = h.load("def f(age):\n    return age > 60\n")
    assert reply == {"loaded": True, "stubbed": [], "tables": {}}


def test_a_module_that_does_not_compile_is_a_load_error(h: InProcessHarness) -> None:
    reply = h.load("def f(age:\n    return 1\n")
    assert reply["loaded"] is False
    assert reply["error"].startswith("SyntaxError: ")


def test_a_missing_function_is_a_load_error_naming_it(h: InProcessHarness) -> None:
    reply = h.load("def f(age):\n    return age\n", qualname="g")
    assert reply == {"loaded": False, "error": reply["error"]}
    assert reply["error"].startswith("AttributeError: ") and "'g'" in reply["error"]


def test_a_module_that_raises_at_top_level_is_a_load_error(h: InProcessHarness) -> None:
    reply = h.load("raise RuntimeError('no database')\ndef f(age):\n    return age\n")
    assert reply == {"loaded": False, "error": "RuntimeError: no database"}


def test_methods_of_nested_classes_load_by_qualified_name(h: InProcessHarness) -> None:
    source = (
        "class A:\n    class B:\n        @staticmethod\n"
        "        def f(age):\n            return age\n"
    )
    assert h.load(source, qualname="A.B.f")["loaded"] is True
    assert h.call(41)["repr"] == "41"


def test_a_missing_import_is_stubbed_and_a_call_touching_it_needs_it(h: InProcessHarness) -> None:
    source = (
        "import vendor_sdk_missing as sdk\n"
        "def f(age):\n"
        "    return sdk.score(age)\n"
        "def g(age):\n"
        "    return age > 60\n"
    )
    assert h.load(source) == {"loaded": True, "stubbed": ["vendor_sdk_missing"], "tables": {}}
    outcome = h.call(30)
    assert outcome == {
        "ok": False,
        "error": "needs vendor_sdk_missing (stubbed here)",
        "needs": ["vendor_sdk_missing"],
    }


def test_a_function_that_never_touches_the_stub_runs(h: InProcessHarness) -> None:
    source = "import vendor_sdk_missing\ndef g(age):\n    return age > 60\n"
    assert h.load(source, qualname="g")["stubbed"] == ["vendor_sdk_missing"]
    assert h.call(70)["repr"] == "True"


def test_without_stub_missing_a_missing_import_fails_the_load(h: InProcessHarness) -> None:
    reply = h.load("import vendor_sdk_missing\ndef f(age):\n    return age\n", stub_missing=False)
    assert reply["loaded"] is False
    assert reply["error"].startswith("ModuleNotFoundError: ")


def test_a_forced_stub_replaces_a_module_and_is_reported(h: InProcessHarness) -> None:
    source = "import vendor_forced.client as c\ndef f(age):\n    return c.ping(age)\n"
    reply = h.load(source, stub=["vendor_forced"], stub_missing=False)
    assert reply == {"loaded": True, "stubbed": ["vendor_forced"], "tables": {}}
    assert h.call(30)["needs"] == ["vendor_forced"]


def test_an_import_inside_the_function_is_stubbed_when_the_call_needs_it(
    h: InProcessHarness,
) -> None:
    h.load("def f(age):\n    import vendor_late_missing\n    return vendor_late_missing.x(age)\n")
    assert h.call(30)["needs"] == ["vendor_late_missing"]


# -- calls ---------------------------------------------------------------------------------


def test_an_outcome_carries_repr_masked_text_and_what_was_printed(h: InProcessHarness) -> None:
    h.load(
        "def f(name, age):\n"
        "    print('checking', name)\n"
        "    return {'name': name, 'ok': age > 60}\n"
    )
    outcome = h.call("Ann", 70)
    assert outcome == {
        "ok": True,
        "repr": "{'name': 'Ann', 'ok': True}",
        "masked": "{'name': 'Ann', 'ok': True}",
        "stdout": "checking Ann\n",
        "stdout_masked": "checking Ann\n",
        "parts": [],
        "printing": False,
    }


def test_what_a_method_returning_nothing_sets_on_its_object_is_its_output(
    h: InProcessHarness,
) -> None:
    source = (
        "class Chart:\n"
        "    def __init__(self, sex):\n"
        "        self.sex = sex\n"
        "    def pick(self):\n"
        "        print('picking')\n"
        "        self.table = 'boys' if self.sex == 'M' else 'girls'\n"
    )
    chart = {"__cb__": "new", "class": "Chart", "kwargs": {"sex": "M"}}
    h.load(source, "Chart.pick", changes=["self"])
    boys = h.call(chart)
    assert "'table': 'boys'" in boys["repr"] and boys["printing"] is True
    assert boys["stdout"] == "picking\n"  # still output: compared beside the object
    h.load(source, "Chart.pick")  # a function that changes nothing in place: None
    assert h.call(chart)["repr"] == "None"


def test_a_record_a_function_fills_in_is_its_output(h: InProcessHarness) -> None:
    h.load(
        "def add_discount(customer, rate):\n"
        "    if customer['age'] > 65:\n"
        "        customer['discount'] = rate\n",
        "add_discount",
        changes=["customer"],
    )
    senior, young = h.call({"age": 70}, 0.1), h.call({"age": 30}, rate=0.1)
    assert senior["repr"] == "{'age': 70, 'discount': 0.1}" and young["repr"] == "{'age': 30}"


def test_keyword_arguments_and_batches_keep_their_order(h: InProcessHarness) -> None:
    h.load("def f(age, *, bonus=0):\n    return age + bonus\n")
    calls = [{"args": [i], "kwargs": {"bonus": 100}, "seed": 0} for i in range(5)]
    assert [o["repr"] for o in h.calls(calls)] == ["100", "101", "102", "103", "104"]


def test_a_call_that_raises_is_an_outcome_with_the_error(h: InProcessHarness) -> None:
    h.load("def f(age):\n    if age < 18:\n        raise ValueError('minor')\n    return age\n")
    assert h.call(10) == {"ok": False, "error": "ValueError: minor"}
    assert h.call(30)["ok"] is True  # one failing call does not end the session


def test_system_exit_is_an_outcome_not_the_end_of_the_child(h: InProcessHarness) -> None:
    h.load("import sys\ndef f(age):\n    sys.exit(3)\n")
    assert h.call(30) == {"ok": False, "error": "SystemExit: 3"}


def test_a_call_over_its_time_is_a_timeout_outcome(h: InProcessHarness) -> None:
    h.load("def f(age):\n    while True:\n        pass\n", call_timeout=0.2)
    assert h.call(30) == {"ok": False, "error": "TimeoutError: call exceeded 0.2s"}


def test_a_generator_is_collected_and_a_coroutine_awaited(h: InProcessHarness) -> None:
    h.load("def f(age):\n    for i in range(3):\n        yield age + i\n")
    assert h.call(30)["repr"] == "[30, 31, 32]"


def test_a_coroutine_is_awaited(h: InProcessHarness) -> None:
    h.load("async def f(age):\n    return age > 60\n")
    assert h.call(70)["repr"] == "True"


def test_an_endless_generator_is_cut_at_its_limit(h: InProcessHarness) -> None:
    h.load("import itertools\ndef f(age):\n    yield from itertools.repeat(age)\n")
    # Collected up to MAX_GENERATOR_ITEMS; the text shows the first MAX_ITEMS, the count and
    # a digest of the rest.
    left = child.MAX_GENERATOR_ITEMS - child.MAX_ITEMS
    shown = ", ".join(["1"] * child.MAX_ITEMS)
    text = h.call(1)["repr"]
    assert text.startswith(f"[{shown}, ... {left} more #") and text.endswith("]"), text
    assert h.call(2)["repr"].split("#")[1] != text.split("#")[1]  # of the rest's texts


def test_each_call_seeds_random_with_its_seed(h: InProcessHarness) -> None:
    h.load("import random\ndef f(age):\n    return random.random()\n")
    same = h.calls(
        [{"args": [30], "seed": 7}, {"args": [80], "seed": 7}, {"args": [30], "seed": 8}]
    )
    assert same[0]["repr"] == same[1]["repr"] != same[2]["repr"]


def test_printing_is_captured_and_capped(
    h: InProcessHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    h.load("def f(age):\n    print('x' * 10_000)\n")
    outcome = h.call(30)
    assert len(outcome["stdout"]) == child.MAX_STDOUT
    assert "xxx" not in capsys.readouterr().out  # never reaches the real stdout


def test_a_long_result_is_capped(h: InProcessHarness) -> None:
    h.load("def f(age):\n    return 'y' * 10_000\n")
    assert len(h.call(30)["repr"]) == child.MAX_REPR


def test_long_results_that_differ_only_past_the_cap_still_differ(h: InProcessHarness) -> None:
    h.load("def f(age):\n    return 'y' * 10_000 + ('old' if age > 60 else 'young')\n")
    young, old = h.call(30)["repr"], h.call(70)["repr"]
    assert young != old
    assert young[:1000] == old[:1000]


def test_a_constructor_answers_with_what_it_prints_not_what_it_sets_up(
    h: InProcessHarness,
) -> None:
    source = (
        "class Policy:\n"
        "    def __init__(self, age):\n"
        "        self.band = 'senior' if age > 60 else 'adult'\n"
        "        if age > 80:\n"
        "            print('refer')\n"
    )
    h.load(source, qualname="Policy.__init__")
    new = {"__cb__": "new", "class": "Policy", "kwargs": {"age": 30}}
    stored, printed = h.call(new, 70), h.call(new, 90)
    assert stored["repr"] == "None" and stored["printing"] and stored["stdout"] == ""
    assert printed["stdout"] == "refer\n"


# -- values ----------------------------------------------------------------------------------


def test_a_record_answers_item_get_and_attribute_access(h: InProcessHarness) -> None:
    h.load("def f(p):\n    return (p['age'], p.get('age'), p.age, getattr(p, 'gender', None))\n")
    record = {"__cb__": "record", "fields": {"age": 40, "gender": "female"}}
    assert h.call(record)["repr"] == "(40, 40, 40, 'female')"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ({"__cb__": "tuple", "items": [1, "a"]}, "(1, 'a')"),
        ({"__cb__": "float", "v": "inf"}, "inf"),
        ({"__cb__": "date", "v": "1990-06-15"}, "datetime.date(1990, 6, 15)"),
        ({"__cb__": "literal", "v": "b'\\x00'"}, "b'\\x00'"),
        ({"__cb__": "literal", "v": "{3, 1, 2}"}, "{1, 2, 3}"),
        (
            [{"__cb__": "tuple", "items": []}, {"k": {"__cb__": "float", "v": "-inf"}}],
            "[(), {'k': -inf}]",
        ),
    ],
)
def test_tagged_values_are_decoded(h: InProcessHarness, value: object, shown: str) -> None:
    h.load("def f(x):\n    return x\n")
    assert h.call(value)["repr"] == shown


def test_enum_members_and_instances_of_module_classes_are_built(h: InProcessHarness) -> None:
    source = (
        "import enum\n"
        "class Sex(enum.Enum):\n    F = 'f'\n    M = 'm'\n"
        "class Person:\n"
        "    def __init__(self, age, sex):\n        self.age, self.sex = age, sex\n"
        "def f(p):\n    return (p.age, p.sex)\n"
    )
    h.load(source)
    person = {
        "__cb__": "new",
        "class": "Person",
        "kwargs": {"age": 50, "sex": {"__cb__": "enum", "class": "Sex", "member": "F"}},
    }
    assert h.call(person)["repr"] == "(50, Sex.F)"


def test_an_instance_whose_constructor_refuses_gets_its_fields_set(h: InProcessHarness) -> None:
    source = (
        "class Person:\n"
        "    def __init__(self, age, db):\n        raise RuntimeError('no database')\n"
        "def f(p):\n    return p.age\n"
    )
    h.load(source)
    assert h.call({"__cb__": "new", "class": "Person", "kwargs": {"age": 50}})["repr"] == "50"


def test_an_unknown_tag_fails_that_call_only(h: InProcessHarness) -> None:
    h.load("def f(x):\n    return x\n")
    assert h.call({"__cb__": "pickle", "v": "..."}) == {
        "ok": False,
        # raised while the arguments were built: never the function's own refusal
        "error": "InputError: building the inputs raised ValueError: unknown value tag 'pickle'",
    }
    assert h.call(1)["repr"] == "1"


# -- canonical output text ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2.0, "2"),
        (0.1 + 0.2, "0.3"),
        ({"b": 1, "a": 2}, "{'a': 2, 'b': 1}"),
        ({3, 1, 2}, "{1, 2, 3}"),
        (frozenset({"y", "x"}), "{'x', 'y'}"),
        ((1, [2.0]), "(1, [2])"),
        (None, "None"),
    ],
)
def test_equal_answers_read_the_same(value: object, text: str) -> None:
    assert child.canonical(value, []) == text


def test_object_addresses_never_reach_the_output_text() -> None:
    class Opaque:
        __slots__ = ()

    assert " at 0x" not in child.canonical(Opaque(), [])
    assert child.canonical(Opaque(), []) == child.canonical(Opaque(), [])


def test_plain_objects_read_by_their_fields() -> None:
    class Decision:
        def __init__(self) -> None:
            self.ok = True

    assert child.canonical(Decision(), []) == "Decision({'ok': True})"


def test_deep_nesting_is_cut_not_a_recursion_error() -> None:
    deep: list[object] = []
    for _ in range(100):
        deep = [deep]
    assert "..." in child.canonical(deep, [])


def test_the_child_entry_point_speaks_signed_json_lines_and_answers_an_unknown_op() -> None:
    # main() as the child runs it: the key, then requests on stdin; signed replies on stdout,
    # one to the load, one per call.
    channel = Channel()
    requests = [
        {
            "op": "load",
            "source": "def f(age):\n    print('x')\n    return age > 60\n",
            "filename": "case.py",
            "qualname": "f",
        },
        {"op": "call", "calls": [{"args": [70], "kwargs": {}, "seed": 0}, {"args": [20]}]},
        {"op": "dance"},
    ]
    done = subprocess.run(
        [sys.executable, "-s", "-P", "-c", HARNESS_SCRIPT],
        input=channel.first_line() + b"".join(json.dumps(r).encode() + b"\n" for r in requests),
        capture_output=True,
        timeout=30,
        cwd="/",
    )
    replies = [json.loads(channel.open(line)) for line in done.stdout.splitlines()]
    assert replies == [
        {"loaded": True, "stubbed": [], "tables": {}},
        {
            "ok": True,
            "repr": "True",
            "masked": "True",
            "stdout": "x\n",
            "stdout_masked": "x\n",
            "parts": [],
            "printing": False,
        },
        {
            "ok": True,
            "repr": "False",
            "masked": "False",
            "stdout": "x\n",
            "stdout_masked": "x\n",
            "parts": [],
            "printing": False,
        },
        {"error": "unknown op"},
    ]


def test_a_reply_under_another_key_or_out_of_order_is_refused() -> None:
    genuine, other = Channel(), Channel()
    body = b'{"loaded": true, "stubbed": []}'
    signed = hmac.new(genuine.key, b"0 " + body, hashlib.sha256).hexdigest().encode()
    with pytest.raises(ReplyForged):
        other.open(signed + b" " + body)
    assert genuine.open(signed + b" " + body) == body
    with pytest.raises(ReplyForged):
        genuine.open(signed + b" " + body)  # the same reply again is the second one's forgery


def test_asked_for_parts_an_outcome_gives_its_output_part_by_part(h: InProcessHarness) -> None:
    h.load("def f(name, age):\n    return {'name': name, 'senior': age >= 65}\n")
    (outcome,) = h.calls([{"args": ["Ann", 70], "seed": 0, "mask": [70], "parts": True}])
    parts = outcome["parts"]
    assert parts and all(isinstance(p, list) and len(p) == 3 for p in parts)
    assert any(p[1] == "True" for p in parts), parts
    assert h.call("Ann", 70)["parts"] == []  # only when asked


def test_an_object_built_from_nothing_is_built_once_per_session(h: InProcessHarness) -> None:
    # A calculator that loads its tables in its constructor: one load, however many calls.
    h.load(
        "LOADS = []\n"
        "class Calculator:\n"
        "    def __init__(self):\n"
        "        LOADS.append(1)\n"
        "    def rate(self, age):\n"
        "        return len(LOADS)\n",
        qualname="Calculator.rate",
    )
    calc = {"__cb__": "new", "class": "Calculator", "kwargs": {}}
    assert [h.call(calc, 30)["repr"] for _ in range(3)] == ["1", "1", "1"]


def test_the_harness_crosses_as_one_argument_well_under_the_kernels_limit() -> None:
    # Linux refuses one argument over 128 KiB ("Argument list too long"): the harness's source
    # alone had grown to 130 KB, and a project's long site-packages paths in the sandbox's
    # prelude took it over. Half the limit leaves room for the prelude and for growth.
    assert len(HARNESS_SCRIPT.encode()) < 64 * 1024
