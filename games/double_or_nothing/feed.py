"""Double or Nothing's spectator feed: both hands of a bout, once the bout is over.

The unit is the bout: each bout is dealt afresh from the whole deck, so a finished bout's
hands tell nothing of a later one. When a bout ends (a hand emptied, a double refused, a
bout awarded by the hosts, the match ended) the feed shows each player's hand, in its order,
as it was just before the bout's last move.
"""

from __future__ import annotations

from games.double_or_nothing.rules import hand_line
from games.double_or_nothing.state import DoubleOrNothingState, Phase
from games.double_or_nothing.text import p


def reveals(before: DoubleOrNothingState, after: DoubleOrNothingState,
            ended: bool) -> list[str]:
    """The hands of the bout the step ended (`games.core.feed`)."""
    if before.bout == 0 or before.phase == Phase.OVER:
        return []
    if after.bout == before.bout and not ended:
        return []  # the bout goes on
    return [bout_reveal(before)]


def bout_reveal(state: DoubleOrNothingState) -> str:
    hands = "; ".join(f"{p(seat)} {hand_line(state.hands[seat])}" for seat in (0, 1))
    line = f"🔓 Bout {state.bout}, the hands before its last move: {hands}."
    if state.placing is not None:  # the hosts ended the match while a draw was being placed
        line += f" {p(state.turn)} had drawn {state.placing}, not yet placed."
    return line
