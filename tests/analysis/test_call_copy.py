"""A recorded call's arguments pickled so another process loads them (harness/callcopy.py):
functions pickle cannot name, a lambda or a function defined inside another, go by value."""

from __future__ import annotations

import pickle
from typing import Any

from analysis.execution.harness.callcopy import dumps_call


def copied(*args: Any) -> list[Any]:
    loaded: list[Any] = pickle.loads(dumps_call({"args": list(args), "kwargs": {}}))["args"]
    return loaded


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
