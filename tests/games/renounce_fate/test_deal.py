"""The deal: 20 cards (1-5 red and yellow, two copies each), two private cards per player
that are never identical, three fate sets of three with no identical cards inside a set, the
seven others unused; uniform over the deals that satisfy these constraints."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

from games.core.chance import Chance
from games.renounce_fate import GAME
from games.renounce_fate.cards import DECK
from games.renounce_fate.rules import constrained_deal, deal_round
from tests.support.games.renounce_fate import new_match


def test_deck_is_twenty_cards_two_sets_of_1_to_5_in_red_and_yellow():
    assert len(DECK) == 20
    assert Counter(DECK) == {f"{s}{n}": 2 for s in "RY" for n in range(1, 6)}


def test_each_player_starts_with_30_chips_and_two_private_cards():
    state = new_match("chips")
    assert state.round == 1
    assert sum(state.chips) + state.pot == 60 and state.round_bets == [1, 1]
    assert [len(h) for h in state.hands] == [2, 2]


def test_deal_constraints_hold_over_many_seeds():
    for i in range(3000):
        hands, sets, unused = deal_round(Chance.from_seed(f"deal-{i}"))
        for hand in hands:
            assert len(hand) == 2 and hand[0] != hand[1], "two identical private cards"
        assert len(sets) == 3
        for s in sets:
            assert len(s) == 3 and len(set(s)) == 3, "identical cards in one set"
        assert len(unused) == 7
        assert Counter([*hands[0], *hands[1], *unused, *(c for s in sets for c in s)]) \
            == Counter(DECK)


def test_identical_cards_do_occur_across_groups_and_in_the_unused_pile():
    """The constraints are only inside a hand and inside a set: the deal is not biased
    against, say, both players holding a 🟥3."""
    across = in_unused = 0
    for i in range(600):
        hands, sets, unused = deal_round(Chance.from_seed(f"deal-{i}"))
        across += bool(set(hands[0]) & set(hands[1]))
        in_unused += len(set(unused)) < len(unused)
    assert across > 0 and in_unused > 0


def test_deal_is_uniform_over_legal_deals_on_a_small_deck():
    """Exhaustively: a 6-card deck (two copies of three cards) dealt into two groups of two
    with no identical cards in a group. Every legal arrangement of the physical cards is
    equally likely, so each dealt outcome has the exact share of legal arrangements."""
    deck = ["A", "A", "B", "B", "C", "C"]
    sizes = (2, 2)
    exact: Counter[tuple] = Counter()
    for perm in permutations(range(6)):
        cards = [deck[i] for i in perm]
        groups = [cards[0:2], cards[2:4]]
        if all(len(set(g)) == 2 for g in groups):
            exact[tuple(tuple(g) for g in groups)] += 1
    total = sum(exact.values())
    draws = 24_000
    seen: Counter[tuple] = Counter()
    chance = Chance.from_seed("uniform")
    for _ in range(draws):
        *groups, _rest = constrained_deal(chance, deck, sizes)
        seen[tuple(tuple(g) for g in groups)] += 1
    assert set(seen) == set(exact)
    for outcome, ways in exact.items():
        expected = draws * ways / total
        assert abs(seen[outcome] - expected) < 5 * expected ** 0.5, (outcome, seen[outcome], expected)


def test_every_deal_comes_from_the_seed():
    a, b = new_match("same-seed"), new_match("same-seed")
    assert a.hands == b.hands and [s.dealt for s in a.sets] == [s.dealt for s in b.sets]
    c = new_match("other-seed")
    assert (c.hands, [s.dealt for s in c.sets]) != (a.hands, [s.dealt for s in a.sets])


def test_private_hand_is_told_only_to_its_player_after_every_deal():
    state = GAME.setup(GAME.settings_model(), "told")
    events = GAME.submit(state, 0, GAME.parse(state, 0, "me"))
    own = [e for e in events if e.kind == "hand.dealt"]
    assert [e.audience.seat for e in own] == [0, 1]
    for e in own:
        assert e.data["cards"] == state.hands[e.audience.seat]
    public = "\n".join(e.text for e in events if e.audience.kind == "public")
    assert "Fate cards" in public and "Set 3" in public
