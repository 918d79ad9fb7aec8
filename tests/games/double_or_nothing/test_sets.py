"""The seed's examples of sets, strength, draws and jokers (with the jokers amendment)."""

from __future__ import annotations

import pytest

from games.double_or_nothing import GAME
from games.double_or_nothing.rules import beats, drawable_numbers, evaluate
from games.double_or_nothing.state import Phase
from tests.support.games.double_or_nothing import arrange, new, public_text, refusal, say


def value(*cards: object):
    v = evaluate([str(c) for c in cards])
    assert v is not None, f"{cards} should be a set"
    return v


@pytest.mark.parametrize(("played", "table"), [
    ((3, 4, 5, 6), (8, 8, 8)),  # "a 3-4-5-6 set beats 8-8-8" (more cards)
    ((6, 6), (6, 7)),  # "6-6 beats 6-7" (equal beats consecutive)
    ((8, 9, 10), (2, 3, 4)),  # "8-9-10 beats 2-3-4" (same kind, higher numbers)
])
def test_seed_strength_examples(played, table):
    assert beats(value(*played), table)
    assert not beats(value(*table), played)


def test_same_set_does_not_beat_itself_and_anything_beats_the_empty_table():
    assert not beats(value(5, 5), [5, 5])
    assert not beats(value(4, 5, 6), [6, 5, 4])
    assert beats(value(1), [])


def test_1_2_3_and_3_2_1_are_playable_but_2_3_1_is_not():
    for hand, typed, table in (("1 2 3 9", "play 1 2 3", ["1", "2", "3"]),
                               ("3 2 1 9", "play 3,2,1", ["3", "2", "1"])):
        state = arrange(new(), [hand.split(), ["7", "7"]])
        say(state, 0, typed)
        assert state.table == table
        assert state.hands[0] == ["9"]
    state = arrange(new(), [["2", "3", "1", "9"], ["7", "7"]])
    assert "2-3-1 is not a set" in refusal(state, 0, "play 2 3 1")
    assert evaluate(["2", "3", "1"]) is None


def test_drawing_from_3_4_5_6_only_the_3_or_the_6():
    assert drawable_numbers(["3", "4", "5", "6"], [3, 4, 5, 6]) == [3, 6]
    state = arrange(new(), [["9", "9"], ["1", "1"]], table=["3", "4", "5", "6"], turn=1)
    message = refusal(state, 1, "draw 4")
    assert "you may draw 3 or 6" in message
    say(state, 1, "draw 6")
    assert state.table == ["3", "4", "5"] and state.placing == "6"


def test_a_one_card_table_can_be_drawn_to_the_empty_set():
    state = arrange(new(), [["9", "9"], ["1", "1"]], table=["4"], turn=1)
    say(state, 1, "draw 4")
    say(state, 1, "at 1")
    assert state.table == [] and state.hands[1] == ["4", "1", "1"]


def test_2_J_4_5_6_J_after_drawing_the_2_discards_both_jokers():
    state = arrange(new(), [["9", "9"], ["1", "1"]], table=["2", "J", "4", "5", "6", "J"],
                    values=[2, 3, 4, 5, 6, 7], turn=1)
    events = say(state, 1, "draw 2")
    assert state.table == ["4", "5", "6"] and state.table_values == [4, 5, 6]
    assert state.discard.count("J") == 2
    assert "2 jokers left at the ends of the run are discarded" in public_text(events)


def test_J_5_J_played_as_5_5_5_leaves_a_pair_of_5s_when_the_5_is_drawn():
    """Only the ends of a consecutive run are discarded: the two jokers of an equal set that
    a draw leaves on the table stay there, as a pair of 5s (the rules page's example)."""
    state = arrange(new(), [["J", "5", "J", "3"], ["8", "6", "2", "7", "1"]])
    events = say(state, 0, "play J 5 J")
    assert state.table_values == [5, 5, 5] and "(as 5-5-5)" in public_text(events)
    events = say(state, 1, "draw 5")
    assert state.table == ["J", "J"] and state.table_values == [5, 5]
    assert "J" not in state.discard and "discarded" not in public_text(events)
    # the next player must beat a pair of 5s: a pair of 3s does not
    say(state, 1, "at 1")
    assert "does not beat" in refusal(state, 0, "play 3")


def test_played_jokers_cannot_be_drawn():
    assert drawable_numbers(["J", "J"], [10, 10]) == []
    assert drawable_numbers(["J", "5", "J"], [4, 5, 6]) == []
    state = arrange(new(), [["9", "9"], ["1", "1", "J"]], table=["7", "J"], values=[7, 7],
                    turn=1)
    assert drawable_numbers(state.table, state.table_values) == [7]


def test_7_J_is_always_7_7():
    assert value(7, "J").values == (7, 7) and value(7, "J").kind == "equal"
    assert value("J", 7).values == (7, 7)
    state = arrange(new(), [["7", "J", "2"], ["1", "1"]])
    events = say(state, 0, "play 7 J")
    assert state.table_values == [7, 7]
    assert "(as 7-7)" in public_text(events)
    # 7-7 beats a 9-10 run of two but not a pair of 8s.
    assert beats(value(7, "J"), [9, 10]) and not beats(value(7, "J"), [8, 8])


def test_5_J_7_is_5_6_7_and_after_the_7_is_drawn_the_table_is_5_6():
    state = arrange(new(), [["5", "J", "7", "3"], ["8", "6", "5", "7", "1"]])
    say(state, 0, "play 5 J 7")
    assert state.table_values == [5, 6, 7]
    say(state, 1, "draw 7")
    say(state, 1, "at 1")
    assert state.table == ["5", "J"] and state.table_values == [5, 6]
    # Player 0 must now beat 5-6: a 4-5 run does not, a 6-7 run does, a pair does.
    assert not beats(value(4, 5), state.table_values)
    assert beats(value(6, 7), state.table_values) and beats(value(2, 2), state.table_values)
    assert "does not beat the table's 5-J(6)" in refusal(state, 0, "play 3")


def test_jokers_only_are_equal_tens():
    assert value("J").values == (10,) and value("J", "J").values == (10, 10)
    assert value("J", "J").kind == "equal"
    assert beats(value("J", "J"), [9, 9]) and not beats(value(10, 10), [10, 10])


def test_a_joker_cannot_stretch_a_run_past_1_or_10():
    assert evaluate(["J", "1", "2"]) is None
    assert evaluate(["9", "10", "J"]) is None
    assert evaluate(["2", "1", "J"]) is None
    assert value("J", "2", "3").values == (1, 2, 3)


def test_the_empty_table_at_the_start_is_beaten_by_any_single_card():
    state = new()
    say(state, 0, "me")
    card = state.hands[0][4]
    say(state, 0, f"play {card}")
    assert state.phase in (Phase.TURN, Phase.POSITION)
    GAME.invariants(state)
