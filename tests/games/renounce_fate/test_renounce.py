"""Renouncing the fate cards: simultaneous private picks, same and different picks, sets that
lock at 1 and at 0, 1, 2 or 3 community cards, the 40-second default."""

from __future__ import annotations

import pytest

from games.core.contract import IllegalMove, Timeout
from games.renounce_fate import GAME
from games.renounce_fate.commands import Renounce
from games.renounce_fate.rules import legal_picks, resolve
from games.renounce_fate.state import Phase
from tests.support.games.renounce_fate import (
    bet,
    do,
    new_match,
    public_texts,
    renounce_both,
    set_deal,
)

HANDS = [["R1", "Y1"], ["R2", "Y2"]]
SETS = [["R3", "Y3", "R1"], ["Y5", "R5", "Y4"], ["R4", "Y4", "R2"]]


def at_renounce(seed: str = "renounce"):
    state = new_match(seed)
    set_deal(state, HANDS, SETS)
    bet(state, "raise", 1)
    bet(state, "call")
    assert state.phase == Phase.RENOUNCE
    return state


def remaining(state):
    return [s.remaining for s in state.sets]


def test_renouncing_follows_the_first_betting_round_with_a_private_prompt_each():
    state = at_renounce()
    prompts = GAME.prompts(state)
    assert [(p.seat, p.kind, p.private) for p in prompts] == [(0, "renounce", True),
                                                              (1, "renounce", True)]
    assert all(p.time_limit == 40 for p in prompts)


def test_different_picks_are_both_discarded():
    state = at_renounce()
    events = renounce_both(state, (1, "R3"), (2, "Y4"))
    assert remaining(state) == [["Y3", "R1"], ["Y5", "R5"], ["R4", "Y4", "R2"]]
    text = public_texts(events)
    assert "both are discarded" in text and "Set 1: 🟨3 🟥1 — open (discarded 🟥3)" in text


def test_the_same_card_of_the_same_set_is_locked_and_the_rest_of_its_set_discarded():
    state = at_renounce()
    events = renounce_both(state, (2, "R5"), (2, "R5"))
    assert remaining(state)[1] == ["R5"] and state.sets[1].kept == "R5"
    assert sorted(state.sets[1].discarded) == ["Y4", "Y5"]
    assert "Set 2: 🟥5 — locked" in public_texts(events)


def test_the_same_card_in_two_different_sets_is_not_the_same_pick():
    state = at_renounce()
    renounce_both(state, (2, "Y4"), (3, "Y4"))  # 🟨4 of set 2 and 🟨4 of set 3: different
    assert remaining(state)[1] == ["Y5", "R5"] and remaining(state)[2] == ["R4", "R2"]


def test_two_different_picks_in_one_set_of_three_lock_it_at_1():
    state = at_renounce()
    renounce_both(state, (1, "R3"), (1, "Y3"))
    assert remaining(state)[0] == ["R1"] and state.sets[0].locked


def test_a_set_of_two_locks_at_0_when_both_its_cards_are_renounced():
    state = at_renounce()
    renounce_both(state, (1, "R3"), (2, "Y5"))
    renounce_both(state, (1, "Y3"), (1, "R1"))
    assert remaining(state)[0] == [] and state.sets[0].locked


def test_only_sets_with_more_than_one_card_can_be_renounced_from():
    state = at_renounce()
    renounce_both(state, (1, "Y3"), (1, "Y3"))  # set 1 locked with 🟨3
    with pytest.raises(IllegalMove, match="Set 1 is locked"):
        GAME.check(state, 0, Renounce(set_no=1, card="Y3"))
    with pytest.raises(IllegalMove, match="not in set 2"):
        GAME.check(state, 0, Renounce(set_no=2, card="R1"))
    with pytest.raises(IllegalMove, match="no set 4"):
        GAME.check(state, 0, Renounce(set_no=4, card="R1"))
    [prompt, _] = GAME.prompts(state)
    # The buttons / menu list exactly the legal picks.
    assert prompt.choices == tuple(f"renounce {c} set {n}" for n, c in legal_picks(remaining(state)))
    assert not any("set 1" in c for c in prompt.choices)


def test_picks_are_private_until_both_are_in_and_the_first_pick_is_final():
    state = at_renounce()
    events = do(state, 0, Renounce(set_no=3, card="R2"))
    public = public_texts(events)
    assert "has picked" in public and "🟥2" not in public
    own = [e for e in events if e.audience.kind == "seat"]
    assert own and own[0].audience.seat == 0 and "🟥2 from set 3" in own[0].text
    assert [p.seat for p in GAME.prompts(state)] == [1]  # seat 1's clock runs on
    with pytest.raises(IllegalMove, match="first pick is final"):
        GAME.check(state, 0, Renounce(set_no=3, card="R4"))
    assert GAME.view(state, 1).my_pick is None and GAME.view(state, 0).my_pick == [3, "R2"]
    assert GAME.view(state, None).picked == [True, False]
    events = do(state, 1, Renounce(set_no=2, card="Y5"))
    reveal = public_texts(events)
    assert "🟥2 from set 3" in reveal and "🟨5 from set 2" in reveal


def test_renounce_timeout_picks_a_random_legal_card_and_says_so():
    state = at_renounce()
    renounce_both(state, (1, "Y3"), (1, "Y3"))
    prompt = next(p for p in GAME.prompts(state) if p.seat == 1)
    events = GAME.submit(state, 1, Timeout(prompt_key=prompt.key))
    assert "Time ran out" in public_texts(events)
    pick = state.picks[1]
    assert pick is not None and pick.timed_out and pick.set_no in (2, 3)
    own = [e for e in events if e.audience.kind == "seat" and e.audience.seat == 1]
    assert "random" in own[0].text
    events = do(state, 0, Renounce(set_no=2, card="Y5"))
    assert "(at random: time ran out)" in public_texts(events)


def test_three_community_cards_when_every_set_locks_at_one_card():
    state = at_renounce()
    renounce_both(state, (1, "R3"), (1, "R3"))
    renounce_both(state, (2, "Y5"), (2, "Y5"))
    events = renounce_both(state, (3, "R4"), (3, "R4"))
    assert state.community == ["R3", "Y5", "R4"]
    assert "best 4-card hand" in public_texts(events)
    assert state.phase == Phase.BETTING and state.betting_no == 2


def test_two_community_cards():
    state = at_renounce()
    renounce_both(state, (2, "Y5"), (3, "R4"))
    renounce_both(state, (2, "R5"), (2, "Y4"))  # set 2 empty
    renounce_both(state, (3, "Y4"), (3, "Y4"))
    events = renounce_both(state, (1, "R1"), (1, "R1"))
    assert state.community == ["R1", "Y4"]
    assert "best 3-card hand" in public_texts(events)


def test_one_community_card():
    state = at_renounce()
    renounce_both(state, (2, "Y5"), (3, "R4"))
    renounce_both(state, (2, "R5"), (2, "Y4"))
    renounce_both(state, (3, "Y4"), (3, "R2"))
    events = renounce_both(state, (1, "R1"), (1, "R1"))
    assert state.community == ["R1"]
    assert "best 2-card hand" in public_texts(events)


def test_renouncing_never_leaves_zero_community_cards():
    """Nine cards, and a step discards two or locks a set: at least one card always stays."""
    import random

    rng = random.Random(3)
    for _ in range(3000):
        sets = [list(s) for s in SETS]
        while legal := legal_picks(sets):
            resolve(sets, [rng.choice(legal), rng.choice(legal)])
        assert 1 <= sum(len(s) for s in sets) <= 3


def test_a_clear_picture_of_the_three_sets_after_every_step():
    state = at_renounce()
    events = renounce_both(state, (1, "R3"), (1, "Y3"))
    text = public_texts(events)
    for line in ("Set 1: 🟥1 — locked (discarded 🟥3 🟨3)", "Set 2: 🟨5 🟥5 🟨4 — open",
                 "Set 3: 🟥4 🟨4 🟥2 — open"):
        assert line in text
    described = GAME.describe(state, None)
    assert "Set 1: 🟥1 — locked" in described and "Pot 4" in described
