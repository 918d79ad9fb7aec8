"""What players type: every decision's grammar, tolerant spellings and rejection messages."""

from __future__ import annotations

import pytest

from games.core.contract import ParseError
from games.devils_deal import GAME
from games.devils_deal.commands import (
    Bet,
    ChooseStarter,
    Division,
    LockDivision,
    PrivateCards,
    RefillAnswer,
    Take,
)
from games.devils_deal.grammar import (
    parse_division,
    parse_private,
    parse_take,
    read_cards,
)
from tests.support.games.devils_deal import new, say, to_poker

SEED_PILES = (("R2", "B3", "R3", "G6"), ("G5", "B9"), ("B6", "G8"), ("G2", "B5", "R7"))


@pytest.mark.parametrize("text", ["R7", "r7", "red 7", "Red7", "🟥7", "🟥️7", "🔴 7", "7 red", "r-7"])
def test_card_spellings(text: str) -> None:
    assert read_cards(text)[0] == ["R7"]


def test_card_that_does_not_exist():
    with pytest.raises(ParseError, match="There is no card R0"):
        read_cards("R0 G5")


@pytest.mark.parametrize("text", [
    "R2 B3 R3 G6\nG5 B9\nB6 G8\nG2 B5 R7 (set aside)\nUnused: G1",
    "R2, B3, R3, G6 | G5 B9 | B6 G8 | aside: G2 B5 R7",
    "r2 b3 r3 g6 / g5 b9 / b6 g8 / set aside g2 b5 r7",
    "pile 1: R2 B3 R3 G6; pile 2: G5 B9; pile 3: B6 G8; aside: G2 B5 R7",
    "1. R2 B3 R3 G6\n2. G5 B9\n3. B6 G8\n4. G2 B5 R7 aside",
    "🟥2 🟦3 🟥3 🟩6 = 14 | 🟩5 🟦9 = 14 | 🟦6 🟩8 | aside 🟩2 🟦5 🟥7",
])
def test_division_forms(text: str) -> None:
    assert parse_division(text) == Division(piles=SEED_PILES, aside=3)


@pytest.mark.parametrize("text", [
    "R2 B3 R3 G6\nG5 B9\nB6 G8\nG2 B5 R7 (unused)",
    "R2 B3 R3 G6\nG5 B9\nB6 G8\nG2 B5 R7 (UNUSED)",
    "R2 B3 R3 G6\nG5 B9\nB6 G8\nunused: G2 B5 R7",
    "R2 B3 R3 G6\nG5 B9\nB6 G8\nUnused: G2 B5 R7\nUnused: G1",
    "R2 B3 R3 G6\nG5 B9\nB6 G8\nG2 B5 R7 (Set Aside)",
    "R2 B3 R3 G6\nG5 B9\nB6 G8\nSET ASIDE: G2 B5 R7\nunused: G1",
])
def test_ruling_a_pile_line_marked_unused_or_set_aside_is_the_set_aside_pile(text: str) -> None:
    """Ruling: a pile line marked "(unused)", "unused:", "(set aside)" or "set aside:" (any
    case) is the pile set aside (seed: "writing the contents of each pile in its own line,
    along with indicating one pile as unused")."""
    assert parse_division(text) == Division(piles=SEED_PILES, aside=3)


def test_a_lone_unused_line_that_cannot_be_a_pile_lists_leftover_cards():
    """"Unused: G1" next to piles of sum 14 is the seed's leftover line, not a pile."""
    assert parse_division("R2 B3 R3 G6\nG5 B9\nUnused: G1") == Division(
        piles=(("R2", "B3", "R3", "G6"), ("G5", "B9")), aside=None)


def test_two_unused_piles_that_both_fit_are_refused():
    with pytest.raises(ParseError, match="Mark only one pile as set aside"):
        parse_division("G5 B9 | unused: B6 G8 | unused: G2 B5 R7")


def test_division_with_discards_and_lock():
    assert parse_division("G5 B9 | B6 G8 | aside: G2 B5 R7 | discard B3 G1 | done") == Division(
        piles=(("G5", "B9"), ("B6", "G8"), ("G2", "B5", "R7")), aside=2, discards=("B3", "G1"),
        lock=True)
    assert parse_division("G5 B9\naside B6 G8 discard R1") == Division(
        piles=(("G5", "B9"), ("B6", "G8")), aside=1, discards=("R1",))


def test_division_lock_and_nothing():
    assert parse_division("done") == LockDivision()
    assert parse_division("Lock in!") == LockDivision()
    assert parse_division("nothing") == Division(lock=True)


def test_division_rejections():
    with pytest.raises(ParseError, match="I could not read 'x7'"):
        parse_division("G5 B9 | aside x7")
    with pytest.raises(ParseError, match="Mark only one pile as set aside"):
        parse_division("aside G5 B9 | aside B6 G8")
    with pytest.raises(ParseError, match="Write piles of equal sum"):
        parse_division("hello")


def test_take_forms():
    assert parse_take("take G2") == Take(card="G2")
    assert parse_take("G2") == Take(card="G2")
    assert parse_take("take green 2, discard B3") == Take(card="G2", discard="B3")
    assert parse_take("nothing") == Take()
    assert parse_take("pass") == Take()
    with pytest.raises(ParseError, match="Take exactly one card"):
        parse_take("take G2 B3")
    with pytest.raises(ParseError, match="Discard exactly one card"):
        parse_take("take G2 discard B3 B4")


def test_private_forms():
    assert parse_private("R7 B3") == PrivateCards(first="R7", second="B3")
    assert parse_private("red 7 then blue 3") == PrivateCards(first="R7", second="B3")
    assert parse_private("second R7 first B3") == PrivateCards(first="B3", second="R7")
    assert parse_private("🟦3 🟥7") == PrivateCards(first="B3", second="R7")
    with pytest.raises(ParseError, match="Name exactly two cards \\(you named 3\\)"):
        parse_private("R7 B3 G1")


def test_context_decides_what_text_means():
    state = new()
    assert GAME.parse(state, 0, "me") == ChooseStarter(starter=0)
    assert GAME.parse(state, 0, "Opponent") == ChooseStarter(starter=1)
    say(state, 0, "me")
    assert GAME.parse(state, 0, "Yes!") == RefillAnswer(refill=True)
    assert GAME.parse(state, 0, "n") == RefillAnswer(refill=False)
    with pytest.raises(ParseError, match="Type 'yes' to refill or 'no' to pass"):
        GAME.parse(state, 0, "maybe")


def test_bet_forms_and_rejections():
    state = to_poker((["R4", "R6", "G1"], ["G1", "G9", "B2"]), "B5")
    say(state, 0, "R4 R6")
    say(state, 1, "G1 G9")
    assert GAME.parse(state, 0, "Raise 3") == Bet(action="raise", amount=3)
    assert GAME.parse(state, 0, "raise3") == Bet(action="raise", amount=3)
    assert GAME.parse(state, 0, "FOLD.") == Bet(action="fold")
    assert GAME.parse(state, 0, "call 2") == Bet(action="call")
    assert GAME.parse(state, 0, "all in") == Bet(action="raise", amount=28)
    with pytest.raises(ParseError, match="How much do you raise"):
        GAME.parse(state, 0, "raise")
    with pytest.raises(ParseError, match="at least 1"):
        GAME.parse(state, 0, "raise -1")
    with pytest.raises(ParseError, match="Type 'call', 'raise N'"):
        GAME.parse(state, 0, "check")
    # Every button text is accepted by the parser.
    for prompt in GAME.prompts(state):
        for choice in prompt.choices:
            GAME.check(state, prompt.seat, GAME.parse(state, prompt.seat, choice))


def test_usage_says_what_the_seat_can_type():
    state = new()
    assert "me" in GAME.usage(state, 0)
    assert "wait for your opponent" in GAME.usage(state, 1)
    with pytest.raises(ParseError, match="Type 'me'"):
        GAME.parse(state, 0, "help")
