"""The seed's rules, one test each (names follow the seed's sections)."""

from __future__ import annotations

import itertools

import pytest

from games.core import Timeout
from games.core.harness import play_random_match
from games.rps_poker import GAME, rules
from games.rps_poker.cards import CARDS, INDEX, render
from games.rps_poker.rules import HIGHER, PAIR, RPS, judge, judge_index, match_winner, win_reason
from tests.support.games.rps_poker import first_pick_all, new_match


# --- The deck -------------------------------------------------------------------------------
def test_full_deck_is_30_unique_cards_of_three_symbols_and_ten_numbers() -> None:
    assert len(CARDS) == 30 == len(set(CARDS))
    assert CARDS[0] == "R0" and CARDS[-1] == "S9"
    assert {c[0] for c in CARDS} == {"R", "P", "S"}
    assert {c[1] for c in CARDS} == set("0123456789")


def test_match_deck_is_a_shuffle_of_the_full_deck_from_the_seed() -> None:
    a, b = new_match("one"), new_match("one")
    assert a.undealt == b.undealt and a.offers == b.offers
    assert sorted(a.undealt + a.offers[0] + a.offers[1]) == sorted(CARDS)
    assert new_match("two").undealt != a.undealt


# --- Draft phase ----------------------------------------------------------------------------
def test_draft_each_player_is_given_two_cards_from_the_top() -> None:
    state = new_match("draft")
    deck = GAME.setup(state.settings, "draft").offers[0] + GAME.setup(state.settings, "draft").offers[1]
    assert len(state.offers[0]) == len(state.offers[1]) == 2
    assert state.offers[0] + state.offers[1] == deck
    assert rules.draft_offers(list(range(30)), 0) == ([0, 1], [2, 3])
    assert rules.draft_offers(list(range(30)), 4) == ([16, 17], [18, 19])
    assert rules.remaining_after_draft(list(range(30))) == list(range(20, 30))


def test_draft_unselected_card_goes_to_the_opponent() -> None:
    state = new_match("pass")
    o0, o1 = list(state.offers[0]), list(state.offers[1])
    GAME.submit(state, 0, GAME.parse(state, 0, "keep 2"))
    GAME.submit(state, 1, GAME.parse(state, 1, "keep 1"))
    assert state.kept == [[o0[1]], [o1[0]]]
    assert state.received == [[o1[1]], [o0[0]]]
    assert rules.draft_pass(["R1", "S2"], 1) == ("S2", "R1")


def test_draft_gives_each_player_10_cards_and_10_remain() -> None:
    state = new_match("ten")
    for _ in range(5):
        assert state.phase == "draft"
        first_pick_all(state)
    assert state.phase == "main"
    for seat in (0, 1):
        assert len(state.kept[seat]) == 5 and len(state.received[seat]) == 5
        assert len(state.hand[seat]) + len(state.draw_pile[seat]) == 10
    # ten cards remain for the base cards: one is shown, nine wait
    assert len(state.remaining) == 9 and state.base is not None
    every = (state.remaining + [state.base] + state.hand[0] + state.hand[1]
             + state.draw_pile[0] + state.draw_pile[1])
    assert sorted(every) == sorted(CARDS)


def test_draft_each_player_knows_5_of_the_opponents_cards() -> None:
    state = new_match("know")
    for _ in range(5):
        first_pick_all(state, 1)
    for seat in (0, 1):
        view = GAME.view(state, seat)
        assert len(view.opponent_known) == 5
        opponent_deck = set(state.kept[1 - seat] + state.received[1 - seat])
        assert set(view.opponent_known) <= opponent_deck
        assert set(view.opponent_known) == set(state.received[1 - seat])


# --- Main phase -----------------------------------------------------------------------------
def test_main_hand_sizes_three_then_two_then_one() -> None:
    state = new_match("hands", auto_play_last_card=False)
    for _ in range(5):
        first_pick_all(state)
    sizes = []
    for _ in range(10):
        sizes.append((len(state.hand[0]), len(state.hand[1])))
        first_pick_all(state)
    assert sizes == [(3, 3)] * 8 + [(2, 2), (1, 1)]
    assert state.phase == "over" and sum(state.score) == 10


def test_main_base_card_is_shown_from_the_remaining_deck_each_game() -> None:
    state = new_match("bases")
    for _ in range(5):
        first_pick_all(state)
    order = [state.base] + list(state.remaining)
    seen = []
    while state.phase == "main":
        seen.append(state.base)
        first_pick_all(state)
    assert seen[:9] == order[:9] and len(state.history) == 10
    assert [g.base for g in state.history] == order


def test_main_each_player_draws_after_a_game_unless_nothing_is_left() -> None:
    state = new_match("draws", auto_play_last_card=False)
    for _ in range(5):
        first_pick_all(state)
    top = state.draw_pile[0][0]
    first_pick_all(state)
    assert state.hand[0][-1] == top and len(state.draw_pile[0]) == 6


# --- Deciding the winner of a single game ---------------------------------------------------
def test_winner_pair_beats_non_pair() -> None:
    # R1 pairs with the base P1; S9 is higher but not a pair.
    assert judge("R1", "S9", "P1") == 0
    assert judge("S9", "R1", "P1") == 1
    assert win_reason("R1", "S9", "P1") == PAIR


def test_winner_higher_number_when_no_pair() -> None:
    assert judge("R3", "P7", "S5") == 1
    assert judge("S0", "R9", "P5") == 1
    assert judge("P8", "S2", "R1") == 0
    assert win_reason("R3", "P7", "S5") == HIGHER


def test_winner_rps_when_numbers_equal() -> None:
    # R beats S, S beats P, P beats R (same number, no pair).
    assert judge("R4", "S4", "P0") == 0
    assert judge("S4", "P4", "R0") == 0
    assert judge("P4", "R4", "S0") == 0
    assert judge("S4", "R4", "P0") == 1
    assert judge("P4", "S4", "R0") == 1
    assert judge("R4", "P4", "S0") == 1
    assert win_reason("R4", "S4", "P0") == RPS


def test_winner_both_pairs_compare_by_rps() -> None:
    # All three share the number: both are pairs, numbers equal, so RPS decides.
    assert judge("R3", "P3", "S3") == 1  # paper beats rock
    assert judge("S3", "P3", "R3") == 0  # scissors beat paper


def test_winner_no_draw_is_possible_over_every_card_triple() -> None:
    count = 0
    for a, b, base in itertools.permutations(CARDS, 3):
        w = judge(a, b, base)
        assert w in (0, 1)
        assert judge(b, a, base) == 1 - w, (a, b, base)
        count += 1
    assert count == 30 * 29 * 28


def test_judge_table_matches_the_rule_function() -> None:
    assert len(rules.JUDGE) == 30 ** 3
    for a, b, c in itertools.product(range(30), repeat=3):
        if len({a, b, c}) < 3:  # impossible: a card repeated
            assert rules.JUDGE[a * 900 + b * 30 + c] == 2
            assert not rules.WIN_VS[c][a] >> b & 1
            continue
        assert rules.JUDGE[a * 900 + b * 30 + c] == judge_index(a, b, c)
        assert (rules.WIN_VS[c][a] >> b & 1) == (judge_index(a, b, c) == 0)
    assert all(0 <= mask < 1 << 30 for row in rules.WIN_VS for mask in row)


def test_judge_refuses_repeated_or_unknown_cards() -> None:
    with pytest.raises(ValueError):
        judge("R1", "R1", "S2")
    with pytest.raises(ValueError):
        judge("R1", "X1", "S2")
    assert INDEX["S9"] == 29


# --- Scoring and the match result -----------------------------------------------------------
def test_winner_gains_one_point_and_more_points_wins() -> None:
    assert match_winner(6, 4) == 0 and match_winner(3, 7) == 1 and match_winner(5, 5) is None
    state = new_match("score")
    while state.phase != "over":
        before = list(state.score)
        first_pick_all(state)
        if state.history and state.phase != "draft":
            last = state.history[-1]
            # at most two games per call (auto-played last card); the winners got the points
            gained = [state.score[i] - before[i] for i in (0, 1)]
            assert sum(gained) in (0, 1, 2) and gained[last.winner] >= 1
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.score == tuple(state.score) and sum(state.score) == 10
    assert outcome.winner == match_winner(*state.score)


def test_five_five_is_a_drawn_match() -> None:
    record = play_random_match(GAME, "conformance-1")
    assert record.outcome is not None
    assert record.outcome.score == (5, 5)
    assert record.outcome.winner is None
    assert record.outcome.reason == "5-5: a drawn match"
    assert record.events[-1].text == "The match is over: 5-5, a drawn match."


# --- Timing: at the limit the bot picks uniformly at random --------------------------------
def test_timeout_picks_at_random_from_the_match_chance_and_says_so() -> None:
    picked = {0: 0, 1: 0}
    for i in range(200):
        state = new_match(f"timeout-{i}")
        offer = list(state.offers[0])
        events = GAME.submit(state, 0, Timeout(prompt_key="draft1-seat0"))
        picked[offer.index(state.pending[0])] += 1
        public = [e.text for e in events if e.audience.kind == "public"]
        assert "Time ran out for {P0}: the bot chose at random for them." in public
        assert not any(render(c) in t for t in public for c in offer)
        assert not any(c in str(e.data) for e in events if e.audience.kind == "public"
                       for c in offer)
        # the same seed replays to the same choice
        again = new_match(f"timeout-{i}")
        GAME.submit(again, 0, Timeout(prompt_key="draft1-seat0"))
        assert again.pending == state.pending
    assert 70 < picked[0] < 130 and picked[0] + picked[1] == 200


def test_timeout_in_main_phase_plays_a_card_of_the_hand() -> None:
    state = new_match("late")
    for _ in range(5):
        first_pick_all(state)
    hand = list(state.hand[1])
    GAME.submit(state, 1, Timeout(prompt_key="game1-seat1"))
    assert state.pending[1] in hand


def test_timeout_for_a_key_not_pending_is_illegal() -> None:
    from games.core import IllegalMove

    state = new_match("stale")
    with pytest.raises(IllegalMove):
        GAME.check(state, 0, Timeout(prompt_key="draft2-seat0"))
    with pytest.raises(IllegalMove):
        GAME.check(state, 1, Timeout(prompt_key="draft1-seat0"))
    GAME.submit(state, 0, Timeout(prompt_key="draft1-seat0"))
    with pytest.raises(IllegalMove):
        GAME.check(state, 0, Timeout(prompt_key="draft1-seat0"))
