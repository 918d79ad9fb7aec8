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
from tests.support.games.double_or_nothing import arrange, new, say


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


# --- issue 29, finding 3: input read only as the pending decision, numbers as typed ---------
def _refused(state, seat: int, text: str) -> str:  # noqa: ANN001
    from games.core.contract import IllegalMove

    before = state.model_dump_json()
    with pytest.raises((ParseError, IllegalMove)) as caught:
        GAME.check(state, seat, GAME.parse(state, seat, text))
    assert state.model_dump_json() == before
    return str(caught.value)


def test_finding_3_a_negative_draw_keeps_its_sign_and_is_refused():
    state = turn_state()
    for text in ("draw -6", "take -6", "draw −6"):
        assert "no card -6" in _refused(state, 0, text)


def test_finding_3_move_words_are_not_read_as_the_identical_set_position():
    state = arrange(new(), [["5", "5", "1", "5", "5", "8"], ["2", "3"]], table=["4", "4"])
    say(state, 0, "play 5 5")
    for text in ("draw 4", "take 4", "draw 1", "joker", "double"):
        message = _refused(state, 0, text)
        assert "is not an answer to what you are asked now" in message
        assert "Type which cards you play by their positions" in message
    assert state.which == 0


def test_finding_3_the_draw_command_is_not_an_answer_to_a_double():
    state = arrange(new(), [["9", "9", "2"], ["1", "5", "3", "6"]], table=["6"])
    say(state, 0, "double")
    for text in ("take 6", "draw 6", "take 6 please"):
        assert "accept" in _refused(state, 1, text)
    assert GAME.parse(state, 1, "take") == Answer(accept=True)


def test_finding_3_digits_of_other_scripts_are_refused_the_same_way_everywhere():
    state = turn_state()
    play, draw = _refused(state, 0, "play ５"), _refused(state, 0, "draw ６")
    assert "digits 0 to 9" in play and "digits 0 to 9" in draw
    assert "You do not hold" not in play


def test_finding_3_a_play_command_with_a_superscript_is_refused_not_a_crash():
    from games.core.contract import IllegalMove

    with pytest.raises(IllegalMove, match="Cards are 1 to 10"):
        GAME.check(turn_state(), 0, Play(cards=("²",)))
