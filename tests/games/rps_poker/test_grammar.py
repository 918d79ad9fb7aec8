"""What players type, in the draft and in the main phase, and what is refused."""

from __future__ import annotations

import pytest

from games.core import IllegalMove, ParseError
from games.rps_poker import GAME
from games.rps_poker.cards import find_cards
from games.rps_poker.commands import Keep, Play
from games.rps_poker.state import RpsState
from tests.support.games.rps_poker import first_pick_all, new_match


@pytest.fixture
def draft() -> RpsState:
    """A match where seat 0 was given R3 and S7."""
    return _given(new_match("grammar"), ["R3", "S7"])


@pytest.mark.parametrize("text", [
    "keep R3", "Keep r3", "KEEP R3!", "pick r3", "r3", "R 3", "rock 3", "3 rock", "🪨3",
    "🪨 3", "keep ✊3", "take rock-3", "1", "#1", "first", "1st", "left", "keep 1", "pick #1",
    "choose card 1", "  keep   r3  ", "i keep R3",
])
def test_draft_keep_r3(draft: RpsState, text: str) -> None:
    assert GAME.parse(draft, 0, text) == Keep(card="R3")


@pytest.mark.parametrize("text", ["keep S7", "s7", "scissors 7", "✂️7", "✂7", "✌7", "2",
                                  "#2", "second", "right", "last", "keep 2nd", "7 scissors"])
def test_draft_keep_s7(draft: RpsState, text: str) -> None:
    assert GAME.parse(draft, 0, text) == Keep(card="S7")


def _given(state: RpsState, wanted: list[str]) -> RpsState:
    """Seat 0 given `wanted` in the draft (swapped in, keeping every card once)."""
    given = list(state.offers[0])
    swap = dict(zip(wanted, given, strict=True)) | dict(zip(given, wanted, strict=True))
    state.undealt = [swap.get(c, c) for c in state.undealt]
    state.offers = [[swap.get(c, c) for c in o] for o in state.offers]
    state.offers[0] = wanted
    GAME.invariants(state)
    return state


def test_a_card_is_named_by_its_number_where_only_one_card_has_it() -> None:
    """Issue 42, item 9: holding 📄2 and 📄5 (the prompt shows them so), `keep 5` keeps 📄5;
    `keep 2` could be 📄2 or the card at position 2, and is refused naming both."""
    state = _given(new_match("numbers"), ["P2", "P5"])
    assert GAME.parse(state, 0, "keep 5") == Keep(card="P5")
    assert GAME.parse(state, 0, "5") == Keep(card="P5")
    with pytest.raises(ParseError, match=r"2 could be 📄2 \(its number\) or 📄5 \(position 2\)"):
        GAME.parse(state, 0, "keep 2")
    assert GAME.parse(state, 0, "#2") == Keep(card="P5")  # a position, said as one
    assert GAME.parse(state, 0, "keep P2") == Keep(card="P2")
    assert "keep 📄2 or P2" in GAME.usage(state, 0)  # the prompt's form, and the letter one


def test_play_by_card_and_position() -> None:
    state = new_match("play")
    for _ in range(5):
        first_pick_all(state)
    hand = state.hand[0]
    assert GAME.parse(state, 0, f"play {hand[1]}") == Play(card=hand[1])
    assert GAME.parse(state, 0, "#3") == Play(card=hand[2])
    assert GAME.parse(state, 0, "play #1") == Play(card=hand[0])
    assert GAME.parse(state, 0, "third") == Play(card=hand[2])
    assert GAME.parse(state, 0, hand[0].lower()) == Play(card=hand[0])


@pytest.mark.parametrize("text, message", [
    ("keep", "Type keep and a card (keep 🪨3 or R3, keep ✂️7 or S7), its number alone where "
               "only one card has it, or its position #1 to 2."),
    ("hello", "Type keep and a card (keep 🪨3 or R3, keep ✂️7 or S7), its number alone where "
               "only one card has it, or its position #1 to 2."),
    ("R12", "There is no card R12: cards are R, P or S with a number 0 to 9."),
    ("#5", "There is no position 5: you have 2 cards."),
    ("third", "There is no position third: you have 2 cards."),
    ("keep R3 S7", "Name one card only."),
    ("raise 999", "Type keep and a card"),
])
def test_draft_rejections(draft: RpsState, text: str, message: str) -> None:
    with pytest.raises(ParseError) as err:
        GAME.parse(draft, 0, text)
    assert str(err.value).startswith(message)


def test_card_not_offered_is_an_illegal_move_naming_the_choices(draft: RpsState) -> None:
    command = GAME.parse(draft, 0, "keep P5")
    assert command == Keep(card="P5")
    with pytest.raises(IllegalMove, match=r"^📄5 is not one of your two cards: keep 🪨3 or ✂️7\.$"):
        GAME.check(draft, 0, command)


def test_first_choice_is_final(draft: RpsState) -> None:
    GAME.submit(draft, 0, Keep(card="R3"))
    with pytest.raises(IllegalMove, match="You already chose 🪨3 this round; the first choice is final."):
        GAME.check(draft, 0, Keep(card="S7"))
    assert [p.seat for p in GAME.prompts(draft)] == [1]


def test_play_during_draft_and_keep_during_main_are_refused() -> None:
    state = new_match("phase")
    with pytest.raises(IllegalMove, match="It is the draft"):
        GAME.check(state, 0, Play(card=state.offers[0][0]))
    for _ in range(5):
        first_pick_all(state)
    with pytest.raises(IllegalMove, match="The draft is over"):
        GAME.check(state, 0, Keep(card=state.hand[0][0]))
    other = state.hand[1][0]
    with pytest.raises(IllegalMove, match="is not in your hand: play one of"):
        GAME.check(state, 0, Play(card=other))


def test_usage_and_over() -> None:
    state = new_match("usage")
    assert GAME.usage(state, 0).startswith("Type keep and a card (keep ")
    while state.phase != "over":
        first_pick_all(state)
    with pytest.raises(ParseError, match="The match is over"):
        GAME.parse(state, 0, "1")


def test_find_cards_reads_symbol_first_before_number_first() -> None:
    assert find_cards("keeps 2 🪨3") == ["R3"]
    assert find_cards("3 rock, paper9 and S 4") == ["R3", "P9", "S4"]
    assert find_cards("red 3") == []
