"""How a match ends: on tiles (`finish`) or on time (`lose`), and the outcome it reports."""

from __future__ import annotations

from games.core.contract import Event, Outcome
from games.decoder.events import PUBLIC, UMPIRE, P, ev
from games.decoder.letters import render_letters
from games.decoder.state import DecoderState


def finish(state: DecoderState, winner: int, why: str, events: list[Event]) -> None:
    """The match is won on tiles; `why` is the whole reason."""
    _over(state, winner, why, events, {"winner": winner})


def lose(state: DecoderState, loser: int, why: str, events: list[Event]) -> None:
    """The match is lost on time; `why` says what `loser` did."""
    _over(state, 1 - loser, f"{P(loser)} {why}", events, {"winner": 1 - loser, "loser": loser})


def _over(state: DecoderState, winner: int, reason: str, events: list[Event],
          data: dict[str, object]) -> None:
    """End the match; `data` is the public event's data."""
    state.phase = "over"
    state.winner = winner
    state.step = None
    state.reason = reason
    events.append(ev("match.over", PUBLIC, f"{reason}. {P(winner)} wins Decoder!", **data))
    events.append(ev("match.reveal", UMPIRE, "Final hands: " + "; ".join(
        f"{P(i)} {render_letters(state.seats[i].hand)}" for i in (0, 1))))


def outcome(state: DecoderState) -> Outcome | None:
    if state.phase != "over" or state.winner is None:
        return None
    return Outcome(winner=state.winner, reason=state.reason,
                   score=(len(state.seats[0].hand), len(state.seats[1].hand)))
