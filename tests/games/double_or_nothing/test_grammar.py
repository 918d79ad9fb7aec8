"""What players type, read tolerantly: spacing, separators, order words, positions."""

from __future__ import annotations

import pytest

from games.core.contract import ParseError
from games.double_or_nothing import GAME
from games.double_or_nothing.commands import (
    Answer,
    ChooseStarter,
    Double,
    Draw,
    DrawJoker,
    Pass,
    Place,
    Play,
    PlayAt,
)
from tests.games.double_or_nothing.helpers import arrange, new, say


def turn_state():
    return arrange(new(), [["5", "5", "5", "3", "2", "1"], ["7", "7"]], table=["6", "7"])


@pytest.mark.parametrize(("text", "command"), [
    ("play 5 5 5", Play(cards=("5", "5", "5"))),
    ("  PLAY   5-5-5 ", Play(cards=("5", "5", "5"))),
    ("play5 5 5", Play(cards=("5", "5", "5"))),
    ("play 3,2,1", Play(cards=("3", "2", "1"))),
    ("play J 7", Play(cards=("J", "7"))),
    ("play joker 7", Play(cards=("J", "7"))),
    ("play 5-J-7", Play(cards=("5", "J", "7"))),
    ("play 10 10", Play(cards=("10", "10"))),
    ("I play 3 then 2 then 1", Play(cards=("3", "2", "1"))),
    ("3 2 1", Play(cards=("3", "2", "1"))),
    ("draw 6", Draw(number=6)),
    ("Draw a 7!", Draw(number=7)),
    ("take 7", Draw(number=7)),
    ("joker", DrawJoker()),
    ("draw joker", DrawJoker()),
    ("double", Double()),
    ("propose a double", Double()),
    ("pass", Pass()),
])
def test_moves_in_the_room(text, command):
    assert GAME.parse(turn_state(), 0, text) == command


@pytest.mark.parametrize(("text", "message"), [
    ("play 4..6", "Positions in your hand are private"),
    ("at 3", "Positions in your hand are private"),
    ("play 11", "There is no card 11"),
    ("draw", "Name the one card you draw"),
    ("play", "Name the cards you play"),
    ("dance", "Type 'play'"),
])
def test_refused_moves_say_what_to_type(text, message):
    with pytest.raises(ParseError, match=message):
        GAME.parse(turn_state(), 0, text)


def test_starter_choice():
    state = new()
    assert GAME.parse(state, 0, "me") == ChooseStarter(starter=0)
    assert GAME.parse(state, 0, "Opponent") == ChooseStarter(starter=1)


def test_placement_in_the_table_channel():
    state = arrange(new(), [["9", "9", "2"], ["1", "5", "3"]], table=["6"], turn=1)
    say(state, 1, "draw 6")
    for text, position in (("at 3", 2), ("3", 2), ("position 3", 2), ("#2", 1), ("front", 0),
                           ("end", 3), ("at 4", 3)):
        assert GAME.parse(state, 1, text) == Place(position=position)


def test_which_identical_set_by_positions():
    state = arrange(new(), [["5", "5", "1", "5", "5", "8"], ["2", "3"]], table=["4", "4"])
    say(state, 0, "play 5 5")
    assert GAME.parse(state, 0, "play 4..5") == PlayAt(start=3)
    assert GAME.parse(state, 0, "4-5") == PlayAt(start=3)
    assert GAME.parse(state, 0, "#1") == PlayAt(start=0)
    with pytest.raises(ParseError, match="The set is 2 cards"):
        GAME.parse(state, 0, "play 4..6")


def test_answers_to_a_double():
    state = arrange(new(), [["9", "9", "2"], ["1", "5", "3"]])
    say(state, 0, "double")
    assert GAME.parse(state, 1, "accept") == Answer(accept=True)
    assert GAME.parse(state, 1, "Forfeit!") == Answer(accept=False)
    assert GAME.parse(state, 1, "take") == Answer(accept=True)
    with pytest.raises(ParseError, match="accept"):
        GAME.parse(state, 1, "maybe")
