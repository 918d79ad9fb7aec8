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

# The 120 default matches and the 80 with small pools are each played in two parts: the
# first in the pure tier, the rest marked slow (the service tier and the whole suite), each
# part held to the whole run's bounds, so the whole suite plays the same seeds and checks no
# less (issue 44: the pure tier's minute). The slow test below adds 500 more.
CI_MATCHES, QUICK = 120, 30
SMALL, SMALL_QUICK = 80, 20
SMALL_POOLS = DevilsDealSettings(pool_limit=4, starting_pool=4, starting_chips=15)


def _matches(first: int, count: int) -> None:
    summary = run_information(GAME, count, first_seed=first)
    print(summary)
    assert summary.compared_steps > 0 and summary.twins > 0


def _small_pools(first: int, count: int) -> None:
    summary = run_information(GAME, count, SMALL_POOLS, first_seed=5000 + first,
                              twin_rate=0.3)
    print(summary)
    assert summary.compared_steps > 0 and summary.reveals > 0


def test_two_worlds_look_the_same_to_the_opponent_and_spectators() -> None:
    """The first 30 of the 120 matches (the other 90: the slow test below)."""
    _matches(0, QUICK)


@pytest.mark.slow
def test_two_worlds_look_the_same_in_the_other_90_matches() -> None:
    _matches(QUICK, CI_MATCHES - QUICK)


def test_two_worlds_with_small_pools() -> None:
    """Small pools make folds, full pools and discards frequent: twins made while a player
    divides (with discards posted) or is choosing private cards. The first 20 of 80 matches
    (the other 60: the slow test below)."""
    _small_pools(0, SMALL_QUICK)


@pytest.mark.slow
def test_two_worlds_with_small_pools_the_other_60_matches() -> None:
    _small_pools(SMALL_QUICK, SMALL - SMALL_QUICK)


@pytest.mark.slow
def test_two_worlds_500_more_matches() -> None:
    summary = run_information(GAME, 500, first_seed=1000)
    print(summary)
    assert summary.compared_steps > 0
