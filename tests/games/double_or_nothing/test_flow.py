"""Deals, who starts, placement and position choices in private, passing, clocks, views."""

from __future__ import annotations

import random
from collections import Counter

from games.core.contract import OnTimeout, Timeout
from games.double_or_nothing import GAME
from games.double_or_nothing.rules import deck
from games.double_or_nothing.state import Phase
from games.double_or_nothing.text import hand_token
from tests.support.games.double_or_nothing import (
    arrange,
    new,
    prompt_of,
    public_text,
    refusal,
    say,
    seat_text,
)


def test_deal_17_cards_each_6_unused_and_2_jokers_in_front_of_each_player():
    state = new("deal")
    assert [len(h) for h in state.hands] == [17, 17] and len(state.unused) == 6
    assert Counter([*state.hands[0], *state.hands[1], *state.unused]) == Counter(deck())
    assert state.jokers == [2, 2] and state.stake == 1
    opening = GAME.opening_events(state)
    for seat in (0, 1):
        line = " ".join(f"{i + 1}:{c}" for i, c in enumerate(state.hands[seat]))
        assert line in seat_text(opening, seat)
        assert line not in public_text(opening) and line not in seat_text(opening, 1 - seat)
    for seat in (0, 1):
        assert GAME.view(state, seat).my_hand_token == hand_token(seat, state.hands[seat])
        assert GAME.view(state, None).my_hand is None
    assert "{P0} holds the advantage and chooses who starts" in public_text(opening)


def test_the_advantage_holder_picks_the_first_player_then_the_loser_starts():
    state = new("start")
    prompt = prompt_of(state, 0)
    assert prompt.kind == "choose_starter" and prompt.choices == ("me", "opponent")
    say(state, 0, "opponent")
    assert state.turn == 1 and state.phase == Phase.TURN
    arrange(state, [["4"], ["1", "8", "3"]], turn=0)
    say(state, 0, "play 4")
    assert state.bout == 2 and state.starter == 1 and state.turn == 1
    assert [len(h) for h in state.hands] == [17, 17] and state.jokers == [2, 2]


def test_a_drawn_card_is_placed_privately_and_the_opponent_learns_only_that_it_was_placed():
    state = arrange(new(), [["9", "9", "2"], ["1", "5", "3"]], table=["6", "7"], turn=1)
    events = say(state, 1, "draw 7")
    assert "draws the 7" in public_text(events)
    prompt = prompt_of(state, 1)
    assert prompt.kind == "place" and prompt.private
    assert prompt.choices == ("at 1", "at 2", "at 3", "at 4")
    assert "Type 'at N'" in refusal(state, 1, "draw 6")  # placing comes first
    events = say(state, 1, "at 3")
    assert state.hands[1] == ["1", "5", "7", "3"]
    assert "has placed the 7 in their hand" in public_text(events)
    assert "position" not in public_text(events)
    assert "position 3" in seat_text(events, 1) and "3:7" in seat_text(events, 1)
    assert seat_text(events, 0) == ""
    assert state.turn == 0 and state.phase == Phase.TURN


def test_placing_a_joker_and_playing_it():
    state = arrange(new(), [["9", "9", "2"], ["4", "6", "3"]], turn=1)
    say(state, 1, "joker")
    assert state.jokers[1] == 1 and state.placing == "J"
    say(state, 1, "at 2")
    assert state.hands[1] == ["4", "J", "6", "3"]
    say(state, 0, "play 9 9")
    say(state, 1, "play 4 J 6")
    assert state.table_values == [4, 5, 6]


def test_where_a_card_goes_is_refused_in_the_room_and_out_of_range():
    state = arrange(new(), [["9", "9", "2"], ["1", "5", "3"]], table=["6"], turn=1)
    assert "private" in refusal(state, 1, "play 2..3")
    say(state, 1, "draw 6")
    assert "from 1 (front) to 4 (end)" in refusal(state, 1, "at 9")
    assert "not your turn" in refusal(state, 0, "at 1")
    say(state, 1, "end")
    assert state.hands[1] == ["1", "5", "3", "6"]


# --- issue 29, finding 2: identical sets as ruled ------------------------------------------
def test_finding_2_identical_sets_the_room_sees_only_the_set_and_the_opponent_moves_at_once():
    state = arrange(new(), [["5", "5", "1", "5", "5", "8"], ["2", "3"]], table=["4", "4"])
    events = say(state, 0, "play 5 5")
    public = public_text(events)
    assert "{P0} plays 5-5, beating 4-4 (discarded). {P0} has 4 cards left." in public
    assert "table channel" not in public and "which" not in public
    assert state.phase == Phase.TURN and state.turn == 1 and state.table == ["5", "5"]
    # The private question is quiet (never announced), untimed, in seat 0's table channel.
    quiet = [p for p in GAME.prompts(state) if p.seat == 0]
    assert [(p.kind, p.private, p.quiet, p.time_limit) for p in quiet] == [
        ("position", True, True, None)]
    assert quiet[0].choices == ("play 1..2", "play 4..5")
    assert "more than once" in seat_text(events, 0) and "more than once" not in seat_text(events, 1)
    assert state.hands[0] == ["1", "5", "5", "8"]  # the leftmost until the answer
    assert "positions 1..2 or 4..5" in refusal(state, 0, "play 2..3")
    say(state, 0, "play 4..5")
    assert state.hands[0] == ["5", "5", "1", "8"] and state.which is None
    assert state.turn == 1 and state.phase == Phase.TURN  # the opponent's move goes on


def test_finding_2_an_unanswered_copy_is_the_leftmost_at_the_players_next_move():
    state = arrange(new(), [["5", "5", "1", "5", "5", "8"], ["2", "3"]], table=["4", "4"])
    say(state, 0, "play 5 5")
    say(state, 1, "draw 5")
    assert state.which == 0  # still open during the opponent's move
    events = say(state, 1, "at 1")  # seat 0's move begins
    assert state.turn == 0 and state.which is None
    assert state.hands[0] == ["1", "5", "5", "8"]
    assert "did not say which 5-5" in seat_text(events, 0)
    assert "did not say" not in seat_text(events, 1) + public_text(events)


def test_finding_2_copies_that_leave_the_same_hand_ask_nothing():
    state = arrange(new(), [["5", "5", "5", "8"], ["2", "3"]], table=["4"])
    events = say(state, 0, "play 5")  # any 5 of 5-5-5 leaves 5-5-8
    assert state.which is None and [p.seat for p in GAME.prompts(state)] == [1]
    assert state.hands[0] == ["5", "5", "8"]
    assert "more than once" not in seat_text(events, 0)


def test_a_set_found_once_is_played_at_once():
    state = arrange(new(), [["5", "5", "1", "5", "8"], ["2", "3"]])
    say(state, 0, "play 5 5")
    assert state.phase == Phase.TURN and state.hands[0] == ["1", "5", "8"]


# --- issue 29, finding 4: the pass is automatic, and only when no action is legal ------------
def test_finding_4_no_pass_while_a_play_is_possible():
    state = arrange(new(), [["9", "3", "4", "5"], ["J", "J", "1"]], table=[], turn=1)
    state.jokers[0] = 0
    state.discard += ["J", "J"]
    state.crawford = True  # no joker in front of seat 0, the die out of use
    say(state, 1, "play J J")  # equal 10s: nothing can be drawn from it
    assert state.turn == 0 and state.table == ["J", "J"]  # 3-4-5 beats it: no pass
    assert "pass" not in prompt_of(state, 0).choices
    assert "no pass to choose" in refusal(state, 0, "pass")


def test_finding_4_a_player_who_cannot_move_passes_automatically():
    state = arrange(new(), [["9", "3"], ["J", "J", "1"]], table=[], turn=1)
    state.jokers[0] = 0
    state.discard += ["J", "J"]
    state.crawford = True
    GAME.invariants(state)
    events = say(state, 1, "play J J")
    assert state.table == [] and state.turn == 1 and state.phase == Phase.TURN
    assert "{P0} cannot move" in public_text(events) and "the bot passes" in public_text(events)
    assert [e.data.get("reveals") for e in events if e.kind == "pass"] == [0]


def test_clocks_two_minutes_for_the_first_move_of_a_bout_one_minute_after_no_penalty():
    state = new("clock")
    say(state, 0, "me")
    first = prompt_of(state, 0)
    assert first.time_limit == 120 and first.on_timeout == OnTimeout.NOTHING
    say(state, 0, "joker")
    place = prompt_of(state, 0)
    assert place.time_limit == 60 and place.on_timeout == OnTimeout.NOTHING
    say(state, 0, "at 1")
    assert prompt_of(state, 1).time_limit == 60
    assert "no automatic outcome" in str(_timeout_refusal(state, 1))


def _timeout_refusal(state, seat):
    from games.core.contract import IllegalMove

    try:
        GAME.check(state, seat, Timeout(prompt_key=prompt_of(state, seat).key))
    except IllegalMove as exc:
        return exc
    raise AssertionError("a timeout was accepted")


def test_public_view_shows_sizes_jokers_table_stake_doubling_crawford_score_not_hands():
    state = arrange(new(), [["5", "J", "7", "3"], ["8", "6"]], table=[], score=[3, 2])
    say(state, 0, "play 5 J 7")
    public = GAME.view(state, None)
    assert public.hand_sizes == [1, 2] and public.jokers == [1, 2]
    assert public.table == ["5", "J", "7"] and public.table_values == [5, 6, 7]
    assert public.stake == 1 and public.may_double == [True, True] and not public.crawford
    assert public.score == [3, 2] and public.my_hand is None
    mine = GAME.view(state, 0)
    assert mine.my_hand == ["3"]
    assert "5-J(6)-7" in GAME.describe(state, None)
    assert "Your hand" not in GAME.describe(state, None)
    assert "1:3" in GAME.describe(state, 0)


def test_twin_changes_only_the_seats_hidden_cards():
    state = new("twin")
    rng = random.Random(3)
    for _ in range(20):
        twin = GAME.twin(state, 0, rng)
        assert twin is not None
        assert twin.hands[1] == state.hands[1] and twin.chance == state.chance
        assert len(twin.hands[0]) == len(state.hands[0])
        assert Counter(twin.hands[0] + twin.unused) == Counter(state.hands[0] + state.unused)
        assert twin.hands[0] != state.hands[0]
        assert GAME.view(twin, 1) == GAME.view(state, 1)
        assert GAME.view(twin, None) == GAME.view(state, None)


def test_finding_2_the_runtime_never_mentions_the_quiet_question_in_the_room():
    """The messages the runtime composes for the step: the question goes to seat 0's table
    channel, and the room gets no "waiting for {P0} in their table channel" line."""
    from bot.messages import compose

    twice = arrange(new(), [["5", "5", "1", "5", "5", "8"], ["2", "3"]], table=["4", "4"])
    once = arrange(new(), [["5", "5", "1", "2", "3", "8"], ["4", "5"]], table=["4", "4"])
    rooms = []
    for state in (twice, once):
        events = say(state, 0, "play 5 5")
        out = {o.audience: o.text for o in compose(events, GAME.prompts(state), {})}
        rooms.append(out["public"])
        assert ("more than once" in out.get("seat0", "")) == (state is twice)
    assert "table channel" not in rooms[0]
    assert rooms[0] == rooms[1]
