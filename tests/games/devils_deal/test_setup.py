"""Start of the match: pools of 5 from one fresh deck, 30 chips, the starter choice."""

from __future__ import annotations

import pytest

from games.core.contract import IllegalMove
from games.devils_deal import GAME
from games.devils_deal.cards import DECK
from games.devils_deal.state import Phase
from tests.support.games.devils_deal import kinds, new, public_text, say, timeout


def test_starting_pools_have_5_cards_each_from_one_fresh_deck():
    for i in range(50):
        state = new(f"pools{i}")
        a, b = state.pools
        assert len(a) == len(b) == 5
        assert len(set(a) | set(b)) == 10  # no card twice, none shared
        assert set(a) | set(b) <= set(DECK)


def test_starting_pools_are_public_and_each_player_has_30_chips():
    state = new()
    [event] = GAME.opening_events(state)
    assert event.audience.kind == "public"
    assert event.data["pools"] == state.pools
    assert state.chips == [30, 30]
    spectator = GAME.view(state, None)
    assert spectator.possible_pools == [sorted(p) for p in state.pools]


def test_advantage_holder_chooses_the_first_starter_after_the_pools_are_shown():
    state = new()
    [prompt] = GAME.prompts(state)
    assert (prompt.seat, prompt.kind, prompt.private, prompt.time_limit) == (
        0, "choose_starter", False, 90.0)
    assert prompt.choices == ("me", "opponent")
    with pytest.raises(IllegalMove, match="not your decision"):
        say(state, 1, "me")
    say(state, 0, "opponent")
    assert state.starter == 1 and state.round == 1
    assert kinds(state) == [(1, "refill_offer")]


def test_starter_choice_timeout_the_advantage_holder_starts():
    state = new()
    events = timeout(state, 0, "choose_starter")
    assert state.starter == 0 and state.phase == Phase.REFILL_OFFER
    assert "Time ran out: {P0} starts round 1." in public_text(events)


def test_prompt_keys_are_unique_over_a_match():
    state = new()
    seen = set()
    for text, seat in [("me", 0), ("no", 0), ("no", 1)]:
        for prompt in GAME.prompts(state):
            assert prompt.key not in seen
            seen.add(prompt.key)
        say(state, seat, text)
    assert all(p.key not in seen for p in GAME.prompts(state))


def test_state_survives_json():
    state = new()
    say(state, 0, "me")
    say(state, 0, "yes")
    again = GAME.load_state(state.model_dump_json())
    assert again.model_dump_json() == state.model_dump_json()


def test_invariants_catch_a_lost_chip():
    state = new()
    state.chips[0] -= 1
    with pytest.raises(AssertionError, match="chips not conserved"):
        GAME.invariants(state)


def test_invariants_catch_a_lost_card():
    state = new()
    state.pools[1].pop()
    with pytest.raises(AssertionError, match="card count of seat 1"):
        GAME.invariants(state)


def test_registry_finds_the_game():
    from games.registry import get_game

    assert get_game("devils-deal") is GAME
    assert get_game("Devils Deal") is GAME
