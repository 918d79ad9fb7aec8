"""Wording of Decoder's events and prompts, and the tokens that carry secrets.

Secret values are rendered through the token functions below and nowhere else, so the
conformance harness's leak check (whole-word search for each secret) is sound: a token can
only appear in text because the engine rendered that secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.core.contract import seat_name
from games.decoder.settings import ITEM_TITLES, Items

if TYPE_CHECKING:
    from games.decoder.state import DecoderState


def units_text(units: int) -> str:
    return f"{units} unit" if units == 1 else f"{units} units"


def tank_token(seat: int, name: str, units: int) -> str:
    """How a tank's recharge time is shown to its owner: "{P0}'s Arithmetic Box: 5 units".
    The owner is named because both players have tanks of the same names: a value of one
    player's tank must never read like the same-named tank of the other."""
    return f"{seat_name(seat)}'s {name}: {units_text(units)}"


def extra_token(name: str) -> str:
    """How a tank that earned an extra tile is shown to its owner."""
    return f"extra tile from {name}"


def timer_token(seat: int, units: int) -> str:
    """Recharge timers are told to nobody but the umpire log: "{P0} timer=4"."""
    return f"{seat_name(seat)} timer={units}"


def items_text(items: Items) -> str:
    held = [f"{ITEM_TITLES[k]} x{v}" for k, v in items.model_dump().items() if v]
    return ", ".join(held) or "no items"


def seconds_text(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60}:{s % 60:02d}" if s >= 60 else f"{s} s"


def yes_no(answer: bool) -> str:
    return "YES" if answer else "NO"


CLUE_MEANING = {
    "ANY": "is any letter of the word in the hand",
    "ODD": "is the count odd",
    "TWO": "is the count exactly 2",
}


def timers_text(state: DecoderState) -> str:
    return "Recharge timers: " + ", ".join(timer_token(i, state.seats[i].timer) for i in (0, 1))


def tanks_status_text(state: DecoderState, seat: int) -> str:
    """The owner's running display of their tanks, used and unused."""
    me = state.seats[seat]
    unused = [tank_token(seat, t.name, t.units) for t in me.tanks if not t.used]
    used = [tank_token(seat, t.name, t.units) for t in me.tanks if t.used]
    return (f"Your tanks now. Unused: {'; '.join(unused) or 'none'}. "
            f"Used: {'; '.join(used) or 'none'}.")


def tanks_setup_text(state: DecoderState, seat: int) -> str:
    me = state.seats[seat]
    return "Your timer tanks: " + "; ".join(
        f"{tank_token(seat, t.name, t.units)} ({t.seconds} s)" for t in me.tanks) + "."
