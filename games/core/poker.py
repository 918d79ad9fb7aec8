"""Hand ranking for the small poker-like hands of the card games (3 or 4 cards, a few suits).

Games differ in which combinations count and in what order, so a game passes its own
category order (best first) to `rank_hand`; this module only knows what each category
means and how ties break:

- "four_of_a_kind" / "three_of_a_kind": at least 4 / 3 cards of one number.
- "two_pair": two different numbers each held at least twice.
- "pair": some number held at least twice.
- "straight_flush": every card the same suit and the numbers consecutive.
- "straight": the numbers (all different) are consecutive. With `wrap=False` (the default)
  the lowest and highest numbers are not neighbours (1 and 9 are not consecutive).
- "flush": every card the same suit.
- "high_card": any hand at all (the catch-all; leave it out of the order when an unlisted
  hand should rank nothing).

A hand takes the best category in the order that it satisfies. Ties within a category:
- `tiebreak="grouped"` (classic poker): numbers ordered by how often they occur, then by
  number, highest first, each number once: a pair of 5s with a 7 compares (5, 7); a flush
  9-6-2 compares (9, 6, 2); a straight compares its numbers from the top, which for
  consecutive numbers is the same as comparing the highest.
- `tiebreak="high"`: every card's number, highest first (6-6-3 compares (6, 6, 3)).
Suits never break ties. Hands that rank nothing all tie with each other.

Card codes are read with a `CardStyle` (default: a suit letter then the number, "R7").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

KNOWN_CATEGORIES = (
    "four_of_a_kind", "three_of_a_kind", "straight_flush", "two_pair",
    "straight", "flush", "pair", "high_card",
)

CATEGORY_NAMES = {
    "four_of_a_kind": "four of a kind",
    "three_of_a_kind": "three of a kind",
    "straight_flush": "straight flush",
    "two_pair": "two pair",
    "straight": "straight",
    "flush": "flush",
    "pair": "pair",
    "high_card": "high card",
    "nothing": "no ranking",
}


def _default_number(card: str) -> int:
    return int(card[1:]) if card[:1].isalpha() else int(card)


def _default_suit(card: str) -> str:
    return card[0] if card[:1].isalpha() else ""


@dataclass(frozen=True, order=True)
class HandRank:
    """How good a hand is. Compare with <, ==, >: higher is better, equal is a tie.

    `strength` is the category's position counted from the worst (so the best category in
    the game's order has the largest value; -1 ranks nothing); `tiebreak` the numbers that
    break a tie within the category.
    """

    strength: int
    tiebreak: tuple[int, ...]
    category: str = field(compare=False)

    @property
    def name(self) -> str:
        return CATEGORY_NAMES.get(self.category, self.category)


def is_consecutive(numbers: Iterable[int], *, wrap: bool = False, low: int = 1,
                   high: int = 9) -> bool:
    """Whether the numbers are all different and consecutive.

    With `wrap`, `high` is followed by `low` (so 8-9-1 counts when low=1, high=9).
    """
    nums = sorted(numbers)
    if len(nums) < 2 or len(set(nums)) != len(nums):
        return len(nums) == 1
    if all(b - a == 1 for a, b in zip(nums, nums[1:], strict=False)):
        return True
    if not wrap:
        return False
    span = high - low + 1
    present = set(nums)
    return any(
        all(((start - low + i) % span) + low in present for i in range(len(nums)))
        for start in nums
    )


def categories(cards: Sequence[str], *, number: Callable[[str], int] = _default_number,
               suit: Callable[[str], str] = _default_suit, wrap: bool = False, low: int = 1,
               high: int = 9) -> set[str]:
    """Every category of KNOWN_CATEGORIES that the whole hand satisfies."""
    nums = [number(c) for c in cards]
    counts = Counter(nums)
    most = max(counts.values()) if counts else 0
    flush = len(cards) >= 2 and len({suit(c) for c in cards}) == 1
    straight = len(cards) >= 2 and is_consecutive(nums, wrap=wrap, low=low, high=high)
    found = {"high_card"}
    if most >= 4:
        found.add("four_of_a_kind")
    if most >= 3:
        found.add("three_of_a_kind")
    if most >= 2:
        found.add("pair")
    if sum(1 for n in counts.values() if n >= 2) >= 2:
        found.add("two_pair")
    if flush:
        found.add("flush")
    if straight:
        found.add("straight")
    if straight and flush:
        found.add("straight_flush")
    return found


def _tiebreak(nums: Sequence[int], category: str, mode: str, *, wrap: bool) -> tuple[int, ...]:
    if mode == "high":
        return tuple(sorted(nums, reverse=True))
    if category in ("straight", "straight_flush") and wrap:
        # A wrapped straight (8-9-1) ranks by its top card: the one just before the gap.
        ordered = sorted(nums)
        for a, b in zip(ordered, ordered[1:], strict=False):
            if b - a > 1:
                return (a,)
    counts = Counter(nums)
    return tuple(sorted(counts, key=lambda n: (counts[n], n), reverse=True))


def rank_hand(cards: Sequence[str], order: Sequence[str], *,
              number: Callable[[str], int] = _default_number,
              suit: Callable[[str], str] = _default_suit, wrap: bool = False,
              tiebreak: Literal["grouped", "high"] = "grouped", low: int = 1,
              high: int = 9) -> HandRank:
    """Rank `cards` by the game's category `order` (best first)."""
    unknown = [c for c in order if c not in KNOWN_CATEGORIES]
    if unknown:
        raise ValueError(f"unknown hand categories {unknown}")
    found = categories(cards, number=number, suit=suit, wrap=wrap, low=low, high=high)
    nums = [number(c) for c in cards]
    for i, cat in enumerate(order):
        if cat in found:
            return HandRank(len(order) - 1 - i,
                            _tiebreak(nums, cat, tiebreak, wrap=wrap), cat)
    return HandRank(-1, (), "nothing")


def compare(a: HandRank, b: HandRank) -> int:
    """1 if `a` wins, -1 if `b` wins, 0 for a tie."""
    return (a > b) - (a < b)
