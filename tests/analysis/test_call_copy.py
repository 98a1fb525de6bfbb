"""A recorded call's arguments pickled so another process loads them (harness/callcopy.py):
functions pickle cannot name, a lambda or a function defined inside another, go by value."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from analysis.execution.harness.callcopy import BoundedBuffer, Oversized, dumps_call


def copied(*args: Any) -> list[Any]:
    loaded: list[Any] = pickle.loads(dumps_call({"args": list(args), "kwargs": {}}, LIMIT))
    return loaded["args"]


LIMIT = 1 << 20


def test_a_lambda_with_its_closure_and_defaults_is_copied_by_value() -> None:
    growth = 1.1
    law = lambda x, scale=0.0005: scale * growth**x  # noqa: E731 - a law kept as a lambda
    (copy,) = copied(law)
    assert copy is not law and copy(40) == law(40) and copy(40, scale=1) == law(40, scale=1)


def test_a_local_function_that_calls_itself_is_copied_with_its_closure() -> None:
    def factorial(n: int) -> int:
        return 1 if n <= 1 else n * factorial(n - 1)

    factorial.unit = "people"  # type: ignore[attr-defined]
    (copy,) = copied(factorial)
    assert copy(5) == 120 and copy.unit == "people"


def test_an_object_holding_a_local_function_is_copied_and_shares_it() -> None:
    def law(age: int) -> float:
        return age / 100

    table = {"law": law, "same": law}
    (copy,) = copied(table)
    assert copy["law"](40) == 0.4 and copy["law"] is copy["same"]


def test_arguments_past_the_limit_stop_pickling_at_the_limit() -> None:
    # A loaded table of tens of megabytes is not copied whole to be thrown away: the pickler
    # writes a frame at a time and the buffer refuses the one past the limit.
    table = [{"age": i, "sex": "F", "name": f"person {i}"} for i in range(300_000)]
    with pytest.raises(Oversized):
        dumps_call({"args": [table], "kwargs": {}}, LIMIT)
    buffer = BoundedBuffer(LIMIT)
    with pytest.raises(Oversized):
        pickle.Pickler(buffer, protocol=4).dump(table)
    assert 0 < buffer.tell() <= LIMIT
    assert len(dumps_call({"args": [table[:10]], "kwargs": {}}, LIMIT)) < LIMIT
