"""Twin worlds for the two-world information check (`Game.twin`).

What one seat knows and its opponent does not, in Devil's Deal:
- its private cards while any of them is unrevealed, and their reveal order;
- which cards its pool holds once private cards left it unseen: everyone knows the public
  record of the pool (`known_pools`: starting cards, takes, discards, reveals) and its size,
  but not which cards of that record a fold took away unrevealed, nor (during a round) which
  two of them are the private cards.

A twin varies exactly that and nothing else: the chance generator, chips, bets, the public
record and every size stay as they are.
"""

from __future__ import annotations

import random
from collections import Counter

from games.core.contract import IllegalMove
from games.devils_deal import rules
from games.devils_deal.cards import sort_cards
from games.devils_deal.state import DevilsDealState, Phase
from games.devils_deal.text import pair_token


def unrevealed(state: DevilsDealState, seat: int) -> list[str]:
    """The seat's private cards of this round not shown yet."""
    pair = state.private[seat]
    return list(pair[state.revealed[seat]:]) if pair is not None else []


def gone_unseen(state: DevilsDealState, seat: int) -> list[str]:
    """Cards of the public record that left the pool unseen (folded unrevealed)."""
    left = Counter(state.known_pools[seat])
    left.subtract(state.pools[seat])
    left.subtract(unrevealed(state, seat))
    return sorted(left.elements())


def pool_is_secret(state: DevilsDealState, seat: int) -> bool:
    """Whether the public record no longer tells exactly which cards the pool holds."""
    return Counter(state.known_pools[seat]) != Counter(state.pools[seat])


def _other_pairs(state: DevilsDealState, seat: int) -> list[tuple[str, ...]]:
    """Other legal choices of this round's unrevealed private cards: the revealed card stays,
    the rest may be any cards of pool + unrevealed that make a legal pair."""
    pair = state.private[seat]
    assert pair is not None
    shown = state.revealed[seat]
    hidden = pair[shown:]
    avail = sorted({*state.pools[seat], *hidden} - {state.community})
    if shown == 0:
        options = [(a, b) for a in avail for b in avail if a != b]
    else:
        options = [(pair[0], b) for b in avail if b != pair[0]]
    return [tuple(o) for o in options if list(o) != list(pair)]


def _with_pair(state: DevilsDealState, seat: int, new: tuple[str, ...]) -> DevilsDealState:
    twin = state.model_copy(deep=True)
    old = state.private[seat]
    assert old is not None
    shown = state.revealed[seat]
    pool = [*state.pools[seat], *old[shown:]]
    for c in new[shown:]:
        pool.remove(c)
    twin.pools[seat] = sort_cards(pool)
    twin.private[seat] = list(new)
    token = pair_token(seat, *old)
    if twin.past_private[seat] and twin.past_private[seat][-1] == token:
        twin.past_private[seat][-1] = pair_token(seat, *new)
    return twin


def _with_swap(state: DevilsDealState, seat: int, gone: str, kept: str) -> DevilsDealState:
    """The pool holds `gone` (folded away in the real world) instead of `kept`."""
    twin = state.model_copy(deep=True)
    pool = list(state.pools[seat])
    pool.remove(kept)
    pool.append(gone)
    twin.pools[seat] = sort_cards(pool)
    return twin


def _still_can_choose(state: DevilsDealState, seat: int, gone: str, kept: str) -> bool:
    """The twin pool must fit what was already shown: while `seat` is choosing its private
    cards it can choose (the step before checked it), and while it is dividing, the discards
    of its posted division are still cards it can discard."""
    pool = list(state.pools[seat])
    pool.remove(kept)
    pool.append(gone)
    if state.phase == Phase.PRIVATE and state.private[seat] is None:
        return rules.can_choose_private(pool, state.community or "")
    refill = state.refill
    if state.phase == Phase.DIVISION and refill is not None and refill.refiller == seat \
            and refill.division is not None:
        try:
            rules.check_division(refill.offered, pool, refill.division,
                                 state.settings.pool_limit)
        except IllegalMove:
            return False
    return True


def make_twin(state: DevilsDealState, seat: int, rng: random.Random) -> DevilsDealState | None:
    """A world differing only in `seat`'s secrets, or None when it has none now."""
    if state.phase == Phase.OVER:
        return None
    variants: list[str] = []
    if state.private[seat] is not None and state.revealed[seat] < 2 and _other_pairs(state, seat):
        variants.append("pair")
    gone = gone_unseen(state, seat)
    swaps = [(g, k) for g in dict.fromkeys(gone) for k in dict.fromkeys(state.pools[seat])
             if g != k and _still_can_choose(state, seat, g, k)]
    if swaps:
        variants.append("pool")
    if not variants:
        return None
    if rng.choice(variants) == "pair":
        return _with_pair(state, seat, rng.choice(_other_pairs(state, seat)))
    return _with_swap(state, seat, *rng.choice(swaps))
