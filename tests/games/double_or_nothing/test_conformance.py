"""The conformance harness over 1,000 seeded random matches (after every step: every card in
a hand, on the table, in the discard or unused, jokers in front or played; no secret leaks;
bad input changes nothing; replay reproduces everything).

The 1,000 matches use short matches (first to 3 bout wins, 6-card hands: every rule still
comes up, the Crawford bout included, at a fifth of the steps); a smaller batch plays the
seed's own numbers."""

from __future__ import annotations

import pytest

from games.core.harness import run_conformance
from games.double_or_nothing import GAME
from games.double_or_nothing.settings import DoubleOrNothingSettings

SHORT = DoubleOrNothingSettings(target=3, hand_size=6)
CHUNKS = 4
PER_CHUNK = 250


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_conformance_1000_seeded_short_matches(chunk: int) -> None:
    records = run_conformance(GAME, PER_CHUNK, first_seed=chunk * PER_CHUNK, settings=SHORT)
    assert len(records) == PER_CHUNK
    for record in records:
        assert record.outcome is not None and record.outcome.winner in (0, 1)
        assert record.outcome.score is not None
        assert record.outcome.score[record.outcome.winner] >= SHORT.target


@pytest.mark.slow
def test_conformance_seed_settings() -> None:
    records = run_conformance(GAME, 20, first_seed=5000)
    assert all(r.outcome is not None and max(r.outcome.score or (0, 0)) >= 9 for r in records)


def test_random_matches_reach_every_rule() -> None:
    """The harness's random matches do exercise what the invariants guard: every action, a
    choice between identical sets, the automatic pass, Crawford bouts and every stake up to
    the cap. (Pass is no command any more: the bot passes for a player who cannot move.)"""
    records = run_conformance(GAME, 40, first_seed=9000, settings=SHORT)
    kinds = {type(c).__name__ for r in records for _, c in r.log}
    assert kinds >= {"ChooseStarter", "Play", "PlayAt", "Draw", "DrawJoker", "Place", "Double",
                     "Answer"}
    assert "Pass" not in kinds
    events = [e for r in records for e in r.events]
    assert any(e.kind == "pass" for e in events)
    assert any(e.kind == "bout.start" and e.data["crawford"] for e in events)
    assert {e.data["stake"] for e in events if e.kind == "bout.end"} == {1, 2, 4, 8}
