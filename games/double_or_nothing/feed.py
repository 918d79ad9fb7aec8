"""Double or Nothing's reveal (`contract.Reveals`): the hands each bout ended with, once the
match is over.

A bout ends when a hand empties, a double is refused or the hosts award it; the loser's
remaining hand is never shown while the match runs (hand contents are private, hand sizes
public). The state keeps each bout's closing hands (`bout_ends`, written by `closing`) and,
when the match ends, the feed shows them, bout by bout, in their order; a bout the hosts
ended midway is shown with them. The cards not dealt in a bout are never shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.double_or_nothing.rules import hand_line
from games.double_or_nothing.state import DoubleOrNothingState, Phase
from games.double_or_nothing.text import p

AT_END = ("the hands each bout ended with (the loser's remaining hand, and both hands of a "
          "bout decided by a refused double or by the hosts), bout by bout, in their order, "
          "and, if the hosts end the match mid-bout, that bout's hands")
NEVER = "the cards not dealt in a bout"


def closing(state: DoubleOrNothingState) -> list[str]:
    """The bout's hands now, as `bout_ends` keeps them: each hand's cards in order, then the
    card being placed ("<seat> <card>") or ""."""
    placing = f"{state.turn} {state.placing}" if state.placing is not None else ""
    return [" ".join(state.hands[0]), " ".join(state.hands[1]), placing]


def bout_line(number: int, ended: Sequence[str], *, unfinished: bool = False) -> str:
    hands = "; ".join(f"{p(seat)} {hand_line(ended[seat].split())}" for seat in (0, 1))
    line = f"Bout {number}{' (unfinished)' if unfinished else ''}: {hands}."
    if ended[2]:  # the bout ended while a draw was being placed
        seat, card = ended[2].split(" ", 1)
        line += f" {p(int(seat))} had drawn {card}, not yet placed."
    return line


def reveal(state: DoubleOrNothingState) -> str:
    """Every bout's closing hands (`games.core.feed`)."""
    lines = [bout_line(n, ended) for n, ended in enumerate(state.bout_ends, start=1)]
    if state.phase != Phase.OVER and state.bout > len(state.bout_ends):
        lines.append(bout_line(state.bout, closing(state), unfinished=True))
    return "\n".join(["🔓 The hands each bout ended with:", *lines])
