"""The host's reserve of recorded calls (analysis/evidence/calls.py Evidence.fill): the calls
a source sent past its share fill, in order, what the sources' shares left, once the run is
over; a session ended early loses none of them."""

from __future__ import annotations

from pathlib import Path

from analysis.evidence.calls import Evidence, FunctionKey, RecordedCall

QUOTE = FunctionKey("pkg/pricing.py", "quote")
RATE = FunctionKey("pkg/pricing.py", "rate")


def keep(evidence: Evidence, call_id: str, key: FunctionKey, reserve: bool = False) -> None:
    call = RecordedCall(call_id, key, "tests/test_x.py::test", ())
    evidence.keep(call, b"pickle", reserve=reserve)


def test_the_reserve_fills_what_the_shares_left_in_order(tmp_path: Path) -> None:
    evidence = Evidence(str(tmp_path))
    keep(evidence, "c1", QUOTE)
    keep(evidence, "c2", QUOTE, reserve=True)
    keep(evidence, "c3", RATE, reserve=True)
    keep(evidence, "c4", QUOTE, reserve=True)
    keep(evidence, "c5", QUOTE)
    keep(evidence, "c6", QUOTE, reserve=True)
    assert [c.id for c in evidence.of(QUOTE)] == ["c1", "c5"]  # before the run is over
    evidence.fill(3)
    assert [c.id for c in evidence.of(QUOTE)] == ["c1", "c5", "c2"]
    assert [c.id for c in evidence.of(RATE)] == ["c3"]  # only reserve: its calls all the same
    assert evidence.stats.kept == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"c{i}.pickle" for i in range(1, 7)]
