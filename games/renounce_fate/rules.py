"""The pure rules of Renounce Fate: the constrained deal, renouncing, and hand strength.

Nothing here touches the match state; the round flow (`flow.py`) and the bots call these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from games.core import betting, poker
from games.core.chance import Chance
from games.renounce_fate.cards import DECK, number, suit
from games.renounce_fate.settings import RenounceFateSettings

HAND_SIZE = 2
SET_SIZE = 3
SETS = 3
#: Group sizes of a deal: seat 0's hand, seat 1's hand, then the three fate sets.
DEAL_SIZES = (HAND_SIZE, HAND_SIZE, SET_SIZE, SET_SIZE, SET_SIZE)


# --- the deal --------------------------------------------------------------------------------
def constrained_deal(chance: Chance, deck: Sequence[str], sizes: Sequence[int]) -> list[list[str]]:
    """Groups of `sizes` cards with no two identical cards in a group, then the rest.

    Uniform over the legal deals: the whole deck is shuffled and dealt in order, and dealt
    again from a fresh shuffle until every group is legal (rejection sampling keeps each
    arrangement of the physical cards that satisfies the constraints equally likely)."""
    while True:
        cards = chance.shuffled(deck)
        groups: list[list[str]] = []
        at = 0
        for size in sizes:
            groups.append(cards[at:at + size])
            at += size
        if all(len(set(g)) == len(g) for g in groups):
            return [*groups, cards[at:]]


def deal_round(chance: Chance) -> tuple[list[list[str]], list[list[str]], list[str]]:
    """(hands, sets, unused) for one round, from a fresh 20-card deck."""
    groups = constrained_deal(chance, DECK, DEAL_SIZES)
    return groups[:2], groups[2:5], groups[5]


# --- ante --------------------------------------------------------------------------------------
def ante_payment(ante: int, chips: Sequence[int]) -> tuple[int, bool]:
    """(what each player puts in, whether betting is skipped): a player who cannot afford the
    ante puts in everything and the opponent matches that amount; then no betting."""
    short = min(chips)
    if short < ante:
        return short, True
    return ante, False


# --- renouncing -------------------------------------------------------------------------------
def legal_picks(sets: Sequence[Sequence[str]]) -> list[tuple[int, str]]:
    """Every (set number 1-3, card) that may be renounced: cards of sets with 2+ cards."""
    return [(i + 1, c) for i, s in enumerate(sets) if len(s) > 1 for c in s]


def all_locked(sets: Sequence[Sequence[str]]) -> bool:
    return all(len(s) <= 1 for s in sets)


@dataclass(frozen=True)
class Resolution:
    same: bool
    discarded: tuple[tuple[int, str], ...]  # (set number, card)
    kept: tuple[int, str] | None  # the card locked by a same pick


def resolve(sets: list[list[str]], picks: Sequence[tuple[int, str]]) -> Resolution:
    """Apply both picks to `sets` (mutated). The same card of the same set: it is locked and
    every other card of its set is discarded. Different picks: both are discarded."""
    (s0, c0), (s1, c1) = picks
    if (s0, c0) == (s1, c1):
        cards = sets[s0 - 1]
        gone = tuple((s0, c) for c in cards if c != c0)
        sets[s0 - 1] = [c0]
        return Resolution(True, gone, (s0, c0))
    for s, c in picks:
        sets[s - 1].remove(c)
    return Resolution(False, ((s0, c0), (s1, c1)), None)


def community_of(sets: Sequence[Sequence[str]]) -> list[str]:
    return [c for s in sets for c in s]


# --- hands -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BestHand:
    cards: tuple[str, ...]  # the hand used (private cards first)
    rank: poker.HandRank


def hand_options(hand: Sequence[str], community: Sequence[str]) -> list[tuple[str, ...]]:
    """The hands a player may make. 3 community cards: both private cards and two community
    cards (4 cards); 2: any three of the four cards; 1: the community card and one private
    card (2 cards)."""
    hand, community = list(hand), list(community)
    if len(community) == 3:
        return [(*hand, *pair) for pair in combinations(community, 2)]
    if len(community) == 2:
        return list(combinations([*hand, *community], 3))
    if len(community) == 1:
        return [(h, community[0]) for h in hand]
    raise ValueError(f"{len(community)} community cards: there must be 1, 2 or 3")


def rank(cards: Sequence[str], settings: RenounceFateSettings) -> poker.HandRank:
    """A hand's rank by the list for its size (an unlisted hand ranks nothing)."""
    return poker.rank_hand(cards, settings.ranking(len(cards)), number=number, suit=suit,
                           wrap=False, tiebreak=settings.tiebreak, low=1, high=5)


def best_hand(hand: Sequence[str], community: Sequence[str],
              settings: RenounceFateSettings) -> BestHand:
    """The strongest hand a player makes (the first such, when several tie)."""
    best: BestHand | None = None
    for option in hand_options(hand, community):
        r = rank(option, settings)
        if best is None or r > best.rank:
            best = BestHand(option, r)
    assert best is not None
    return best


def hand_size(community_count: int) -> int:
    return {3: 4, 2: 3, 1: 2}[community_count]


def limits(settings: RenounceFateSettings) -> betting.BettingLimits:
    """Raise 1 to `max_raise` on top of the call, never more than either player can put in,
    at most `max_in_pot` per player in the pot; the leader may call for 0 only when no raise
    is possible."""
    return betting.BettingLimits(min_raise=1, max_raise=settings.max_raise, cap_by_opponent=True,
                                 cap_by_own=True, max_total=settings.max_in_pot,
                                 capped_opener_may_call=True)
