"""The two-world information harness: worlds that differ only in one player's hand (cards
swapped with unused ones, a card placed elsewhere) look the same to the opponent and to
spectators: views, texts, prompts and clocks, the existence of private prompts, and every
answer to what the opponent types."""

from __future__ import annotations

import pytest

from games.core.information import run_information
from games.double_or_nothing import GAME
from games.double_or_nothing.settings import DoubleOrNothingSettings

SHORT = DoubleOrNothingSettings(target=3, hand_size=6)
CHUNKS = 4
PER_CHUNK = 250


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_two_worlds_1000_seeded_short_matches(chunk: int) -> None:
    summary = run_information(GAME, PER_CHUNK, SHORT, first_seed=chunk * PER_CHUNK)
    print(summary)
    assert summary.matches == PER_CHUNK
    assert summary.twins >= PER_CHUNK // 2 and summary.compared_steps > 5 * PER_CHUNK


@pytest.mark.slow
def test_two_worlds_seed_settings() -> None:
    summary = run_information(GAME, 10, first_seed=7000)
    print(summary)
    assert summary.compared_steps > 100


CI_MATCHES = 100  # about 9 s on a quiet machine; the slow tests add 1,010 more


def test_two_worlds_look_the_same_to_the_opponent_and_spectators() -> None:
    summary = run_information(GAME, CI_MATCHES, SHORT, first_seed=9000)
    print(summary)
    assert summary.twins >= CI_MATCHES // 2 and summary.compared_steps > 5 * CI_MATCHES
