"""The poker step: community card, private cards, ante, two betting phases with reveals,
showdown, folds and the high-card penalty, and the game end conditions in order."""

from __future__ import annotations

import pytest

from games.core.contract import Audience, IllegalMove, OnTimeout
from games.devils_deal import GAME
from games.devils_deal.state import Phase
from tests.support.games.devils_deal import (
    arrange,
    kinds,
    new,
    public_text,
    say,
    timeout,
    to_poker,
)

POOLS = (["R4", "R6", "R1", "R9", "B2"], ["G1", "G9", "G4", "G6", "B3"])


def betting(pools=POOLS, community="B5", chips=(30, 30), starter=0, cards=("R4 R6", "G1 G9")):
    """Both chose private cards (seat 0: R4 then R6 -> straight with B5)."""
    state = to_poker(pools, community, chips=chips, starter=starter)
    say(state, 0, cards[0])
    say(state, 1, cards[1])
    return state


# --- private cards -------------------------------------------------------------------------
def test_private_cards_are_chosen_simultaneously_in_table_channels():
    state = to_poker(POOLS, "B5")
    prompts = GAME.prompts(state)
    assert [(p.seat, p.kind, p.private, p.time_limit, p.on_timeout) for p in prompts] == [
        (0, "private_cards", True, 90.0, OnTimeout.LOSE),
        (1, "private_cards", True, 90.0, OnTimeout.LOSE)]
    events = say(state, 1, "G4 G6")
    assert kinds(state) == [(0, "private_cards")]
    own = [e for e in events if e.audience == Audience.to(1)]
    assert own and "🟩4" in own[0].text
    assert "🟩4" not in public_text(events)
    assert any(e.audience == Audience.umpire() and "🟩4" in e.text for e in events)


def test_private_cards_may_not_be_the_same_card_or_the_community_card():
    state = to_poker([["R4", "R4", "B5", "G1"], POOLS[1]], "B5")
    with pytest.raises(IllegalMove, match="must be different cards; you chose 🟥4 twice"):
        say(state, 0, "R4 R4")
    with pytest.raises(IllegalMove, match="🟦5 is the community card"):
        say(state, 0, "B5 G1")
    with pytest.raises(IllegalMove, match="🟦9 is not in your pool"):
        say(state, 0, "B9 G1")


def test_private_cards_keep_their_reveal_order():
    state = betting(cards=("R6 R4", "G9 G1"))
    say(state, 0, "raise 1")
    events = say(state, 1, "call")
    assert "First private cards: {P0} 🟥6, {P1} 🟩9" in public_text(events)


# --- ante ----------------------------------------------------------------------------------
def test_ante_2_each_and_1_chip_removed_so_the_pot_starts_at_3():
    state = betting()
    assert state.chips == [28, 28]
    assert state.ante_pot == 3
    assert state.removed_ante == 1
    assert kinds(state) == [(0, "bet")]


def test_immediate_fold_gives_the_winner_3_chips_a_net_gain_of_1():
    # Seat 0 (starter) folds a straight at once: no penalty.
    state = betting()
    events = say(state, 0, "fold")
    assert state.chips == [28, 31]
    assert "pays no fold penalty" in public_text(events)
    assert state.starter == 1  # the poker winner starts the next round


# --- betting -------------------------------------------------------------------------------
def test_no_call_on_the_first_turn_of_a_betting_phase():
    state = betting()
    with pytest.raises(IllegalMove, match="nothing to call: you can raise 1 to 28 or fold"):
        say(state, 0, "call")
    [prompt] = GAME.prompts(state)
    assert "call" not in " ".join(prompt.choices)
    assert prompt.choices[-1] == "fold" and "raise 28" in prompt.choices


def test_raise_matches_then_adds_and_call_ends_the_phase():
    state = betting()
    say(state, 0, "raise 2")
    events = say(state, 1, "raise 3")  # matches 2, adds 3: puts in 5
    assert state.chips == [26, 23]
    assert "{P0} needs 3 to call" in public_text(events)
    say(state, 0, "call")
    assert state.chips == [23, 23]
    assert state.betting_no == 2 and state.revealed == [1, 1]


def test_raise_capped_by_the_opponents_remaining_chips():
    state = betting(chips=(30, 10))  # after the ante: 28 and 8
    with pytest.raises(IllegalMove, match="You can raise at most 8"):
        say(state, 0, "raise 9")
    say(state, 0, "raise 8")
    assert state.chips == [20, 8]
    # Seat 1 can call 8 but cannot raise: the raiser's own chips after matching are 0.
    with pytest.raises(IllegalMove, match="You cannot raise now: you can call 8 or fold"):
        say(state, 1, "raise 1")


def test_raise_capped_by_the_raisers_own_chips_after_matching():
    state = betting(chips=(30, 30))
    say(state, 0, "raise 20")  # seat 0 has 8 left; seat 1 must put in 20 to match
    with pytest.raises(IllegalMove, match=r"You can raise at most 8 \(after calling 20 you would "
                                          r"have 8 chips left, your opponent has 8\)"):
        say(state, 1, "raise 9")
    say(state, 1, "raise 8")
    assert state.chips == [8, 0]
    say(state, 0, "call")  # both all in: phase 2 is skipped, showdown: straight wins 3+28+28
    assert state.chips == [59, 0]


def test_player_starting_a_phase_with_no_chips_skips_it_without_folding():
    state = betting(chips=(30, 30))
    say(state, 0, "raise 28")
    events = say(state, 1, "call")
    text = public_text(events)
    assert "betting phase 2 ends at once (no bets, no folding)" in text
    assert "Second private cards" in text
    assert "Showdown" in text  # straight (seat 0) beats high card (seat 1)
    assert state.chips == [59, 0]
    assert state.round == 2


def test_reveals_after_each_betting_phase_then_showdown():
    state = betting()
    say(state, 0, "raise 1")
    e1 = say(state, 1, "call")
    assert "First private cards: {P0} 🟥4, {P1} 🟩1" in public_text(e1)
    say(state, 0, "raise 1")
    e2 = say(state, 1, "call")
    text = public_text(e2)
    assert "Second private cards: {P0} 🟥6, {P1} 🟩9" in text
    assert "{P0} 🟥4 🟥6 🟦5 (straight); {P1} 🟩1 🟩9 🟦5 (high card)" in text
    assert state.chips == [26 + 7, 26]  # pot 3 + 2 + 2 to seat 0
    assert state.starter == 0 and state.round == 2


def test_showdown_tie_returns_bets_and_the_ante_leaves_the_game():
    pools = (["R4", "R6", "G1"], ["G4", "G6", "R1"])
    state = betting(pools=pools, community="B5", starter=1, cards=("R4 R6", "G4 G6"))
    say(state, 1, "raise 2")
    say(state, 0, "call")
    say(state, 1, "raise 1")
    events = say(state, 0, "call")
    assert "A tie" in public_text(events)
    assert state.chips == [28, 28]
    assert state.removed_ties == 3
    assert state.starter == 1  # the starting player does not change


def test_betting_timeout_folds():
    state = betting()
    [prompt] = GAME.prompts(state)
    assert (prompt.time_limit, prompt.private) == (20.0, False)
    events = timeout(state, 0, "bet")
    assert "ran out of time to bet and folds" in public_text(events)
    assert state.chips == [28, 31]


# --- the high-card fold penalty ------------------------------------------------------------
def test_fold_with_high_card_pays_2_more_to_the_opponent():
    state = betting()
    say(state, 0, "raise 1")
    events = say(state, 1, "fold")  # G1 G9 + B5: high card
    assert "folded a high-card hand and pays {P0} the 2-chip penalty" in public_text(events)
    assert state.chips == [27 + 4 + 2, 28 - 2]  # pot 3 + 1, then the penalty


def test_fold_penalty_judged_on_the_full_hand_including_unrevealed_cards():
    # Seat 1 folds before any reveal; its hand G4 G6 B5 is a straight: no penalty.
    state = betting(cards=("R4 R6", "G4 G6"))
    say(state, 0, "raise 1")
    events = say(state, 1, "fold")
    assert "{P1} pays no fold penalty" in public_text(events)
    assert "🟩4" not in public_text(events) and "🟩6" not in public_text(events)
    assert state.chips == [27 + 4, 28]


def test_fold_penalty_on_timeout_too():
    state = betting()
    say(state, 0, "raise 1")
    timeout(state, 1, "bet")
    assert state.chips == [27 + 4 + 2, 26]


def test_unable_to_pay_the_fold_penalty_loses():
    state = betting(chips=(30, 3))
    say(state, 0, "raise 1")  # seat 1 has 1 chip after the ante
    events = say(state, 1, "fold")
    assert state.phase == Phase.OVER
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 0
    assert "cannot pay the 2-chip penalty" in outcome.reason
    assert "cannot pay" in public_text(events)


def test_folded_unrevealed_cards_stay_secret():
    state = betting()
    say(state, 0, "raise 1")
    say(state, 1, "call")  # first cards revealed
    say(state, 0, "fold")
    secrets = GAME.secrets(state)
    assert {s.value for s in secrets} >= {"seat0:R4>R6", "seat1:G1>G9"}
    # The pools too: their public record still holds the folded cards.
    assert {s.value for s in secrets if ":pool:" in s.value} == {
        f"seat{x}:pool:{'.'.join(state.pools[x])}" for x in (0, 1)}
    spectator = GAME.view(state, None).model_dump_json()
    assert "R4>R6" not in spectator and "🟥6" not in "\n".join(state.log)


# --- end conditions -----------------------------------------------------------------------
def poker_start(pools, chips=(30, 30), starter=0, seed="end"):
    """Play to the community card of round 1 through the public API with no refills."""
    for i in range(200):
        state = new(f"{seed}{i}")
        arrange(state, pools=pools, chips=chips)
        say(state, 0, "me" if starter == 0 else "opponent")
        for seat in (starter, 1 - starter):
            if kinds(state) == [(seat, "refill_offer")]:
                say(state, seat, "no")
        return state
    raise AssertionError


def test_unable_to_choose_private_cards_loses():
    state = poker_start([["R1"], ["G1", "G2", "G3"]])
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 1
    assert "cannot choose two private cards" in outcome.reason


def test_both_unable_to_choose_private_cards_the_starting_player_loses():
    for starter in (0, 1):
        state = poker_start([["R1"], ["G1"]], starter=starter)
        outcome = GAME.outcome(state)
        assert outcome is not None and outcome.winner == 1 - starter


def test_cards_condition_comes_before_the_ante_condition():
    # Seat 1 cannot pay the ante, but seat 0 cannot form a hand: seat 0 loses first.
    state = poker_start([["R1"], ["G1", "G2", "G3"]], chips=(30, 1))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 1


def test_community_card_can_make_a_two_card_pool_unable():
    from games.devils_deal.rules import can_choose_private

    assert not can_choose_private(["R1", "R2"], "R1")
    assert not can_choose_private(["R2", "R2"], "G5")  # two copies are not two cards
    assert can_choose_private(["R1", "R2", "R2"], "G5")


def test_unable_to_pay_the_ante_loses():
    state = to_poker(POOLS, "B5", chips=(1, 30))
    say(state, 0, "R4 R6")
    say(state, 1, "G1 G9")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 1
    assert outcome.reason == "{P0} cannot pay the 2-chip ante"


def test_both_unable_to_pay_the_ante_the_starting_player_loses():
    for starter in (0, 1):
        state = to_poker(POOLS, "B5", chips=(1, 0), starter=starter)
        say(state, 0, "R4 R6")
        say(state, 1, "G1 G9")
        outcome = GAME.outcome(state)
        assert outcome is not None and outcome.winner == 1 - starter
        assert "neither player can pay" in outcome.reason


def test_private_card_timeout_loses():
    state = to_poker(POOLS, "B5")
    say(state, 1, "G1 G9")
    timeout(state, 0, "private_cards")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 1


def test_private_card_timeout_of_both_the_starting_player_loses():
    for starter in (0, 1):
        state = to_poker(POOLS, "B5", starter=starter)
        timeout(state, 1 - starter, "private_cards")
        assert state.phase == Phase.PRIVATE  # waits for the other clock
        assert kinds(state) == [(starter, "private_cards")]
        timeout(state, starter, "private_cards")
        outcome = GAME.outcome(state)
        assert outcome is not None and outcome.winner == 1 - starter


def test_timed_out_player_loses_even_if_the_other_then_chooses():
    state = to_poker(POOLS, "B5")
    timeout(state, 0, "private_cards")
    say(state, 1, "G1 G9")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 1
    assert outcome.reason == "{P0} did not choose private cards in time"


def test_round_end_announces_the_break_for_the_runtime():
    state = betting()
    events = say(state, 0, "fold")
    [end] = [e for e in events if e.kind == "round.end"]
    assert end.data["pause_seconds"] == 20.0 and end.data["next_starter"] == 1
    assert kinds(state) == [(1, "refill_offer")]
