"""The doubling die (ruling: proposing is the whole turn; only the player who did not make
the last accepted double may propose; the stake caps at 8) and the Crawford rule."""

from __future__ import annotations

from games.double_or_nothing import GAME
from games.double_or_nothing.state import Phase
from tests.support.games.double_or_nothing import (
    arrange,
    new,
    prompt_of,
    public_text,
    refusal,
    say,
)

HANDS = [["1", "5", "9"], ["2", "6", "10"]]


def win_bout(state, seat):
    """`seat` empties its one-card hand on an empty table."""
    arrange(state, [["4"] if seat == 0 else ["1", "8", "3"],
                    ["4"] if seat == 1 else ["1", "8", "3"]], turn=seat, score=state.score)
    say(state, seat, "play 4")


def test_proposing_a_double_is_the_whole_turn_and_accepting_gives_the_move_to_the_acceptor():
    state = arrange(new(), HANDS)
    events = say(state, 0, "double")
    assert state.phase == Phase.DOUBLE
    answer = prompt_of(state, 1)
    assert answer.kind == "double_answer" and answer.choices == ("accept", "forfeit")
    assert not answer.private
    assert "proposes a double" in public_text(events)
    say(state, 1, "accept")
    assert state.stake == 2 and state.turn == 1 and state.phase == Phase.TURN
    assert prompt_of(state, 1).kind == "move"


def test_forfeiting_gives_the_bout_at_the_current_stake():
    state = arrange(new(), HANDS)
    say(state, 0, "double")
    events = say(state, 1, "forfeit")
    assert state.score == [1, 0]
    assert "{P0} wins bout 1" in public_text(events)
    assert state.bout == 2 and state.starter == 1  # the loser starts the next bout


def test_a_forfeit_after_an_accepted_double_pays_the_doubled_stake():
    state = arrange(new(), HANDS)
    say(state, 0, "double")
    say(state, 1, "accept")  # worth 2
    say(state, 1, "double")  # 1 proposes 4
    say(state, 0, "forfeit")
    assert state.score == [0, 2]


def test_only_the_player_who_did_not_make_the_last_accepted_double_may_propose():
    state = arrange(new(), HANDS)
    say(state, 0, "double")
    say(state, 1, "accept")
    say(state, 1, "play 2")
    assert "double" not in prompt_of(state, 0).choices
    assert "only your opponent may propose" in refusal(state, 0, "double")
    assert GAME.view(state, None).may_double == [False, True]  # public


def test_the_stake_caps_at_8():
    state = arrange(new(), HANDS)
    for proposer in (0, 1, 0):
        say(state, proposer, "double")
        say(state, 1 - proposer, "accept")
    assert state.stake == 8 and state.turn == 1
    assert "double" not in prompt_of(state, 1).choices
    assert "cannot go over 8" in refusal(state, 1, "double")


def test_crawford_7_4_to_8_4_no_double_then_8_5_double_again_then_8_8_no_double():
    state = arrange(new(), HANDS, score=[7, 4])
    win_bout(state, 0)
    assert state.score == [8, 4] and state.crawford
    assert "Crawford" in GAME.status(state)
    assert "Crawford bout" in refusal(state, state.turn, "double")
    assert "double" not in prompt_of(state, state.turn).choices
    win_bout(state, 1)  # the player on 8 loses the Crawford bout
    assert state.score == [8, 5] and not state.crawford
    say(state, state.turn, "double")  # the die is back
    say(state, 1 - state.turn, "forfeit")
    state.score = [8, 7]
    win_bout(state, 1)
    assert state.score == [8, 8] and state.crawford
    assert "Crawford bout" in refusal(state, state.turn, "double")


def test_crawford_also_when_8_is_reached_by_a_doubled_win():
    state = arrange(new(), [["4"], ["1", "8", "3"]], turn=1, score=[6, 0])
    say(state, 1, "double")
    say(state, 0, "accept")  # worth 2, seat 0 moves
    say(state, 0, "play 4")  # 6 + 2 = 8
    assert state.score == [8, 0] and state.crawford
    assert "Crawford bout" in refusal(state, state.turn, "double")


def test_reaching_9_or_more_ends_the_match():
    state = arrange(new(), [["1", "8", "3"], ["4"]], turn=0, score=[7, 3])
    for proposer in (0, 1, 0):
        say(state, proposer, "double")
        say(state, 1 - proposer, "accept")
    events = say(state, 1, "play 4")  # worth 8: 3 + 8 = 11
    assert state.phase == Phase.OVER and state.score == [7, 11]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 1 and outcome.score == (7, 11)
    assert GAME.prompts(state) == []
    assert "{P1} wins the match 11-7" in public_text(events)
