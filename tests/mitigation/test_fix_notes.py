"""The note an accepted fix carries about how much behaviour it kept (analysis/mitigation).

Written after the mutation run (docs/testing.md): flipping the low-agreement test passed
the suite, so a fix that changed most outputs could be shown without its warning.
"""

from __future__ import annotations

import pytest

from analysis.mitigation.loop import LOW_AGREEMENT, _agreement_note


@pytest.mark.parametrize("agreement", [0.0, 0.5, LOW_AGREEMENT - 0.01])
def test_a_fix_that_changes_many_outputs_is_flagged(agreement: float) -> None:
    note = _agreement_note(agreement)
    assert note is not None and note.startswith("low agreement: only ")
    assert f"{agreement:.0%}" in note


@pytest.mark.parametrize("agreement", [LOW_AGREEMENT, 0.95, 1.0])
def test_a_fix_that_keeps_most_outputs_carries_no_note(agreement: float) -> None:
    assert _agreement_note(agreement) is None


def test_an_unmeasured_agreement_asks_for_review() -> None:
    assert _agreement_note(None) == (
        "agreement with the original could not be measured: review the change"
    )
