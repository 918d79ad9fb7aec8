"""Equal-sum pile search over the (up to 12) cards of a refill, for the bots.

Cards are positions 0..n-1 of the offer; a pile is a bitmask. `subsets_by_sum` lists every
non-empty pile by its sum; `best_division` finds, for a value per card, the division whose
taken cards (every pile but the one set aside) are worth the most: for each pile sum it
packs disjoint piles of that sum with a memoised search on the lowest free card (take it
into a pile that contains it, or leave it unused), trying each possible set-aside pile.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from functools import lru_cache

from games.devils_deal.cards import number


# A handful of entries: one offer's subsets are reused within a turn (a bot's search, the
# legality check), never across matches. Each entry of a 12-card offer holds 4,095 masks
# (~150 KB), so a large cache grew by tens of KB per finished match until full (issue 15).
@lru_cache(maxsize=8)
def subsets_by_sum(numbers: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
    """Every non-empty subset (bitmask) of the positions, grouped by the sum of its numbers."""
    n = len(numbers)
    sums = [0] * (1 << n)
    out: dict[int, list[int]] = {}
    for mask in range(1, 1 << n):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + numbers[low.bit_length() - 1]
        out.setdefault(sums[mask], []).append(mask)
    return {s: tuple(v) for s, v in out.items()}


def cards_of(mask: int, offered: Sequence[str]) -> tuple[str, ...]:
    return tuple(offered[i] for i in range(len(offered)) if mask >> i & 1)


def random_piles(offered: Sequence[str], rng: random.Random) -> tuple[list[tuple[str, ...]], int | None]:
    """A random valid set of equal-sum piles and a random set-aside index (or no piles)."""
    by_sum = subsets_by_sum(tuple(number(c) for c in offered))
    target = rng.choice(sorted(by_sum))
    masks = list(by_sum[target])
    rng.shuffle(masks)
    want = rng.randint(1, 6)
    used = 0
    chosen: list[int] = []
    for m in masks:
        if m & used:
            continue
        chosen.append(m)
        used |= m
        if len(chosen) >= want:
            break
    piles = [cards_of(m, offered) for m in chosen]
    return piles, rng.randrange(len(piles))


def best_division(offered: Sequence[str], values: Sequence[float], *,
                  budget: float = 0.8) -> tuple[list[tuple[str, ...]], int | None, float]:
    """The equal-sum piles (and set-aside index) maximising the value of the cards taken.

    `values[i]` is what card `offered[i]` is worth to the refiller. Returns (piles, aside,
    value); no piles (value 0) when nothing can be taken. Stops trying further sums after
    `budget` seconds and returns the best found so far.
    """
    start = time.perf_counter()
    n = len(offered)
    by_sum = subsets_by_sum(tuple(number(c) for c in offered))
    full = (1 << n) - 1
    mask_value: dict[int, float] = {}
    best: tuple[float, list[int], int] = (0.0, [], -1)
    total = sum(number(c) for c in offered)
    # Middle sums allow the most piles; try the promising ones first in case time runs out.
    order = sorted((s for s in by_sum if 2 * s <= total), key=lambda s: abs(s - total / 4))
    for target in order:
        if time.perf_counter() - start > budget:
            break
        masks = by_sum[target]
        if len(masks) < 2:
            continue
        by_low: dict[int, list[int]] = {}
        for m in masks:
            if m not in mask_value:
                mask_value[m] = sum(values[i] for i in range(n) if m >> i & 1)
            by_low.setdefault((m & -m).bit_length() - 1, []).append(m)
        memo: dict[int, tuple[float, tuple[int, ...]]] = {0: (0.0, ())}

        def pack(avail: int, by_low: dict[int, list[int]] = by_low,
                 memo: dict[int, tuple[float, tuple[int, ...]]] = memo) -> tuple[float, tuple[int, ...]]:
            hit = memo.get(avail)
            if hit is not None:
                return hit
            low = avail & -avail
            i = low.bit_length() - 1
            result = pack(avail ^ low)
            for m in by_low.get(i, ()):
                if m & avail == m:
                    v, rest = pack(avail ^ m)
                    v += mask_value[m]
                    if v > result[0]:
                        result = (v, (m, *rest))
            memo[avail] = result
            return result

        # The set-aside pile: worth least to keep, so try the cheapest piles first.
        for aside in sorted(masks, key=mask_value.__getitem__):
            v, taken = pack(full ^ aside)
            if taken and v > best[0]:
                best = (v, [*taken, aside], len(taken))
    if not best[1]:
        return [], None, 0.0
    return [cards_of(m, offered) for m in best[1]], best[2], best[0]


def best_takes(numbers: Sequence[int]) -> dict[int, tuple[int, int]]:
    """For each pile sum that allows a division taking something: (the most cards a division
    into piles of that sum can take, the piles of that division including the set-aside one).

    Exact: for every set-aside pile of the sum, the most cards coverable by disjoint piles of
    the same sum in the other cards (a memoised search on the lowest free card).
    """
    nums = tuple(numbers)
    by_sum = subsets_by_sum(nums)
    full = (1 << len(nums)) - 1
    out: dict[int, tuple[int, int]] = {}
    for target in sorted(by_sum):
        masks = by_sum[target]
        if 2 * target > sum(nums) or len(masks) < 2:
            continue
        by_low: dict[int, list[int]] = {}
        for m in masks:
            by_low.setdefault((m & -m).bit_length() - 1, []).append(m)
        memo: dict[int, tuple[int, int]] = {0: (0, 0)}

        def pack(avail: int, by_low: dict[int, list[int]] = by_low,
                 memo: dict[int, tuple[int, int]] = memo) -> tuple[int, int]:
            hit = memo.get(avail)
            if hit is not None:
                return hit
            low = avail & -avail
            best = pack(avail ^ low)
            for m in by_low.get(low.bit_length() - 1, ()):
                if m & avail == m:
                    cards, piles = pack(avail ^ m)
                    best = max(best, (cards + m.bit_count(), piles + 1))
            memo[avail] = best
            return best

        best = max((pack(full ^ aside) for aside in masks), default=(0, 0))
        if best[1]:
            out[target] = (best[0], best[1] + 1)
    return out
