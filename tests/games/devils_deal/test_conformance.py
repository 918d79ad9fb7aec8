"""The conformance harness over 1,000 seeded random matches (invariants after every step:
chips conserved, where chips leave the game only through refills, the removed ante chip
and tie antes; cards accounted for; no secret leaks; replay reproduces everything)."""

from __future__ import annotations

import pytest

from games.core.harness import run_conformance
from games.devils_deal import GAME

CHUNKS = 4
PER_CHUNK = 250


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_conformance_1000_seeded_matches(chunk: int) -> None:
    records = run_conformance(GAME, PER_CHUNK, first_seed=chunk * PER_CHUNK)
    assert len(records) == PER_CHUNK
    for record in records:
        assert record.outcome is not None and record.outcome.winner in (0, 1)
    # The harness must have exercised timeouts (every prompt's default) along the way.
    assert sum(r.timeouts for r in records) > 0


def test_chip_accounting_over_a_random_match() -> None:
    [record] = run_conformance(GAME, 1, first_seed=12345)
    from games.core.replay import replay

    state, _ = replay(GAME, record.settings, record.seed, record.log)
    left = state.removed_refills + state.removed_ante + state.removed_ties
    assert sum(state.chips) + sum(state.round_bets) + state.ante_pot + left == 60
    assert state.removed_refills == 5 * sum(state.refills)
