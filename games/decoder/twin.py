"""Twin worlds for the two-world information check: a copy of the match that differs only in one
seat's secrets.

What a seat X keeps from its opponent Y: its puzzle times, its tiles (initial, extra, those set
aside for it and never dealt), its rarity and hand choices, its hand, the compensation letters it
was offered and its swaps. The twin varies these and keeps all that Y and a spectator know, and
the chance generator, as they are:

- Letters: a permutation of the letters Y cannot tell apart (those of X's stack or X's private
  letters that Y never saw and nobody named), within each rarity so every count stays right.
  During letter selection Y's own stack is left alone (Y may still be dealt from it).
- Setup choices (during letter selection): another rarity split and another hand of six.
- Puzzle times: another number of seconds within the same recharge units, no lower than the
  official time (which stays, so the same time commands stay legal). Units are not varied:
  the order of turns shows them to everyone as soon as X uses a tank (that is the game), and
  whether X earned extra tiles follows from them (checked by a dedicated test that plays two
  matches whose times differ).
"""

from __future__ import annotations

import random

from games.decoder import rules
from games.decoder.letters import HAND_SIZE, RARITIES, RARITY_ORDER
from games.decoder.state import DecoderState, SeatState


def twin(state: DecoderState, seat: int, rng: random.Random) -> DecoderState | None:
    if state.phase in ("tuning", "over"):
        # While times are being set, the seat's only secret is its times, and their units are
        # not varied (see above): a twin there would only cover seconds, and hold the one
        # comparison of a match open to its end, leaving the tiles unchecked.
        return None
    out = state.model_copy(deep=True)
    me, them = out.seats[seat], out.seats[1 - seat]
    changed = _vary_seconds(out, me, rng)
    if state.phase in ("selection", "play"):
        changed |= _permute_letters(out, me, them, rng)
    if state.phase == "selection":
        changed |= _vary_choices(me, rng)
    return out if changed else None


def _vary_seconds(state: DecoderState, me: SeatState, rng: random.Random) -> bool:
    """Each unsabotaged tank's seconds moved within the same units. The official time stays:
    it decides which times the seat may set, and the same command must stay legal in both
    worlds (a different time set in the twin would change the opponent's extra tiles)."""
    cap = state.settings.max_seconds
    changed = False
    for tank in me.tanks:
        if tank.units != rules.recharge_units(tank.seconds):
            continue  # sabotaged: its seconds no longer give its units
        official = tank.official if tank.official is not None else tank.seconds
        low = max(official, 1 if tank.units == 1 else 10 * tank.units)
        high = cap if tank.units == rules.MAX_UNITS else min(cap, 10 * tank.units + 9)
        if tank.units == 1:
            high = min(cap, 19)
        if high <= low:
            continue
        seconds = rng.randint(low, high)
        changed |= seconds != tank.seconds
        tank.seconds = seconds
    return changed


def _hidden_from(state: DecoderState, me: SeatState, them: SeatState) -> set[str]:
    """The letters the opponent cannot tell apart among the seat's: dealt to or set aside for
    the seat, or told to it privately, and never seen by the opponent nor named in public."""
    mine = set(me.initial) | set(me.private_letters) | set(me.hand)
    for letters in me.reserve.values():
        mine |= set(letters)
    if state.phase == "selection":  # the opponent's stack may still be dealt to them
        mine -= set(them.initial)
        for letters in them.reserve.values():
            mine -= set(letters)
    return mine - set(them.private_letters) - set(them.hand) - set(state.named) \
        - set(state.revealed)


def _permute_letters(state: DecoderState, me: SeatState, them: SeatState,
                     rng: random.Random) -> bool:
    hidden = _hidden_from(state, me, them)
    mapping: dict[str, str] = {}
    for rarity in RARITY_ORDER:
        group = sorted(ch for ch in RARITIES[rarity] if ch in hidden)
        shuffled = list(group)
        rng.shuffle(shuffled)
        mapping.update(zip(group, shuffled, strict=True))
    if all(k == v for k, v in mapping.items()):
        return False

    def m(ch: str) -> str:
        return mapping.get(ch, ch)

    me.initial = sorted(m(ch) for ch in me.initial)
    me.extras = sorted(m(ch) for ch in me.extras)
    me.hand = sorted(m(ch) for ch in me.hand)
    me.private_letters = sorted(m(ch) for ch in me.private_letters)
    me.reserve = {r: [m(ch) for ch in letters] for r, letters in me.reserve.items()}
    them.reserve = {r: [m(ch) for ch in letters] for r, letters in them.reserve.items()}
    for offer in me.offers:
        offer.letter = m(offer.letter) if offer.letter is not None else None
        offer.gave = m(offer.gave) if offer.gave is not None else None
    return True


def _vary_choices(me: SeatState, rng: random.Random) -> bool:
    """During letter selection: another rarity split for the extra tiles, another hand."""
    changed = False
    if me.rarities is not None and me.extra_count:
        split = rng.choice(rules.rarity_options(me.extra_count))
        changed |= split != me.rarities
        me.rarities = split
        me.extras = sorted(ch for rarity, n in zip(RARITY_ORDER, split, strict=True)
                           for ch in me.reserve.get(rarity, [])[:n])
        me.private_letters = sorted(set(me.initial) | set(me.extras))
    if me.hand_chosen:
        hand = sorted(rng.sample(me.setup_letters, HAND_SIZE))
        changed |= hand != me.hand
        me.hand = hand
    elif me.hand:
        me.hand = []
    return changed
