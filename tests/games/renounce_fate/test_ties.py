"""Tied showdowns: the pot leaves the match while both players hold chips; with a player on 0
chips it is split evenly, an odd chip to the player on 0. The starter does not change. The
player who wins every chip wins the match."""

from __future__ import annotations

from games.renounce_fate import GAME, flow
from games.renounce_fate.state import Phase
from tests.support.games.renounce_fate import bet, new_match, public_texts, renounce_both, set_deal

# Both hands rank nothing with the community 🟥3 🟨5 🟥4 (a pair only, in a 4-card hand).
HANDS = [["R1", "Y1"], ["R2", "Y2"]]
SETS = [["R3", "Y3", "R1"], ["Y5", "R5", "Y4"], ["R4", "Y4", "R2"]]


def tie_round(state):
    set_deal(state, HANDS, SETS)
    if state.phase == Phase.BETTING:
        bet(state, "raise", 2)
        bet(state, "call")
    ev = []
    for n, c in ((1, "R3"), (2, "Y5"), (3, "R4")):
        ev += renounce_both(state, (n, c), (n, c))
    if state.phase == Phase.BETTING and state.betting_no == 2:
        ev += bet(state, "raise", 1)
        ev += bet(state, "call")
    return ev


def test_tie_with_both_players_holding_chips_the_pot_leaves_the_match():
    state = new_match("tie", starter=1)
    events = tie_round(state)
    [show] = [e for e in events if e.kind == "showdown"]
    assert show.data["winner"] is None and show.data["categories"] == ["nothing", "nothing"]
    assert state.removed_ties == 8  # ante 1 + raise 2 + raise 1, each
    [end] = [e for e in events if e.kind == "round.end"]
    assert end.data["chips"] == [26, 26]
    assert "leaves the match" in public_texts(events)
    assert state.starter == 1  # unchanged on a tie
    GAME.invariants(state)


def test_tie_with_a_player_on_0_chips_the_pot_is_shared():
    state = new_match("tie0")
    state.round = 5
    state.chips = [1, 20]  # round 6: ante 2, seat 0 cannot afford it: all-in for 1
    state.round_bets = [0, 0]
    state.removed_ties = 60 - 21
    ev: list = []
    flow.start_round(state, ev)
    assert state.all_in_ante and state.chips == [0, 19]
    events = tie_round(state)
    [end] = [e for e in events if e.kind == "round.end"]
    assert end.data["chips"] == [1, 20] and "shared" in public_texts(events)
    GAME.invariants(state)


def test_odd_chip_of_a_shared_pot_goes_to_the_player_on_0():
    assert flow.split_pot(5, [0, 7], starter=1) == [3, 2]
    assert flow.split_pot(5, [7, 0], starter=0) == [2, 3]
    assert flow.split_pot(4, [0, 7], starter=0) == [2, 2]


def test_settle_an_odd_tied_pot_through_the_round_end():
    state = new_match("odd")
    state.chips = [0, 25]
    state.round_bets = [3, 2]
    state.removed_ties = 60 - 30
    ev: list = []
    flow.settle(state, None, ev)
    [end] = [e for e in ev if e.kind == "round.end"]
    assert end.data["chips"] == [3, 27]
    GAME.invariants(state)


def test_a_player_with_no_chips_after_a_round_loses_the_match():
    state = new_match("end")
    state.chips = [0, 50]
    state.round_bets = [5, 5]
    ev: list = []
    flow.settle(state, 1, ev)
    assert state.phase == Phase.OVER and state.winner == 1
    outcome = GAME.outcome(state)
    assert outcome.winner == 1 and outcome.score == (0, 60)
    assert GAME.prompts(state) == []
