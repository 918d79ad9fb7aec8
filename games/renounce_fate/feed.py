"""Renounce Fate's spectator feed: both hands of a round, once the round is over.

The unit is the round: each round is dealt afresh from the whole deck, so nothing of a
finished round's hands bears on a later one. When a round ends (a showdown, a fold, a loss)
the feed shows both players' private cards of it, a hand a fold left unshown included; a
renounce pick still secret when the hosts end the match is shown with them (the runtime
passes the same state as `before` and `after` then).
"""

from __future__ import annotations

from games.renounce_fate.cards import render_all
from games.renounce_fate.state import Phase, RenounceFateState
from games.renounce_fate.text import p, pick_text


def reveals(before: RenounceFateState, after: RenounceFateState, ended: bool) -> list[str]:
    """The hands of the round the step ended (`games.core.feed`)."""
    if before.round == 0 or before.phase == Phase.OVER:
        return []  # no round dealt yet, or the match was already over
    if after.round == before.round and not ended:
        return []  # the round goes on
    return [round_reveal(before, hosts_ended=after is before)]


def round_reveal(state: RenounceFateState, *, hosts_ended: bool = False) -> str:
    """Both hands of the round; and a pick made but not yet revealed when the hosts ended the
    match (a step that ends a round by the rules reveals its picks in the room)."""
    hands = ", ".join(f"{p(seat)} {render_all(state.hands[seat])}" for seat in (0, 1))
    line = f"🔓 Round {state.round} hands: {hands}."
    picks = [f"{p(seat)} was renouncing {pick_text(pick.set_no, pick.card)}"
             for seat, pick in enumerate(state.picks) if pick is not None and hosts_ended]
    if picks:
        line += " When the match ended, " + " and ".join(picks) + "."
    return line
