"""Setup, first part: the initial state and its announcement, then each player setting their
own puzzle times in private (any value from the official time up to the maximum, as often as
they like) until setup is locked: by the host, by the tuning clock, or once both said ready."""

from __future__ import annotations

from games.core.chance import Chance
from games.core.contract import Event
from games.decoder import rules
from games.decoder.commands import RaiseTime, Ready
from games.decoder.dealing import start_selection
from games.decoder.events import PUBLIC, UMPIRE, P, ev, tell, tell_and_log
from games.decoder.settings import DecoderSettings, generate_times
from games.decoder.state import DecoderState, SeatState, Tank
from games.decoder.text import items_text, seconds_text, tank_token, tanks_setup_text


def new_state(settings: DecoderSettings, seed: str) -> DecoderState:
    """Seat 0 holds the advantage: its recharge timer starts at 0, so it moves first."""
    chance = Chance.from_seed(seed)
    times = settings.times if settings.times is not None else generate_times(chance)
    seats = []
    for seat in (0, 1):
        tanks = [
            Tank(name=name, seconds=times[seat][i], official=times[seat][i],
                 units=rules.recharge_units(times[seat][i]))
            for i, name in enumerate(settings.puzzles)
        ]
        seats.append(SeatState(
            tanks=tanks, items=settings.items[seat].model_copy(), bank=settings.time_bank,
            timer=0 if seat == 0 else 1, setup_left=settings.setup_time,
        ))
    return DecoderState(settings=settings.model_copy(deep=True), chance=chance, seats=seats)


def opening_events(state: DecoderState) -> list[Event]:
    s = state.settings
    names = ", ".join(s.puzzles)
    items = "; ".join(f"{P(i)}: {items_text(state.seats[i].items)}" for i in (0, 1))
    events = [ev(
        "setup.start", PUBLIC,
        f"Decoder begins. Timer tanks (both players): {names}. {P(0)} holds the advantage: "
        f"recharge timer 0, so {P(0)} makes the first turn; {P(1)} starts at 1 unit. "
        f"Time banks: {seconds_text(s.time_bank)} each. Items: {items}. "
        f"Each player may now set their own puzzle times (from the official time up to "
        f"{s.max_seconds} s) in private, and change them again until setup is locked; saying "
        f"ready tells the hosts you are done" + (
            " (setup locks once both players are ready)." if s.lock_when_ready else "."),
        puzzles=list(s.puzzles), time_bank=s.time_bank,
    )]
    for seat in (0, 1):
        text = tanks_setup_text(state, seat)
        tell(seat, "setup.tanks", text, events)
        events.append(ev("setup.tanks", UMPIRE, f"{P(seat)}'s tanks: " + text))
    return events


def apply_raise_time(state: DecoderState, seat: int, c: RaiseTime, events: list[Event]) -> None:
    tank = state.seats[seat].tank(c.puzzle)
    assert tank is not None
    tank.seconds = c.seconds
    tank.units = rules.recharge_units(c.seconds)
    text = f"Set {tank.name} to {c.seconds} s: {tank_token(seat, tank.name, tank.units)}."
    tell_and_log(seat, "setup.raise", text, events)


def apply_ready(state: DecoderState, seat: int, c: Ready, events: list[Event]) -> None:
    """A signal to the host: it locks nothing (the player may go on changing their times),
    unless both are now ready and the settings lock setup then."""
    state.seats[seat].ready = True
    events.append(ev("setup.ready", PUBLIC,
                     f"{P(seat)} is ready (their times stay open until setup is locked)."))
    if state.settings.lock_when_ready and all(s.ready for s in state.seats):
        events.append(ev("setup.locked", PUBLIC, "Both players are ready: setup is locked."))
        for me in state.seats:
            me.locked = True
        start_selection(state, events)


def lock_times(state: DecoderState, seat: int, events: list[Event]) -> None:
    """The host (or the tuning clock) locks this seat's puzzle times."""
    state.seats[seat].locked = True
    events.append(ev("setup.locked", PUBLIC, f"{P(seat)}'s puzzle times are locked."))
    if all(s.locked for s in state.seats):
        start_selection(state, events)
