"""The two-world information check for Devil's Deal (games.core.information).

Two worlds that differ only in one player's secrets (their unrevealed private cards and their
order, which cards of their pool's public record a fold took away unseen) must look the same
to the opponent and to a spectator: events, views, describe, prompts and their clocks, and
the answer to anything the opponent types.
"""

from __future__ import annotations

import pytest

from games.core.information import run_information
from games.devils_deal import GAME
from games.devils_deal.settings import DevilsDealSettings

CI_MATCHES = 120  # about 12 s on a quiet machine (30 s under load); the slow test adds 500 more


def test_two_worlds_look_the_same_to_the_opponent_and_spectators() -> None:
    summary = run_information(GAME, CI_MATCHES)
    print(summary)
    assert summary.compared_steps > 0 and summary.twins > 0


def test_two_worlds_with_small_pools() -> None:
    """Small pools make folds, full pools and discards frequent: twins made while a player
    divides (with discards posted) or is choosing private cards."""
    settings = DevilsDealSettings(pool_limit=4, starting_pool=4, starting_chips=15)
    summary = run_information(GAME, 80, settings, first_seed=5000, twin_rate=0.3)
    print(summary)
    assert summary.compared_steps > 0 and summary.reveals > 0


@pytest.mark.slow
def test_two_worlds_500_more_matches() -> None:
    summary = run_information(GAME, 500, first_seed=1000)
    print(summary)
    assert summary.compared_steps > 0
