"""Time: what a decision's elapsed seconds cost (setup time, or the time bank past the turn
timer), and what each prompt's timeout does (a default during setup, a loss in play)."""

from __future__ import annotations

from games.core.contract import Command, Event, Timeout
from games.decoder import rules
from games.decoder.commands import ChooseHand, ChooseRarities, Ready
from games.decoder.dealing import apply_choose_hand, apply_choose_rarities
from games.decoder.events import PUBLIC, P, ev
from games.decoder.letters import HAND_SIZE
from games.decoder.outcome import lose
from games.decoder.prompts import by_key
from games.decoder.state import DecoderState
from games.decoder.tuning import apply_ready


def spend(state: DecoderState, seat: int, command: Command, events: list[Event]) -> bool:
    """Take the seconds `command` took from the seat's clock; False when that lost the match."""
    if state.phase == "play":
        return _charge_bank(state, seat, command, events)
    if state.phase == "selection" and command.elapsed is not None:
        me = state.seats[seat]
        me.setup_left = max(0.0, me.setup_left - command.elapsed)
    return True


def _charge_bank(state: DecoderState, seat: int, command: Command, events: list[Event]) -> bool:
    """Charge the time bank for a decision that took `command.elapsed` seconds; False (and the
    match lost) when the bank could not cover it."""
    s = state.settings
    limit = s.turn_time if seat == state.active else s.response_time
    charge = rules.bank_charge(command.elapsed, limit, s.bank_step)
    if charge == 0:
        return True
    me = state.seats[seat]
    if charge > me.bank:
        me.bank = 0
        lose(state, seat, "ran out of time (time bank exhausted)", events)
        return False
    me.bank -= charge
    events.append(ev("clock.bank", PUBLIC,
                     f"{P(seat)} used {charge} s of their time bank ({me.bank} s left).",
                     seat=seat, charged=charge, bank=me.bank))
    return True


def apply_timeout(state: DecoderState, seat: int, command: Timeout, events: list[Event]) -> None:
    prompt = by_key(state, command.prompt_key)
    assert prompt is not None
    me = state.seats[seat]
    if prompt.kind == "tune":
        events.append(ev("setup.locked", PUBLIC, f"{P(seat)}'s puzzle times are locked."))
        apply_ready(state, seat, Ready(), events, announce=False)
    elif prompt.kind == "rarity":
        split = rules.rarity_options(me.extra_count)[0]
        events.append(ev("setup.timeout", PUBLIC,
                         f"{P(seat)} ran out of setup time: the default choices apply."))
        apply_choose_rarities(
            state, seat, ChooseRarities(common=split[0], uncommon=split[1], rare=split[2]), events)
    elif prompt.kind == "hand":
        events.append(ev("setup.timeout", PUBLIC,
                         f"{P(seat)} ran out of setup time: the default hand applies."))
        apply_choose_hand(state, seat, ChooseHand(letters=tuple(me.setup_letters[:HAND_SIZE])),
                          events)
    else:
        me.bank = 0
        lose(state, seat, "ran out of time (turn timer and time bank)", events)
