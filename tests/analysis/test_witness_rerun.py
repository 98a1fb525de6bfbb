"""The witness re-run: a difference counts only when both sides give it again.

README: "a witness is confirmed by running both sides again, so nondeterministic output is
never taken for bias". Seeded `random` is the same on both sides of a pair (so noise over a
real rule is still bias), but clocks, OS entropy, unseeded generators and state that changes
with every call must never make a finding on their own. Each function below reads its
protected input (so it is really searched) and differs from call to call through such a
source only: without the re-run, its first two calls would read as a witness.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from analysis_kit import engine, leaf, model_of, search, verdict

from analysis.execution.process import Call, Limits, ProcessExecutor, Target
from analysis.shapes import encode_value

NOISE = {
    "clock": (
        "import time\n"
        "def f(age):\n"
        "    if age < 0:\n"
        "        raise ValueError(age)\n"
        "    return time.perf_counter_ns()\n"
    ),
    "os entropy": (
        "import os\ndef f(age, income):\n    return {'age': age, 'token': os.urandom(8).hex()}\n"
    ),
    "unseeded generator": (
        "import random\n"
        "def f(sex):\n"
        "    rng = random.Random()\n"
        "    return f'{sex}: {rng.randint(0, 10**9)}'\n"
    ),
    "uuid4": (
        "import uuid\n"
        "def f(applicant):\n"
        "    return {'ref': str(uuid.uuid4()), 'race': applicant['race']}\n"
    ),
    "state that changes with each call": (
        "import itertools\nTICK = itertools.count()\ndef f(age):\n    return age * 0 + next(TICK)\n"
    ),
    "first call of the process differs": (
        "SEEN = []\n"
        "def f(age):\n"
        "    SEEN.append(age)\n"
        "    return 'first' if len(SEEN) == 1 else 'later'\n"
    ),
}


@pytest.mark.parametrize("source", NOISE.values(), ids=list(NOISE))
def test_output_that_changes_by_itself_never_makes_a_finding(source: str) -> None:
    report = verdict(source)
    assert report.findings == [], report.findings
    assert report.status == "clean", (report.status, report.reason)
    assert report.executions > 0  # it was searched, not skipped as never read


@pytest.mark.parametrize("source", NOISE.values(), ids=list(NOISE))
def test_the_search_confirms_no_witness_on_noise(source: str) -> None:
    result = search(source)
    assert result.witnesses == {}
    assert result.ok_calls > 0


def test_a_leaf_with_unstable_output_is_given_up_as_noisy_and_said_so() -> None:
    # (not hex: a digest is masked as no decision at all, harness/output.py DIGEST)
    source = (
        "import random\n"
        "def f(age, income):\n"
        "    return str(random.SystemRandom().random()) if age >= 0 else ''\n"
    )
    result = search(source)
    assert result.noisy == {"age"}
    report = verdict(source)
    assert "nondeterministic for age" in (report.reason or "")


def test_seeded_random_is_the_same_on_both_sides_so_noise_over_a_rule_is_still_bias() -> None:
    # The re-run must not throw away real bias because the output carries seeded noise.
    source = "import random\ndef f(age):\n    return random.random() + (1 if age > 60 else 0)\n"
    report = verdict(source)
    assert report.status == "biased"
    assert [f.attribute for f in report.findings] == ["age"]


def test_a_confirmed_witness_gives_the_same_two_outputs_when_run_again() -> None:
    source = "def f(age, income):\n    return income * (0.8 if age >= 65 else 1.0)\n"
    result = search(source)
    witness = result.witnesses["age"]
    assert witness.outputs[0] != witness.outputs[1]
    model = model_of(source)
    age = leaf(model, "age")
    target = Target(source=source, filename="case.py", qualname="f")
    with ProcessExecutor().open(target, Limits()) as session:
        again = []
        for value in witness.values:
            args, kwargs = model.assemble({**witness.context, age.path: value})
            call = Call(tuple(args), kwargs, 0, (encode_value(value),))
            again.append(session.run([call])[0].shown())
    assert tuple(again) == witness.outputs


def test_a_witness_costs_its_confirmation_runs(tmp_path: Path) -> None:
    # Two confirmation runs of both sides: each side of the witness is called twice more
    # than any value that is no side of it. The function logs its calls (the children of
    # these tests are plain processes) so the calls are counted, not inferred.
    calls = tmp_path / "calls"
    source = (
        "def f(age):\n"
        f"    with open({str(calls)!r}, 'a') as log:\n"
        "        log.write(f'{age!r}\\n')\n"
        "    return age >= 65\n"
    )
    result = search(source)
    witness = result.witnesses["age"]
    counted = Counter(calls.read_text().split())
    sides = [counted[repr(value)] for value in witness.values]
    others = [n for value, n in counted.items() if value not in map(repr, witness.values)]
    assert others and all(n >= max(others) + 2 for n in sides), (witness.values, counted)
    found_in = len(leaf(model_of(source), "age").pool)
    assert result.executions >= found_in + 4


def test_the_stable_part_of_an_output_still_shows_bias_beside_a_clock() -> None:
    # A decision next to a clock: the clock part never re-runs the same, the decision does.
    source = "import time\ndef f(age):\n    return (age >= 65, time.perf_counter_ns())\n"
    report = verdict(source)
    assert report.status == "biased", (report.status, report.reason)
    assert [f.attribute for f in report.findings] == ["age"]


def test_noise_is_judged_per_function_so_a_biased_neighbour_still_counts() -> None:
    source = NOISE["clock"] + "\n\ndef g(age):\n    return 'senior' if age >= 65 else 'adult'\n"
    reports = {r.qualname: r for r in engine().scan_source(source, "case.py")}
    assert reports["f"].status == "clean"
    assert reports["g"].status == "biased"
