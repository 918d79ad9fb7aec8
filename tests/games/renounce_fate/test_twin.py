"""The `twin` hook: a world that differs only in one player's secrets (hand, pending pick)."""

from __future__ import annotations

import random
from collections import Counter

from games.renounce_fate import GAME
from games.renounce_fate.cards import DECK
from games.renounce_fate.commands import Renounce
from tests.support.games.renounce_fate import bet, do, new_match


def test_twin_varies_the_hand_with_unused_cards_only():
    state = new_match("twin")
    rng = random.Random(1)
    changed = 0
    for _ in range(30):
        twin = GAME.twin(state, 0, rng)
        assert twin is not None
        assert twin.hands[1] == state.hands[1]
        assert [s.dealt for s in twin.sets] == [s.dealt for s in state.sets]
        assert twin.chance == state.chance and twin.chips == state.chips
        assert len(set(twin.hands[0])) == 2  # never two identical cards in one hand
        assert Counter([*twin.hands[0], *twin.unused]) == Counter([*state.hands[0], *state.unused])
        changed += twin.hands[0] != state.hands[0]
        GAME.invariants(twin)
        assert GAME.view(twin, 1) == GAME.view(state, 1)
        assert GAME.view(twin, None) == GAME.view(state, None)
    assert changed >= 25


def test_twin_varies_a_pending_renounce_pick():
    state = new_match("twin-pick")
    bet(state, "raise", 1)
    bet(state, "call")
    do(state, 1, Renounce(set_no=2, card=state.sets[1].remaining[0]))
    twin = GAME.twin(state, 1, random.Random(2))
    assert twin is not None and twin.picks[1] != state.picks[1]
    assert GAME.describe(twin, 0) == GAME.describe(state, 0)
    assert Counter([*twin.hands[1], *twin.unused, *twin.hands[0],
                    *(c for s in twin.sets for c in s.dealt)]) == Counter(DECK)


def test_no_twin_before_the_deal():
    state = GAME.setup(GAME.settings_model(), "none")
    assert GAME.twin(state, 0, random.Random(0)) is None
