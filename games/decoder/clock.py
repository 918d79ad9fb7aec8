"""Time: what a decision's elapsed seconds cost, and what each prompt's timeout does.

During letter selection each player has one setup budget for both steps. In play the turn
timer is a budget per turn: the active player has `turn_time` for all of their decisions in
the turn and the opponent `response_time` for all of theirs; only the part of a seat's
decisions beyond its budget is charged to its time bank, in whole steps rounded up. The bank
charge of a turn is kept so that a part of a step already paid for is not charged twice.
"""

from __future__ import annotations

from games.core.contract import ApplyHandler, Command, Event, Prompt
from games.decoder import rules
from games.decoder.commands import ChooseHand, ChooseRarities, UnexpectedSabotage
from games.decoder.dealing import apply_choose_hand, apply_choose_rarities
from games.decoder.events import PUBLIC, P, ev, tell_and_log
from games.decoder.letters import HAND_SIZE
from games.decoder.outcome import lose
from games.decoder.sabotage import apply_unexpected_sabotage
from games.decoder.state import DecoderState
from games.decoder.tuning import lock_times


def spend(state: DecoderState, seat: int, command: Command, events: list[Event]) -> bool:
    """Take the seconds `command` took from the seat's clock; False when that lost the match."""
    if state.phase == "play":
        return _charge_turn(state, seat, command, events)
    if state.phase == "selection" and command.elapsed is not None:
        me = state.seats[seat]
        me.setup_left = max(0.0, me.setup_left - command.elapsed)
    return True


def _charge_turn(state: DecoderState, seat: int, command: Command, events: list[Event]) -> bool:
    """Add the decision's seconds to the seat's time in this turn and charge the bank whatever
    the turn's total now needs beyond the budget; False (and the match lost) when the bank
    cannot cover it. The Unexpected Sabotage question never draws on the bank (its clock is
    the remaining budget, then "pass")."""
    if command.elapsed is None:
        return True
    s = state.settings
    me = state.seats[seat]
    me.turn_used += command.elapsed
    if state.step == "sabotage_option":
        return True
    total = rules.bank_charge(me.turn_used, rules.turn_budget(s, seat == state.active),
                              s.bank_step)
    charge = total - me.turn_charged
    if charge <= 0:
        return True
    me.turn_charged = total
    if charge > me.bank:
        me.bank = 0
        lose(state, seat, "ran out of time (time bank exhausted)", events)
        return False
    me.bank -= charge
    events.append(ev("clock.bank", PUBLIC,
                     f"{P(seat)} used {charge} s of their time bank ({me.bank} s left).",
                     seat=seat, charged=charge, bank=me.bank))
    return True


def spending(apply: ApplyHandler) -> ApplyHandler:
    """`apply` after the command's seconds are taken from the seat's clock (not at all when
    that lost the match)."""
    def spend_then_apply(state: DecoderState, seat: int, command: Command,
                         events: list[Event]) -> None:
        if spend(state, seat, command, events):
            apply(state, seat, command, events)
    return spend_then_apply


def apply_timeout(state: DecoderState, seat: int, prompt: Prompt, events: list[Event]) -> None:
    """The seed's default for each decision whose clock ran out: setup choices get their
    defaults, the sabotage question is a pass, and any other decision loses the match."""
    me = state.seats[seat]
    if prompt.kind == "tune":
        lock_times(state, seat, events)
    elif prompt.kind == "rarity":
        split = rules.rarity_options(me.extra_count)[0]
        tell_and_log(seat, "setup.timeout", "Your setup time ran out: the default choices "
                     "apply (the first rarities offered, and the first tiles as your hand).",
                     events)
        apply_choose_rarities(
            state, seat, ChooseRarities(common=split[0], uncommon=split[1], rare=split[2]), events)
        # The setup clock is one budget for both steps: the default hand applies as well.
        me.setup_left = 0.0
        apply_choose_hand(state, seat, ChooseHand(letters=tuple(me.setup_letters[:HAND_SIZE])),
                          events)
    elif prompt.kind == "hand":
        tell_and_log(seat, "setup.timeout", "Your setup time ran out: the default hand applies "
                     "(your first tiles).", events)
        apply_choose_hand(state, seat, ChooseHand(letters=tuple(me.setup_letters[:HAND_SIZE])),
                          events)
    elif prompt.kind == "sabotage_option":
        apply_unexpected_sabotage(state, seat, UnexpectedSabotage(use=False), events)
    else:
        me.bank = 0
        lose(state, seat, "ran out of time (turn timer and time bank)", events)
