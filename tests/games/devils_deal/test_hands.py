"""The seed's hand rankings: three of a kind > straight flush > straight > flush > pair >
high card, with its tie-breaks; cards unordered; no wrap-around."""

from __future__ import annotations

import pytest

from games.core.poker import HandRank, compare, is_consecutive, rank_hand
from games.devils_deal.rules import HAND_ORDER, hand_rank


def cat(*cards: str) -> str:
    return hand_rank(cards).category


@pytest.mark.parametrize(("hand", "category"), [
    (("R5", "G5", "B5"), "three_of_a_kind"),
    (("R3", "R4", "R5"), "straight_flush"),
    (("R3", "G4", "B5"), "straight"),
    (("G1", "G5", "G9"), "flush"),
    (("R5", "G5", "B9"), "pair"),
    (("R1", "G5", "B9"), "high_card"),
])
def test_every_hand_category(hand: tuple[str, ...], category: str) -> None:
    assert cat(*hand) == category


def test_straight_5_community_with_6_and_4_revealed():
    # "a hand with 5 as community card and 6, 4 revealed as private cards is still a valid straight"
    assert cat("R6", "G4", "B5") == "straight"
    assert hand_rank(["R6", "G4", "B5"]) == hand_rank(["B5", "R6", "G4"])


def test_no_wrap_around_1_and_9_are_not_consecutive():
    assert cat("R9", "G1", "B2") == "high_card"
    assert cat("R8", "G9", "B1") == "high_card"
    assert cat("R1", "R2", "R9") == "flush"


def test_three_of_a_kind_beats_straight_flush():
    assert hand_rank(["R2", "G2", "B2"]) > hand_rank(["B7", "B8", "B9"])


def test_straight_beats_flush():
    assert hand_rank(["R1", "G2", "B3"]) > hand_rank(["G9", "G8", "G6"])


def test_ranking_order_best_to_worst():
    hands = [("R5", "G5", "B5"), ("R3", "R4", "R5"), ("R3", "G4", "B5"), ("G1", "G5", "G9"),
             ("R5", "G5", "B9"), ("R1", "G5", "B9")]
    ranks = [hand_rank(h) for h in hands]
    assert ranks == sorted(ranks, reverse=True)
    assert len({r.strength for r in ranks}) == 6
    assert HAND_ORDER[0] == "three_of_a_kind" and HAND_ORDER[-1] == "high_card"


def test_straight_flush_tie_compares_highest_number():
    assert hand_rank(["B3", "B4", "B5"]) > hand_rank(["R2", "R3", "R4"])
    assert hand_rank(["B3", "B4", "B5"]) == hand_rank(["R3", "R4", "R5"])  # colour never counts


def test_straight_tie_compares_highest_number():
    assert hand_rank(["R7", "G8", "B9"]) > hand_rank(["R6", "G7", "B8"])
    assert compare(hand_rank(["R6", "G7", "B8"]), hand_rank(["G6", "B7", "R8"])) == 0


def test_flush_tie_highest_then_middle_then_lowest():
    assert hand_rank(["G9", "G3", "G1"]) > hand_rank(["R8", "R7", "R5"])  # highest
    assert hand_rank(["G9", "G5", "G1"]) > hand_rank(["R9", "R4", "R3"])  # middle
    assert hand_rank(["G9", "G5", "G2"]) > hand_rank(["R9", "R5", "R1"])  # lowest
    assert hand_rank(["G9", "G5", "G2"]) == hand_rank(["B9", "B5", "B2"])  # tied


def test_pair_tie_paired_number_then_other_number():
    assert hand_rank(["R6", "G6", "B1"]) > hand_rank(["R5", "G5", "B9"])  # paired number first
    assert hand_rank(["R6", "G6", "B4"]) > hand_rank(["G6", "B6", "R3"])  # then the other
    assert hand_rank(["R6", "G6", "B4"]) == hand_rank(["G6", "B6", "R4"])


def test_high_card_tie_highest_then_middle_then_lowest():
    assert hand_rank(["R9", "G2", "B1"]) > hand_rank(["R8", "G7", "B5"])
    assert hand_rank(["R9", "G6", "B1"]) > hand_rank(["R9", "G5", "B4"])
    assert hand_rank(["R9", "G6", "B4"]) > hand_rank(["G9", "B6", "R2"])
    assert compare(hand_rank(["R9", "G6", "B4"]), hand_rank(["G9", "B6", "R4"])) == 0


def test_three_of_a_kind_tie_compares_the_number():
    assert hand_rank(["R7", "G7", "B7"]) > hand_rank(["R6", "G6", "B6"])


def test_hand_rank_values():
    assert hand_rank(["R6", "G4", "B5"]) == HandRank(3, (6, 5, 4), "straight")
    assert hand_rank(["R6", "G6", "B4"]).tiebreak == (6, 4)
    assert hand_rank(["R6", "G6", "B4"]).name == "pair"


# --- the shared helper's other modes (used by other games) ------------------------------
def test_core_consecutive_with_and_without_wrap():
    assert is_consecutive([4, 6, 5])
    assert not is_consecutive([9, 1, 2])
    assert is_consecutive([9, 1, 2], wrap=True)
    assert not is_consecutive([5, 5, 6])


def test_core_high_tiebreak_mode_and_unranked_hands():
    order = ("three_of_a_kind", "straight_flush", "straight", "pair")
    a = rank_hand(["R6", "G6", "B3"], order, tiebreak="high")
    b = rank_hand(["R6", "G6", "B2"], order, tiebreak="high")
    assert a.tiebreak == (6, 6, 3) and a > b
    # A flush alone ranks nothing when it is not in the order; unranked hands tie.
    assert rank_hand(["R1", "R5", "R9"], order).category == "nothing"
    assert rank_hand(["R1", "R5", "R9"], order) == rank_hand(["G2", "B5", "R8"], order)


def test_core_two_pair_and_four_of_a_kind():
    order = ("four_of_a_kind", "straight_flush", "three_of_a_kind", "two_pair", "flush",
             "straight")
    assert rank_hand(["R1", "G1", "B1", "Y1"], order, number=lambda c: int(c[1:])).category \
        == "four_of_a_kind"
    assert rank_hand(["R1", "G1", "B3", "R3"], order).category == "two_pair"
    assert rank_hand(["R1", "G1", "B3", "R3"], order).tiebreak == (3, 1)
