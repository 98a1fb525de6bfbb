"""The recorder's `made` entry (harness/recorder.py run_made): codebias calls a caller with
arguments encoded as the search encodes them; the calls it makes of a target are recorded,
named for the caller, only when it returns, and the caller's own call is not (run in this
process as the harness's protocol is: harness_kit.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness_kit import InProcessHarness, in_process_harness
from test_recorder_protocol import arguments, calls, write

SCORE = """\
WEIGHTS = {"Age (years)": 0.04, "Smoker": 0.7}

class Patient:
    def __init__(self, age, smoker):
        self.age, self.smoker = age, smoker

def points(values, weights):
    return round(sum(values[name] * w for name, w in weights.items()), 3)

def risk(age, smoker):
    values = {"Age (years)": max(age, 40), "Smoker": int(smoker)}
    return points(values, WEIGHTS)

def refused(age):
    points({"Age (years)": age, "Smoker": 0}, WEIGHTS)
    raise ValueError("no age past the tables")

def of_patient(patient):
    return points({"Age (years)": patient.age, "Smoker": patient.smoker}, WEIGHTS)
"""


@pytest.fixture
def h() -> Iterator[InProcessHarness]:
    with in_process_harness() as running:
        yield running


def record_made(h: InProcessHarness, root: Path, *made: dict[str, Any]) -> list[Any]:
    """Record `points` and `risk` of pkg/score.py while the `made` calls run."""
    write(root, {"pkg/__init__.py": "", "pkg/score.py": SCORE})
    source = (root / "pkg" / "score.py").read_text().splitlines()
    targets = [
        {"id": i, "file": f"{root}/pkg/score.py", "name": fn,
         "lines": [next(n for n, t in enumerate(source, 1) if t.startswith(f"def {fn}("))]}
        for i, fn in enumerate(("points", "risk"))
    ]  # fmt: skip
    entry = {"kind": "made", "label": "calls codebias made", "calls": list(made)}
    assert h.load("", qualname="", paths=[str(root)], cwd=str(root), stub_missing=False)[
        "loaded"
    ]
    return h.record({"targets": targets, "entries": [entry], "repo": str(root)})


def made(qualname: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    label = f"codebias's call of pkg.score.{qualname}"
    return {"module": "pkg.score", "qualname": qualname, "args": list(args),
            "kwargs": kwargs, "label": label}  # fmt: skip


def test_the_helper_gets_the_record_its_caller_builds_and_the_caller_is_not_recorded(
    h: InProcessHarness, tmp_path: Path
) -> None:
    lines = record_made(h, tmp_path, made("risk", 72, smoker=True))
    (call,) = calls(lines)  # `points`'s; `risk`'s own made-up call is not kept
    assert call["target"] == 0
    # Sent as reserve: it fills only what the project's own calls left (Evidence.fill).
    assert all(line.get("reserve") is True for line in lines if "call" in line)
    assert call["source"] == "codebias's call of pkg.score.risk"
    assert arguments(call)["args"][0] == {"Age (years)": 72, "Smoker": 1}
    entry = next(line for line in lines if "entry" in line)
    assert entry["status"] == "ok: 1 call(s) returned, 0 raised"


def test_what_a_caller_that_raises_handed_on_is_not_kept(
    h: InProcessHarness, tmp_path: Path
) -> None:
    lines = record_made(h, tmp_path, made("refused", 50))
    assert calls(lines) == []
    entry = next(line for line in lines if "entry" in line)
    assert entry["status"] == "ok: 0 call(s) returned, 1 raised"


def test_arguments_are_decoded_as_the_search_encodes_them(
    h: InProcessHarness, tmp_path: Path
) -> None:
    # An instance of the module's class, built from its fields (shapes.ObjectShape's wire).
    patient = {"__cb__": "new", "class": "Patient", "args": [],
               "kwargs": {"age": 81, "smoker": False}}  # fmt: skip
    (call,) = calls(record_made(h, tmp_path, made("of_patient", patient)))
    assert arguments(call)["args"][0] == {"Age (years)": 81, "Smoker": False}


def test_a_caller_that_cannot_be_loaded_is_reported_and_the_others_still_run(
    h: InProcessHarness, tmp_path: Path
) -> None:
    lines = record_made(h, tmp_path, made("gone", 1), made("risk", 30, smoker=False))
    assert [arguments(c)["args"][0]["Age (years)"] for c in calls(lines)] == [40]
    entry = next(line for line in lines if "entry" in line)
    assert entry["status"].startswith("ok: 1 call(s) returned, 0 raised; not made: gone")
