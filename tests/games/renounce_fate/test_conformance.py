"""The conformance harness and the two-world information harness over 1,000 seeded matches
each (chips conserved, the pot that left the match with ties accounted for; cards of every
deal accounted for; no secret leaks; replay reproduces everything; twin worlds differing only
in one player's hand or pending renounce pick look the same to the other player and to
spectators)."""

from __future__ import annotations

import pytest

from games.core.harness import MatchRecord, run_conformance
from games.core.information import run_information
from games.renounce_fate import GAME

CHUNKS = 4
PER_CHUNK = 250


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_conformance_1000_seeded_matches(chunk: int) -> None:
    records = run_conformance(GAME, PER_CHUNK, first_seed=chunk * PER_CHUNK)
    assert len(records) == PER_CHUNK
    assert all(r.outcome is not None and r.outcome.winner in (0, 1) for r in records)
    assert sum(r.timeouts for r in records) > 0


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_two_worlds_1000_seeded_matches(chunk: int) -> None:
    summary = run_information(GAME, PER_CHUNK, first_seed=chunk * PER_CHUNK)
    print(f"renounce-fate two-world check, chunk {chunk}: {summary}")
    assert summary.matches == PER_CHUNK and summary.compared_steps > 0 and summary.reveals > 0


@pytest.fixture(scope="module")
def quick_records() -> list[MatchRecord]:
    """Ten checked random matches, played once for the quick tests below (a Renounce Fate
    match is long: about 0.6 s each through the harness)."""
    return run_conformance(GAME, 10, first_seed=500)


def test_conformance_quick(quick_records: list[MatchRecord]) -> None:
    assert len(quick_records) == 10
    assert all(r.outcome is not None for r in quick_records)


def test_two_worlds_quick() -> None:
    summary = run_information(GAME, 6, first_seed=9000)
    assert summary.twins > 0 and summary.compared_steps > 0


def test_chips_are_conserved_with_the_pot_that_left_the_match_accounted_for(
        quick_records: list[MatchRecord]) -> None:
    from games.core.replay import replay

    total_removed = 0
    for record in quick_records:
        state, _ = replay(GAME, record.settings, record.seed, record.log)
        assert sum(state.chips) + state.pot + state.removed_ties == 60
        total_removed += state.removed_ties
    assert total_removed > 0  # ties did send pots out of the match in these matches
