"""Showdown hands: the hand size depends on the community cards, the ranking lists of the
rulings (a setting), high-card tie-breaks, and unranked hands that tie."""

from __future__ import annotations

from games.renounce_fate import GAME, RenounceFateSettings
from games.renounce_fate.rules import best_hand, rank
from games.renounce_fate.state import Phase
from tests.support.games.renounce_fate import bet, new_match, public_texts, renounce_both, set_deal

S = RenounceFateSettings()


def cat(cards, settings=S):
    return rank(cards, settings).category


def test_seed_example_red_1233_loses_to_red_1345():
    assert cat(["R1", "R2", "R3", "R3"]) == cat(["R1", "R3", "R4", "R5"]) == "flush"
    assert rank(["R1", "R2", "R3", "R3"], S) < rank(["R1", "R3", "R4", "R5"], S)


def test_seed_example_at_a_real_showdown():
    state = new_match("seed-example")
    set_deal(state, [["R2", "R3"], ["R4", "R5"]],
             [["R1", "Y1", "Y2"], ["R3", "Y3", "Y4"], ["Y5", "R1", "Y3"]])
    bet(state, "raise", 1)
    bet(state, "call")
    renounce_both(state, (1, "R1"), (1, "R1"))
    renounce_both(state, (2, "R3"), (2, "R3"))
    renounce_both(state, (3, "Y5"), (3, "Y5"))
    bet(state, "raise", 1)
    events = bet(state, "call")
    [show] = [e for e in events if e.kind == "showdown"]
    assert show.data["winner"] == 1 and show.data["categories"] == ["flush", "flush"]
    assert sorted(show.data["best"][0]) == ["R1", "R2", "R3", "R3"]
    assert "wins the round" in public_texts(events) and state.starter == 1


def test_a_pair_is_worth_nothing_in_a_4_card_hand():
    assert cat(["Y1", "R1", "R3", "Y5"]) == "nothing"
    assert rank(["Y1", "R1", "R3", "Y5"], S) == rank(["R2", "Y4", "R5", "Y5"], S)


def test_a_flush_is_worth_nothing_in_a_3_card_hand():
    assert cat(["R1", "R3", "R5"]) == "nothing"
    assert rank(["R1", "R3", "R5"], S) == rank(["Y1", "R2", "Y4"], S)


def test_unranked_hands_tie_without_high_card():
    assert rank(["R1", "Y3"], S) == rank(["R2", "Y5"], S)  # 2-card: nothing, whatever the numbers
    assert rank(["R1", "Y2", "Y4", "R5"], S).strength == -1


def test_4_card_ranking_list():
    order = [["R3", "Y3", "R3", "Y3"], ["R1", "R2", "R3", "R4"], ["R2", "Y2", "R2", "Y5"],
             ["R1", "Y1", "R4", "Y4"], ["R1", "R2", "R3", "R5"], ["R1", "Y2", "R3", "Y4"]]
    names = ["four_of_a_kind", "straight_flush", "three_of_a_kind", "two_pair", "flush",
             "straight"]
    assert [cat(h) for h in order] == names
    ranks = [rank(h, S) for h in order]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == len(ranks)


def test_3_card_ranking_list():
    order = [["R2", "Y2", "R2"], ["Y3", "Y4", "Y5"], ["R1", "Y2", "R3"], ["R5", "Y5", "R1"]]
    assert [cat(h) for h in order] == ["three_of_a_kind", "straight_flush", "straight", "pair"]
    ranks = [rank(h, S) for h in order]
    assert ranks == sorted(ranks, reverse=True)


def test_2_card_ranking_list():
    order = [["R1", "Y1"], ["Y4", "Y5"], ["R4", "Y5"], ["R1", "R5"]]
    assert [cat(h) for h in order] == ["pair", "straight_flush", "straight", "flush"]
    ranks = [rank(h, S) for h in order]
    assert ranks == sorted(ranks, reverse=True)


def test_straights_do_not_wrap_and_colour_never_breaks_a_tie():
    assert cat(["R5", "Y1"]) == "nothing" and cat(["R5", "R1"]) == "flush"
    assert rank(["R1", "R2", "R3", "R4"], S) == rank(["Y1", "Y2", "Y3", "Y4"], S)
    assert rank(["R4", "Y4"], S) < rank(["R5", "Y5"], S)  # same category: high card


def test_3_community_cards_best_4_card_hand_uses_both_private_cards():
    best = best_hand(["R1", "Y5"], ["R2", "R3", "R4"], S)
    assert best.rank.category == "nothing"  # R1 R2 R3 R4 would need to drop Y5
    best = best_hand(["R2", "R3"], ["R1", "R3", "Y5"], S)
    assert sorted(best.cards) == ["R1", "R2", "R3", "R3"] and best.rank.category == "flush"


def test_2_community_cards_best_3_of_the_four_cards():
    best = best_hand(["R1", "Y5"], ["Y3", "Y4"], S)
    assert sorted(best.cards) == ["Y3", "Y4", "Y5"] and best.rank.category == "straight_flush"


def test_1_community_card_best_2_card_hand_must_use_it():
    best = best_hand(["R3", "Y3"], ["Y1"], S)  # the private pair cannot be used alone
    assert best.cards == ("Y3", "Y1") and best.rank.category == "flush"
    best = best_hand(["R1", "Y5"], ["Y4"], S)
    assert best.cards == ("Y5", "Y4") and best.rank.category == "straight_flush"


def test_the_ranking_lists_are_a_setting_a_host_can_replace():
    host = RenounceFateSettings(ranking_3=["flush", "pair"])
    assert cat(["R1", "R3", "R5"], host) == "flush"
    assert cat(["R1", "Y2", "R3"], host) == "nothing"  # straight no longer listed
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="unknown hand categories"):
        RenounceFateSettings(ranking_2=["royal_flush"])


def test_showdown_happens_only_after_the_second_betting_round_is_called():
    state = new_match("order")
    set_deal(state, [["R1", "Y1"], ["R2", "Y2"]],
             [["R3", "Y3", "R1"], ["Y5", "R5", "Y4"], ["R4", "Y4", "R2"]])
    bet(state, "raise", 1)
    bet(state, "call")
    for n, c in ((1, "R3"), (2, "Y5"), (3, "R4")):
        renounce_both(state, (n, c), (n, c))
    assert state.phase == Phase.BETTING and state.betting_no == 2
    assert GAME.prompts(state)[0].seat == state.starter
