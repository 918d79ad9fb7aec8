"""Setup, first part: the initial state and its announcement, then each player raising their
own puzzle times in private until both are ready."""

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
            Tank(name=name, seconds=times[seat][i], units=rules.recharge_units(times[seat][i]))
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
        f"Each player may now raise their own puzzle times (up to {s.max_seconds} s) in "
        f"private, then say ready.",
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
    text = f"Raised {tank.name} to {c.seconds} s: {tank_token(seat, tank.name, tank.units)}."
    tell_and_log(seat, "setup.raise", text, events)


def apply_ready(state: DecoderState, seat: int, c: Ready, events: list[Event],
                announce: bool = True) -> None:
    """`announce` is False when the tuning clock locked the times (the lock is announced)."""
    state.seats[seat].ready = True
    if announce:
        events.append(ev("setup.ready", PUBLIC, f"{P(seat)} is ready."))
    if all(s.ready for s in state.seats):
        start_selection(state, events)
