"""Issue 27, crashes on input: whatever a player types is refused or read in time linear in
its length, in every game and every decision.

The figures (milliseconds per refusal) are printed by `python -m bench.input_bounds`; these
tests assert the refusal, an unchanged state, and that reading is linear (10 times the text
costs about 10 times the time, never about 100 times).
"""

from __future__ import annotations

import time
from functools import cache

import pytest

from games.core import IllegalMove, ParseError, parsing
from games.core.harness import reading_seconds, states_by_decision
from games.registry import PREFERRED_ORDER, all_games

GAMES = list(PREFERRED_ORDER)  # the five games (not the test suite's toy game)
HUGE_NUMBER = "9" * 5000
#: Message shapes that made grammars slow: repeated cards, actions, leads, numbers, blanks.
SHAPES = ("a ", "r1 ", "1r ", "use zz ask ", "ask x with zz ", "1 ", "-1 ", "5-", "ask x not any ",
          "set a to 1 ", "y3 set 2 ", "play 5 ", "| ", "\n", "R ", "#1 ", "1c ", "x")


@cache
def _phases(slug: str) -> dict:
    return states_by_decision(all_games()[slug])


def _refusal(slug: str, state, seat: int, text: str) -> str:  # noqa: ANN001
    game = all_games()[slug]
    before = state.model_dump_json()
    try:
        command = game.parse(state, seat, text)
        game.check(state, seat, command)
    except (ParseError, IllegalMove) as exc:
        assert state.model_dump_json() == before
        return str(exc)
    raise AssertionError(f"{slug}: {text[:30]!r}... was accepted as {command!r}")


@pytest.mark.parametrize("slug", GAMES)
def test_a_5000_digit_number_is_refused_in_every_decision(slug):
    phases = _phases(slug)
    assert len(phases) >= 2
    for (kind, seat), state in phases.items():
        for text in (HUGE_NUMBER, f"raise {HUGE_NUMBER}", f"play r{HUGE_NUMBER}",
                     f"keep {HUGE_NUMBER}", f"guess {HUGE_NUMBER}", f"draw -{HUGE_NUMBER}",
                     f"set Cipher Wheel to {HUGE_NUMBER}", f"take G{HUGE_NUMBER}"):
            message = _refusal(slug, state, seat, text)
            assert "5,000 digits" in message, (kind, message)


@pytest.mark.parametrize("slug", GAMES)
def test_a_100000_character_message_is_refused_in_every_decision(slug):
    for (kind, seat), state in _phases(slug).items():
        for shape in ("a ", "use a ask ", "1 "):
            text = shape * (100_000 // len(shape))
            message = _refusal(slug, state, seat, text)
            assert "100,000 characters" in message and "at most 1,000" in message, (kind, message)


def _assert_linear(slug: str, shapes: tuple[str, ...], size: int) -> None:
    game = all_games()[slug]
    for (kind, seat), state in _phases(slug).items():
        for shape in shapes:
            small = shape * (size // len(shape))
            short, long = reading_seconds(game, state, seat, small), reading_seconds(game, state, seat, small * 10)
            assert long < 0.005 or long < 25 * short, (kind, shape, short, long)


@pytest.mark.parametrize("slug", GAMES)
def test_reading_is_linear_in_the_message_length_even_without_the_cap(slug, monkeypatch):
    """With the length cap lifted, 10 times the text costs about 10 times as much (a
    quadratic reader, like Decoder's turn parsing was, costs about 100 times): the shapes
    that were quadratic (Decoder's tank phrases, RPS Poker's card list) and plain words."""
    monkeypatch.setattr(parsing, "MAX_MOVE_CHARS", 10**7)
    _assert_linear(slug, ("use zz ask ", "ask x with zz ", "r1 ", "a "), 10_000)


@pytest.mark.slow
@pytest.mark.parametrize("slug", GAMES)
def test_reading_is_linear_for_every_shape_of_message(slug, monkeypatch):
    monkeypatch.setattr(parsing, "MAX_MOVE_CHARS", 10**7)
    _assert_linear(slug, SHAPES, 10_000)


def test_rps_poker_card_reading_is_linear():
    """Reading the cards of a message rebuilt the text once per card (quadratic, with a small
    constant that a 100,000-character message hides): 300,000 characters show it."""
    from games.rps_poker.cards import find_cards

    def cost(text: str) -> float:
        start = time.thread_time()
        find_cards(text)
        return time.thread_time() - start

    short = min(cost("r1 " * 10_000) for _ in range(3))
    long = min(cost("r1 " * 100_000) for _ in range(2))
    assert long < 25 * short, (short, long)
