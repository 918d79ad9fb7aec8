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


# 100 short matches in two parts: the first 25 in the pure tier, the other 75 marked slow
# (the service tier and the whole suite), each part held to the whole run's bounds per match,
# so the whole suite plays the same seeds and checks no less (issue 44: the pure tier's
# minute). The slow tests above add 1,010 more.
CI_MATCHES, QUICK = 100, 25


def _short_matches(first: int, count: int) -> None:
    summary = run_information(GAME, count, SHORT, first_seed=9000 + first)
    print(summary)
    assert summary.twins >= count // 2 and summary.compared_steps > 5 * count


def test_two_worlds_look_the_same_to_the_opponent_and_spectators() -> None:
    """The first 25 of the 100 short matches (the other 75: the slow test below)."""
    _short_matches(0, QUICK)


@pytest.mark.slow
def test_two_worlds_look_the_same_in_the_other_75_short_matches() -> None:
    _short_matches(QUICK, CI_MATCHES - QUICK)


def _held_twice_pair():
    from games.double_or_nothing.commands import Draw, Place, Play
    from tests.support.games.double_or_nothing import arrange, new

    twice = arrange(new("pair"), [["5", "5", "1", "5", "5", "8"], ["2", "3", "9"]],
                    table=["4", "4"])
    once = twice.model_copy(deep=True)
    hand = once.hands[0]
    swap = [i for i, c in enumerate(once.unused) if c not in ("5", "1")][:2]
    for pos, j in zip((3, 4), swap, strict=True):
        hand[pos], once.unused[j] = once.unused[j], hand[pos]
    assert once.hands[0][:2] == ["5", "5"] and once.hands[0][2:].count("5") == 0
    moves = [(0, Play(cards=("5", "5"))), (1, Draw(number=5)), (1, Place(position=0))]
    return twice, once, moves


def test_finding_2_worlds_differing_only_in_whether_the_played_set_was_held_twice():
    """Issue 29 finding 2: playing 5-5 from a hand that held it twice, or once, looks the same
    to the opponent and to spectators: the same public text, the opponent's turn at once, no
    sign of the private question (quiet), and the same answers to whatever the opponent types,
    through the opponent's whole move and the start of the player's next one."""
    from games.core.information import check_world_pair
    from games.double_or_nothing.commands import Play

    twice, once, moves = _held_twice_pair()
    assert check_world_pair(GAME, twice, once, 0, moves, seed="held-twice") == 4
    # The held-twice world did ask, quietly, and the once world did not.
    after = twice.model_copy(deep=True)
    GAME.apply(after, 0, Play(cards=("5", "5")))
    assert [p.quiet for p in GAME.prompts(after) if p.seat == 0] == [True]


def test_the_pair_check_sees_a_question_that_is_announced(monkeypatch):
    """The pair check does fail a game whose identical-set question shows (not quiet)."""
    from games.core.information import InformationLeak, check_world_pair
    from games.double_or_nothing import prompts

    original = prompts.which_prompt
    monkeypatch.setattr(prompts, "which_prompt", lambda state, seat: original(
        state, seat).model_copy(update={"quiet": False}))
    twice, once, moves = _held_twice_pair()
    with pytest.raises(InformationLeak, match="after 1 of 3 moves"):
        check_world_pair(GAME, twice, once, 0, moves, seed="announced")
