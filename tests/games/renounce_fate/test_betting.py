"""Ante, betting caps, the leader's options, folds and who starts."""

from __future__ import annotations

import pytest

from games.core.contract import IllegalMove, Timeout
from games.renounce_fate import GAME, RenounceFateSettings, flow
from games.renounce_fate.commands import Bet
from games.renounce_fate.state import Phase
from tests.support.games.renounce_fate import bet, new_match, public_texts


def fold_round(state):
    """The leader folds at once (ending the round)."""
    return bet(state, "fold")


def test_ante_starts_at_1_and_rises_by_1_every_5_rounds():
    s = RenounceFateSettings()
    assert [s.ante(r) for r in range(1, 17)] == [1] * 5 + [2] * 5 + [3] * 5 + [4]
    state = new_match("ante", starting_chips=200)
    paid = []
    while state.round <= 11:
        paid.append((state.round, state.round_bets[0], state.round_bets[1]))
        fold_round(state)
    assert [(r, a) for r, a, b in paid if a == b] == [(r, 1 + (r - 1) // 5) for r in range(1, 12)]


def test_player_who_cannot_afford_the_ante_puts_in_everything_matched_and_betting_is_skipped():
    state = new_match("allin")
    state.round = 5  # next round's ante is 2
    state.chips = [1, 29]
    state.round_bets = [0, 0]
    state.removed_ties = 30
    ev: list = []
    flow.start_round(state, ev)
    assert state.round == 6 and state.round_bets == [1, 1] and state.chips == [0, 28]
    assert state.all_in_ante
    assert state.phase == Phase.RENOUNCE  # the first betting round was skipped
    text = public_texts(ev)
    assert "cannot afford" in text and "Betting round 1 is skipped" in text
    GAME.invariants(state)


def test_leader_cannot_check_but_must_raise_or_fold():
    state = new_match("lead", starter=1)
    assert state.betting.to_act == 1
    with pytest.raises(IllegalMove, match="nothing to call"):
        GAME.check(state, 1, Bet(action="call"))
    [prompt] = GAME.prompts(state)
    assert not any(c.startswith("call") for c in prompt.choices)
    assert "fold" in prompt.choices and "raise 1" in prompt.choices


def test_raise_is_1_to_10_on_top_of_the_call():
    state = new_match("caps")
    with pytest.raises(IllegalMove, match="at most 10"):
        GAME.check(state, 0, Bet(action="raise", amount=11))
    with pytest.raises(IllegalMove, match="at least 1"):
        GAME.check(state, 0, Bet(action="raise", amount=0))
    bet(state, "raise", 10)
    assert state.round_bets == [11, 1]


def test_no_player_may_have_more_than_15_in_the_pot_so_the_pot_never_exceeds_30():
    state = new_match("pot-cap")
    bet(state, "raise", 10)  # seat 0: 11 in the pot
    with pytest.raises(IllegalMove, match="at most 4"):
        GAME.check(state, 1, Bet(action="raise", amount=5))
    bet(state, "raise", 4)  # seat 1: 15
    opts = GAME.view(state, 0).bet
    assert opts.min_raise is None and opts.can_call  # capped: only call or fold
    bet(state, "call")
    assert state.round_bets == [15, 15] and state.pot == 30


def test_leader_may_call_for_0_when_no_raise_is_possible():
    state = new_match("call0")
    bet(state, "raise", 10)
    bet(state, "raise", 4)
    bet(state, "call")  # 15 each: renouncing
    while state.phase == Phase.RENOUNCE:
        for prompt in GAME.prompts(state):
            GAME.submit(state, prompt.seat, Timeout(prompt_key=prompt.key))
    assert state.phase == Phase.BETTING and state.betting_no == 2
    [prompt] = GAME.prompts(state)
    assert prompt.seat == state.starter and "call 0" in prompt.choices
    assert not any(c.startswith("raise") for c in prompt.choices)
    events = bet(state, "call")
    assert "calls for 0" in public_texts(events)
    assert any(e.kind == "showdown" for e in events)


def test_a_fold_gives_the_pot_to_the_opponent_and_shows_no_hands():
    state = new_match("fold")
    hands = [list(h) for h in state.hands]
    bet(state, "raise", 3)
    events = bet(state, "fold")
    [end] = [e for e in events if e.kind == "round.end"]
    assert end.data["chips"] == [31, 29] and end.data["pot"] == 5 and end.data["winner"] == 0
    text = "\n".join(e.text for e in events if e.audience.kind == "public")
    assert "not shown" in text
    assert not any(e.kind == "showdown" for e in events)
    from games.renounce_fate.cards import render_all

    for h in hands:
        assert render_all(h) not in text
    assert state.starter == 0  # the winner starts the next round


def test_winner_of_a_round_starts_the_next_and_leads_both_betting_rounds():
    state = new_match("starter", starter=0)
    bet(state, "fold")  # seat 0 folds: seat 1 wins
    assert state.round == 2 and state.starter == 1 and state.betting.to_act == 1
    bet(state, "raise", 1)
    bet(state, "call")
    while state.phase == Phase.RENOUNCE:
        for prompt in GAME.prompts(state):
            GAME.submit(state, prompt.seat, Timeout(prompt_key=prompt.key))
    assert state.betting_no == 2 and state.betting.to_act == 1


def test_betting_timeout_is_30_seconds_and_folds():
    state = new_match("bet-timeout")
    [prompt] = GAME.prompts(state)
    assert prompt.time_limit == 30 and "fold" in prompt.timeout_text
    events = GAME.submit(state, 0, Timeout(prompt_key=prompt.key))
    assert "Time ran out" in public_texts(events) and state.round == 2 and state.starter == 1


def test_betting_rounds_are_skipped_when_a_player_has_no_chips_left():
    state = new_match("broke")
    state.round = 1
    state.chips = [1, 29]
    state.round_bets = [0, 0]
    state.removed_ties = 30
    ev: list = []
    flow.start_round(state, ev)  # ante 1: seat 0 can pay it and has 0 left
    assert not state.all_in_ante and state.chips[0] == 0
    assert state.phase == Phase.RENOUNCE
    assert "no chips left" in public_texts(ev)
