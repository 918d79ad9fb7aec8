"""Sabotage: after a correct total, on a restored tank; by the Unexpected Sabotage item, on the tank
just used. Either raises the tank's recharge time by half."""

from __future__ import annotations

from games.core.contract import Event
from games.decoder import rules
from games.decoder.commands import SabotageTank, UnexpectedSabotage
from games.decoder.events import PUBLIC, UMPIRE, P, ev, tell
from games.decoder.flow import end_turn
from games.decoder.state import DecoderState
from games.decoder.text import tank_token


def apply_sabotage_tank(state: DecoderState, seat: int, c: SabotageTank,
                        events: list[Event]) -> None:
    rec = state.current
    assert rec is not None and state.active is not None
    owner = state.active
    tank = state.seats[owner].tank(c.tank)
    assert tank is not None
    old = tank.units
    tank.units = rules.sabotaged(old)
    rec.sabotaged = tank.name
    events.append(ev("turn.sabotage", PUBLIC,
                     f"{P(seat)} sabotages {P(owner)}'s {tank.name}: its recharge time goes "
                     f"up by half (rounded up, at most 30 units).", tank=tank.name))
    tell(owner, "turn.sabotaged",
         f"Sabotaged: {tank_token(owner, tank.name, tank.units)} now (was {old}).", events)
    events.append(ev("turn.sabotage", UMPIRE, f"{P(owner)}'s {tank.name}: {old} -> {tank.units}."))
    end_turn(state, events)


def apply_unexpected_sabotage(state: DecoderState, seat: int, c: UnexpectedSabotage,
                              events: list[Event]) -> None:
    if c.use:
        unexpected(state, seat, events)
    else:
        events.append(ev("turn.pass", PUBLIC, f"{P(seat)} passes."))
    end_turn(state, events)


def unexpected(state: DecoderState, seat: int, events: list[Event]) -> None:
    """Unexpected Sabotage on the tank the active player just used: it applies to this turn."""
    rec = state.current
    assert rec is not None and state.active is not None
    owner = state.seats[state.active]
    state.seats[seat].items.unexpected_sabotage -= 1
    rec.unexpected_sabotage = True
    tank = owner.tank(rec.tank)
    assert tank is not None
    old = tank.units
    tank.units = rules.sabotaged(old)
    owner.timer = tank.units
    owner.fills[state.turn] = tank.units
    events.append(ev("turn.unexpected", PUBLIC,
                     f"{P(seat)} plays Unexpected Sabotage on {P(state.active)}'s {rec.tank}: "
                     f"its recharge time goes up by half (rounded up, at most 30 units), "
                     f"starting with this turn.", tank=rec.tank))
    tell(state.active, "turn.sabotaged",
         f"Unexpected Sabotage: {tank_token(state.active, tank.name, tank.units)} now (was {old}); "
         f"your recharge timer uses the new time.", events)
    events.append(ev("turn.unexpected", UMPIRE,
                     f"{P(state.active)}'s {tank.name}: {old} -> {tank.units}."))
