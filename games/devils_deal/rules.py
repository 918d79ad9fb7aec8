"""Pure rule functions of Devil's Deal: divisions, takes, private cards and hands.

Nothing here touches the match state; the engine calls these with plain values so the
rules are easy to test one by one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

from games.core import betting
from games.core.contract import IllegalMove
from games.core.poker import HandRank, rank_hand
from games.devils_deal.cards import multiset_contains, number, render, render_all, suit
from games.devils_deal.commands import Division

#: Raise at least 1 on top of the call, never more than either player can put in.
LIMITS = betting.BettingLimits(min_raise=1, cap_by_opponent=True, cap_by_own=True)

# Best first. Three of a kind beats a straight flush; a straight beats a flush.
HAND_ORDER = ("three_of_a_kind", "straight_flush", "straight", "flush", "pair", "high_card")


def hand_rank(cards: Sequence[str]) -> HandRank:
    """The rank of a 3-card hand (order of the cards is irrelevant; no wrap-around)."""
    return _rank_sorted(tuple(sorted(cards)))


@lru_cache(maxsize=4096)
def _rank_sorted(cards: tuple[str, ...]) -> HandRank:
    return rank_hand(cards, HAND_ORDER, number=number, suit=suit, wrap=False)


def is_high_card(cards: Sequence[str]) -> bool:
    return hand_rank(cards).category == "high_card"


def pair_options(pool: Sequence[str], community: str) -> list[tuple[str, str]]:
    """Every legal (first, second) private-card choice: two different cards of the pool,
    neither equal to the community card."""
    distinct = sorted({c for c in pool if c != community})
    return list(permutations(distinct, 2))


def private_card_options(pool: Sequence[str], community: str) -> list[str]:
    """The cards that can be one of the two private cards (each of them is in some legal
    pair), lowest number first: what a card menu offers."""
    return sorted({first for first, _ in pair_options(pool, community)},
                  key=lambda c: (number(c), c))


def can_choose_private(pool: Sequence[str], community: str) -> bool:
    return len({c for c in pool if c != community}) >= 2


def check_private(pool: Sequence[str], community: str, first: str, second: str) -> None:
    """Raise IllegalMove unless (first, second) is a legal private-card choice."""
    missing = [c for c in dict.fromkeys((first, second)) if c not in pool]
    if missing:
        raise IllegalMove(f"{render_all(missing)} {'is' if len(missing) == 1 else 'are'} not in "
                          f"your pool ({render_all(sorted(pool))}).")
    if first == second:
        raise IllegalMove(f"Your two private cards must be different cards; you chose "
                          f"{render(first)} twice.")
    if community in (first, second):
        raise IllegalMove(f"{render(community)} is the community card; a hand cannot contain "
                          f"it twice. Choose two other cards.")


@dataclass(frozen=True)
class DivisionResult:
    """What a valid division does."""

    taken: list[str]  # piled cards not set aside, in pile order
    aside_pile: list[str]
    unused: list[str]  # offered cards in no pile
    discards: list[str]
    missing_discards: int  # discards still needed to reach the pool limit
    pile_sum: int | None

    @property
    def set_aside(self) -> list[str]:
        """Everything the opponent may take from: the set-aside pile and the unused cards."""
        return [*self.aside_pile, *self.unused]


def _pile_list(piles: Sequence[Sequence[str]], aside: int | None) -> str:
    return "; ".join(
        f"pile {i + 1}{' (aside)' if i == aside else ''}: {render_all(p)} = {sum(map(number, p))}"
        for i, p in enumerate(piles))


def check_division(offered: Sequence[str], pool: Sequence[str], division: Division,
                   limit: int) -> DivisionResult:
    """Validate a division against the 12 offered cards and the refiller's pool.

    Raises IllegalMove saying exactly what is wrong. Too few discards is not an error here
    (the last valid division counts at the deadline and missing discards are then random);
    the result says how many are missing.
    """
    piles = [list(p) for p in division.piles]
    offered_set = set(offered)
    shown = render_all(offered)
    if any(not p for p in piles):
        raise IllegalMove("A pile cannot be empty.")
    used = [c for p in piles for c in p]
    foreign = [c for c in dict.fromkeys(used) if c not in offered_set]
    if foreign:
        raise IllegalMove(f"{render_all(foreign)} {'was' if len(foreign) == 1 else 'were'} not "
                          f"offered. The cards to divide are {shown}.")
    counts = Counter(used)
    twice = [c for c in dict.fromkeys(used) if counts[c] > 1]
    if twice:
        where = []
        for c in twice:
            at = [str(i + 1) for i, p in enumerate(piles) for x in p if x == c]
            where.append(f"{render(c)} (piles {', '.join(at)})")
        raise IllegalMove(f"Each card can be used once; you used {'; '.join(where)} more than once.")
    if piles:
        if division.aside is None:
            if len(piles) == 1:
                raise IllegalMove("With a single pile, that pile is the one set aside and you take "
                                  "nothing. Mark it (e.g. 'aside: " + " ".join(piles[0]) +
                                  "'), add more piles, or type 'nothing'.")
            raise IllegalMove("Mark the pile you set aside, e.g. 'aside: "
                              + " ".join(piles[-1]) + "'.")
        if not 0 <= division.aside < len(piles):
            raise IllegalMove("The set-aside pile must be one of your piles.")
        sums = [sum(map(number, p)) for p in piles]
        if len(set(sums)) > 1:
            raise IllegalMove(f"Every pile must have the same sum; yours sum to "
                              f"{'/'.join(map(str, sums))} ({_pile_list(piles, division.aside)}).")
    elif division.aside is not None:
        raise IllegalMove("There is no pile to set aside.")
    taken = [c for i, p in enumerate(piles) if i != division.aside for c in p]
    aside_pile = piles[division.aside] if division.aside is not None else []
    unused = [c for c in offered if c not in counts]
    after = [*pool, *taken]
    need = max(0, len(after) - limit)
    discards = list(division.discards)
    if discards:
        if not multiset_contains(after, discards):
            have = Counter(after)
            bad = [c for c, n in Counter(discards).items() if have[c] < n]
            raise IllegalMove(f"You cannot discard {render_all(bad)}: you may discard only cards "
                              f"of your pool or cards you take.")
        if len(discards) > need:
            if need == 0:
                raise IllegalMove(f"You would have {len(after)} cards, within the limit of {limit}: "
                                  f"discard nothing.")
            raise IllegalMove(f"You would have {len(after)} cards, so discard exactly {need} "
                              f"(you listed {len(discards)}).")
    return DivisionResult(taken=taken, aside_pile=aside_pile, unused=unused, discards=discards,
                          missing_discards=need - len(discards),
                          pile_sum=sum(map(number, piles[0])) if piles else None)


def check_take(set_aside: Sequence[str], pool: Sequence[str], card: str | None,
               discard: str | None, limit: int) -> None:
    """Raise IllegalMove unless taking `card` (and discarding `discard`) is allowed."""
    if card is None:
        if discard is not None:
            raise IllegalMove("You discard only when taking a card puts you over the limit; "
                              "type 'nothing' to take nothing.")
        return
    if card not in set_aside:
        raise IllegalMove(f"{render(card)} is not among the set-aside cards "
                          f"({render_all(set_aside)}).")
    after = [*pool, card]
    if len(after) > limit:
        if discard is None:
            raise IllegalMove(f"Your pool would have {len(after)} cards: also discard one card "
                              f"of your pool or the card you take, e.g. 'take {card} discard "
                              f"{card}'.")
        if discard not in after:
            raise IllegalMove(f"You cannot discard {render(discard)}: it is neither in your pool "
                              f"nor the card you take.")
    elif discard is not None:
        raise IllegalMove(f"Your pool would have {len(after)} cards, within the limit of {limit}: "
                          f"discard nothing.")
