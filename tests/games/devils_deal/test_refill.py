"""The refill step: offers, the 5-chip cost, 12 cards from a fresh deck, equal-sum piles,
the set-aside pile, discards to 10, and the opponent's free take."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from games.core.contract import IllegalMove
from games.devils_deal import GAME
from games.devils_deal.commands import RefillAnswer
from games.devils_deal.state import Phase
from tests.support.games.devils_deal import (
    arrange,
    kinds,
    new,
    public_text,
    say,
    timeout,
    to_refill_offer,
)

EXAMPLE = ["G5", "B3", "R3", "R7", "B6", "G1", "G2", "G8", "B5", "R2", "B9", "G6"]
EXAMPLE_DIVISION = "R2, B3, R3, G6\nG5, B9\nB6, G8\nG2, B5, R7 (set aside)\nUnused: G1"


def example_refill(pool0=("R1", "G9"), pool1=("B1", "B2", "B4")):
    state = new("example")
    arrange(state, pools=[list(pool0), list(pool1)])
    to_refill_offer(state, starter=0)
    say(state, 0, "yes")
    assert state.refill is not None
    state.refill.offered = list(EXAMPLE)  # the seed's example cards
    return state


def test_seed_example_division_takes_exactly_the_piled_cards_not_set_aside():
    state = example_refill()
    say(state, 0, EXAMPLE_DIVISION)
    assert state.phase == Phase.DIVISION  # the last valid submission counts until the deadline
    events = say(state, 0, "done")
    assert Counter(state.pools[0]) == Counter(["R1", "G9", *["R2", "R3", "B3", "G5", "G6", "B6", "G8", "B9"]])
    assert sorted(state.set_aside) == sorted(["G2", "B5", "R7", "G1"])
    assert "takes" in public_text(events)


@pytest.mark.parametrize("marked", [
    "R2, B3, R3, G6\nG5, B9\nB6, G8\nG2, B5, R7 (unused)",
    "R2, B3, R3, G6\nG5, B9\nB6, G8\nUnused: G2, B5, R7",
    "R2, B3, R3, G6\nG5, B9\nB6, G8\nSet aside: G2, B5, R7",
])
def test_ruling_pile_marked_unused_is_the_set_aside_pile_and_the_division_is_accepted(marked):
    """Seed: "writing the contents of each pile in its own line, along with indicating one
    pile as unused"; ruling: "(unused)", "unused:", "(set aside)", "set aside:" mark it."""
    state = example_refill()
    events = say(state, 0, marked)
    assert "Would take" in public_text(events)
    say(state, 0, "done")
    assert Counter(state.pools[0]) == Counter(["R1", "G9", *["R2", "R3", "B3", "G5", "G6", "B6", "G8", "B9"]])
    assert sorted(state.set_aside) == sorted(["G2", "B5", "R7", "G1"])


def test_seed_example_opponent_may_take_any_one_of_g1_g2_b5_r7():
    for card in ("G1", "G2", "B5", "R7"):
        state = example_refill()
        say(state, 0, EXAMPLE_DIVISION)
        say(state, 0, "lock")
        [prompt] = GAME.prompts(state)
        assert (prompt.seat, prompt.kind, prompt.private) == (1, "take", False)
        assert set(prompt.choices) == {"take G1", "take G2", "take B5", "take R7", "nothing"}
        say(state, 1, f"take {card}")
        assert card in state.pools[1] and len(state.pools[1]) == 4
        # The refill is complete; the refiller is offered another.
        assert kinds(state) == [(0, "refill_offer")]


def test_opponent_cannot_take_a_card_that_was_taken():
    state = example_refill()
    say(state, 0, EXAMPLE_DIVISION + "\ndone")
    with pytest.raises(IllegalMove, match="not among the set-aside cards"):
        say(state, 1, "take B9")


def test_refill_costs_5_chips_that_leave_the_game():
    state = new()
    to_refill_offer(state)
    say(state, 0, "yes")
    assert state.chips == [25, 30]
    assert state.removed_refills == 5


def test_refill_deals_12_different_cards_from_a_fresh_deck():
    for i in range(30):
        state = new(f"deal{i}")
        to_refill_offer(state)
        say(state, 0, "yes")
        assert state.refill is not None
        assert len(state.refill.offered) == 12 == len(set(state.refill.offered))


def test_fewer_than_5_chips_cannot_refill():
    state = new()
    arrange(state, chips=[4, 30])
    events = say(state, 0, "me")
    assert "fewer than the 5 a refill costs" in public_text(events)
    assert kinds(state) == [(1, "refill_offer")]  # the offer passes to the opponent
    with pytest.raises(IllegalMove, match="You have 4 chips; a refill costs 5"):
        say(state, 0, "yes")


def test_starting_player_is_offered_first_then_the_opponent():
    state = new()
    to_refill_offer(state, starter=1)
    assert kinds(state) == [(1, "refill_offer")]
    say(state, 1, "no")
    assert kinds(state) == [(0, "refill_offer")]
    say(state, 0, "no")
    assert state.phase == Phase.PRIVATE  # poker step: community drawn after all refills
    assert state.community is not None


def test_refiller_may_refill_any_number_of_times():
    state = new()
    to_refill_offer(state)
    for n in (1, 2, 3):
        say(state, 0, "yes")
        say(state, 0, "nothing")
        say(state, 1, "nothing")
        assert state.chips[0] == 30 - 5 * n
        assert kinds(state) == [(0, "refill_offer")]
    say(state, 0, "no")
    assert kinds(state) == [(1, "refill_offer")]


def test_refill_offer_timeout_means_no_refill():
    state = new()
    to_refill_offer(state)
    events = timeout(state, 0, "refill_offer")
    assert "does not refill" in public_text(events)
    assert state.chips[0] == 30 and kinds(state) == [(1, "refill_offer")]


def test_division_must_use_offered_cards():
    state = example_refill()
    with pytest.raises(IllegalMove, match=r"🟥9 was not offered"):
        say(state, 0, "R9 G5 | B6 G8 | aside: B5 B9")


def test_division_must_not_use_a_card_twice():
    state = example_refill()
    with pytest.raises(IllegalMove, match=r"Each card can be used once; you used 🟩5 \(piles 1, 2\); 🟦9 \(piles 1, 2\) more than once"):
        say(state, 0, "G5 B9 | G5 B9 | aside: B6 G8")


def test_division_piles_must_have_equal_sums_and_the_sums_are_named():
    state = example_refill()
    with pytest.raises(IllegalMove, match="yours sum to 14/14/13"):
        say(state, 0, "G5 B9 | B6 G8 | aside: B5 R7 G1")


def test_division_must_mark_the_set_aside_pile():
    state = example_refill()
    with pytest.raises(IllegalMove, match="Mark the pile you set aside"):
        say(state, 0, "G5 B9 | B6 G8")


def test_single_pile_must_be_the_set_aside_one():
    state = example_refill()
    with pytest.raises(IllegalMove, match="With a single pile"):
        say(state, 0, "G5 B9")
    say(state, 0, "aside: G5 B9 done")
    assert state.pools[0] == ["R1", "G9"]
    assert sorted(state.set_aside) == sorted(EXAMPLE)


def test_discards_down_to_10_in_the_same_submission_and_revealed():
    pool = ["R1", "R4", "R5", "R6", "R8", "R9", "G3", "G4"]  # 8 cards + 8 taken = 16 -> discard 6
    state = example_refill(pool0=pool)
    with pytest.raises(IllegalMove, match="discard exactly 6"):
        say(state, 0, EXAMPLE_DIVISION + "\ndiscard R1 R4 R5 R6 R8 R9 G3")
    events = say(state, 0, EXAMPLE_DIVISION + "\ndiscard R1 R4 R5 R6 R8 R2\ndone")
    assert len(state.pools[0]) == 10
    assert state.discards[0] == ["R1", "R4", "R5", "R6", "R8", "R2"]
    assert "discards 🟥1 🟥4 🟥5 🟥6 🟥8 🟥2" in public_text(events)


def test_discard_not_needed_is_refused():
    state = example_refill()
    with pytest.raises(IllegalMove, match="within the limit of 10: discard nothing"):
        say(state, 0, EXAMPLE_DIVISION + "\ndiscard R1")


def test_discard_must_be_a_pool_card_or_a_taken_card():
    state = example_refill(pool0=["R1", "R4", "R5", "R6", "R8", "R9", "G3", "G4"])
    with pytest.raises(IllegalMove, match="You cannot discard 🟦7"):
        say(state, 0, EXAMPLE_DIVISION + "\ndiscard B7 R4 R5 R6 R8 R9")


def test_lock_refused_while_discards_are_missing():
    state = example_refill(pool0=["R1", "R4", "R5", "R6", "R8", "R9", "G3", "G4"])
    events = say(state, 0, EXAMPLE_DIVISION)
    assert "Not enough discards: 6 more needed" in public_text(events)
    with pytest.raises(IllegalMove, match="discard 6 more before locking in"):
        say(state, 0, "done")


def test_last_valid_division_counts_at_the_deadline():
    state = example_refill()
    say(state, 0, "G5 B9 | aside: B6 G8")
    say(state, 0, EXAMPLE_DIVISION)
    with pytest.raises(IllegalMove):
        say(state, 0, "G5 B9 | B6 G8 | aside: B5 R7 G1")  # invalid: the last valid one stays
    timeout(state, 0, "division")
    assert Counter(state.pools[0]) == Counter(["R1", "G9", *["R2", "R3", "B3", "G5", "G6", "B6", "G8", "B9"]])


def test_division_timeout_without_valid_division_sets_everything_aside():
    state = example_refill()
    events = timeout(state, 0, "division")
    assert state.pools[0] == ["R1", "G9"]
    assert sorted(state.set_aside) == sorted(EXAMPLE)
    assert "time ran out" in public_text(events)


def test_division_timeout_with_missing_discards_discards_at_random():
    state = example_refill(pool0=["R1", "R4", "R5", "R6", "R8", "R9", "G3", "G4"])
    say(state, 0, EXAMPLE_DIVISION + "\ndiscard R1 R4")
    events = timeout(state, 0, "division")
    assert len(state.pools[0]) == 10
    assert state.discards[0][:2] == ["R1", "R4"] and len(state.discards[0]) == 6
    assert "discarded at random" in public_text(events)


def test_take_is_free_and_at_10_cards_needs_a_discard():
    full = ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "G1"]
    state = example_refill(pool1=full)
    say(state, 0, EXAMPLE_DIVISION + "\ndone")
    [prompt] = GAME.prompts(state)
    assert prompt.choices == ("nothing",)
    with pytest.raises(IllegalMove, match="also discard one"):
        say(state, 1, "take G2")
    say(state, 1, "take G2 discard G2")  # possibly the same card
    assert state.pools[1] == full and state.chips[1] == 30
    assert state.discards[1] == ["G2"]


def test_take_with_room_refuses_a_discard():
    state = example_refill()
    say(state, 0, EXAMPLE_DIVISION + "\ndone")
    with pytest.raises(IllegalMove, match="discard nothing"):
        say(state, 1, "take G2 discard B1")


def test_take_timeout_means_nothing_taken():
    state = example_refill()
    say(state, 0, EXAMPLE_DIVISION + "\ndone")
    events = timeout(state, 1, "take")
    assert state.pools[1] == ["B1", "B2", "B4"]
    assert "takes no set-aside card" in public_text(events)


def test_division_prompt_is_public_resubmittable_90_seconds():
    state = example_refill()
    [prompt] = GAME.prompts(state)
    assert (prompt.kind, prompt.private, prompt.resubmittable, prompt.time_limit) == (
        "division", False, True, 90.0)
    key = prompt.key
    say(state, 0, EXAMPLE_DIVISION)
    assert GAME.prompts(state)[0].key == key  # resubmitting does not restart the clock


def test_a_refill_asked_out_of_turn_by_a_player_who_cannot_pay_says_so():
    """A refill command out of its decision: one its player could not pay for gets the
    refill's own refusal (the chips and the cost), anything else the general one."""
    state = new("afford")
    arrange(state, chips=[3, 30])
    to_refill_offer(state, starter=1)  # seat 1 is offered; seat 0 has 3 chips, a refill 5
    assert kinds(state) == [(1, "refill_offer")]
    waiting = "It is not your decision now (waiting for: refill offer)."
    with pytest.raises(IllegalMove, match="^You have 3 chips; a refill costs 5, so you cannot "
                                          "refill.$"):
        GAME.check(state, 0, RefillAnswer(refill=True))
    with pytest.raises(IllegalMove, match=rf"^{re.escape(waiting)}$"):
        GAME.check(state, 0, RefillAnswer(refill=False))
    arrange(state, chips=[5, 28])
    with pytest.raises(IllegalMove, match=rf"^{re.escape(waiting)}$"):
        GAME.check(state, 0, RefillAnswer(refill=True))
