"""The automatic steps between a turn's decisions: offering Unexpected Sabotage, ending the turn."""

from __future__ import annotations

from games.core.contract import Event
from games.decoder import rules
from games.decoder.events import PUBLIC, UMPIRE, P, ev
from games.decoder.state import DecoderState
from games.decoder.text import timers_text


def after_action(state: DecoderState, events: list[Event]) -> None:
    """The turn's action is resolved without a response decision: offer Unexpected Sabotage to
    an opponent who holds it, else end the turn."""
    assert state.active is not None
    rec = state.current
    opp = state.seats[1 - state.active]
    if opp.items.unexpected_sabotage > 0 and rec is not None and not rec.unexpected_sabotage:
        state.step = "sabotage_option"
    else:
        end_turn(state, events)


def end_turn(state: DecoderState, events: list[Event]) -> None:
    """Run the recharge timers down to the next mover and hand them the turn."""
    timers = [state.seats[0].timer, state.seats[1].timer]
    nxt = rules.advance_timers(timers, state.last_mover)
    state.seats[0].timer, state.seats[1].timer = timers
    state.turn += 1
    state.active = nxt
    for me in state.seats:  # a fresh turn budget for both players
        me.turn_used = 0.0
        me.turn_charged = 0
    state.step = "turn"
    events.append(ev("play.next", PUBLIC, f"Turn {state.turn}: {P(nxt)} to move.",
                     turn=state.turn, seat=nxt))
    events.append(ev("play.timers", UMPIRE, timers_text(state)))
