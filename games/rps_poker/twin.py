"""Twin worlds for the two-world information check (`Game.twin`).

What one seat knows and its opponent does not, in Turn-based RPS Poker:
- the cards it kept in the draft (the opponent knows only the cards it was passed), and its
  current pair of draft cards;
- its pending private pick (the card it keeps, or plays) until both choices are revealed;
- in the main phase, which of its cards are in its hand and which still in its draw pile.

A twin varies only these, never a card that will reach the opponent or the table in a way
that depends on the swap: a kept card is swapped only with a card the undealt deck will give
to this same seat in a later draft round (the deal order is fixed by the opening shuffle), so
the base cards and the opponent's offers stay the same. The chance generator is untouched.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from games.rps_poker import rules
from games.rps_poker.state import Phase, RpsState

Variant = Callable[[RpsState], None]


def _future_positions(state: RpsState, seat: int) -> list[int]:
    """Indices in `undealt` of the cards later draft rounds will give `seat`."""
    later = rules.DRAFT_ROUNDS - state.draft_round - 1
    per_round = 2 * rules.DRAFT_DEAL
    return [j * per_round + seat * rules.DRAFT_DEAL + k for j in range(later)
            for k in range(rules.DRAFT_DEAL) if j * per_round + seat * rules.DRAFT_DEAL + k
            < len(state.undealt)]


def _draft_variants(state: RpsState, seat: int) -> list[Variant]:
    out: list[Variant] = []
    offer = state.offers[seat]
    pending = state.pending[seat]
    if pending is not None and len(offer) == 2:
        other = offer[1 - offer.index(pending)]

        def flip(twin: RpsState, card: str = other) -> None:
            twin.pending[seat] = card
        out.append(flip)
    future = _future_positions(state, seat)
    for pos in future:
        for i, kept in enumerate(state.kept[seat]):
            def swap_kept(twin: RpsState, i: int = i, kept: str = kept, pos: int = pos) -> None:
                fresh = twin.undealt[pos]
                twin.undealt[pos] = kept
                twin.kept[seat][i] = fresh
                record = twin.drafts[i]
                record.offers[seat][record.offers[seat].index(kept)] = fresh
                record.kept[seat] = fresh
            out.append(swap_kept)
        # A card of the current pair that stays with this seat (the pending pick, or either
        # card before the pick) may be swapped with a later card of its own.
        for card in ([pending] if pending is not None else list(offer)):
            def swap_offer(twin: RpsState, card: str = card, pos: int = pos) -> None:
                fresh = twin.undealt[pos]
                twin.undealt[pos] = card
                twin.offers[seat][twin.offers[seat].index(card)] = fresh
                if twin.pending[seat] == card:
                    twin.pending[seat] = fresh
            out.append(swap_offer)
    return out


def _main_variants(state: RpsState, seat: int) -> list[Variant]:
    out: list[Variant] = []
    hand, pile = state.hand[seat], state.draw_pile[seat]
    pending = state.pending[seat]
    for h in range(len(hand)):
        for d in range(len(pile)):
            def swap_draw(twin: RpsState, h: int = h, d: int = d) -> None:
                held = twin.hand[seat][h]
                twin.hand[seat][h], twin.draw_pile[seat][d] = twin.draw_pile[seat][d], held
                if twin.pending[seat] == held:
                    twin.pending[seat] = twin.hand[seat][h]
            out.append(swap_draw)
    if pending is not None:
        for card in hand:
            if card != pending:
                def repick(twin: RpsState, card: str = card) -> None:
                    twin.pending[seat] = card
                out.append(repick)
    return out


def make_twin(state: RpsState, seat: int, rng: random.Random) -> RpsState | None:
    """A world differing only in `seat`'s secrets, or None when it has none now."""
    if state.phase == Phase.DRAFT:
        variants = _draft_variants(state, seat)
    elif state.phase == Phase.MAIN:
        variants = _main_variants(state, seat)
    else:
        return None
    if not variants:
        return None
    twin = state.model_copy(deep=True)
    rng.choice(variants)(twin)
    return twin
