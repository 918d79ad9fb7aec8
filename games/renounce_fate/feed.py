"""Renounce Fate's reveal (`contract.Reveals`): the hands folds left unshown, once the match
is over.

A fold ends a round with no hand shown: neither player learns the other's, whether they
bluffed or not, for the rest of the match. When the match ends, the feed shows both hands of
every round a fold ended, in the order of the rounds; a round the hosts ended midway is
shown with them, with a renounce pick still secret then (a showdown shows its hands in the
room already).
"""

from __future__ import annotations

from games.renounce_fate.cards import render_all
from games.renounce_fate.state import Phase, RenounceFateState
from games.renounce_fate.text import p, pick_text

AT_END = ("both hands of every round a fold ended, in the order of the rounds, and, if the "
          "hosts end the match mid-round, that round's hands and any renounce pick not yet "
          "revealed")


def reveal(state: RenounceFateState) -> str:
    """The hands the match left unshown (`games.core.feed`)."""
    rounds: dict[int, list[str]] = {}
    for seat, token in state.hidden_hands:  # "hand3-seat1:R2+Y5"
        head, cards = token.split(":", 1)
        number = int(head[len("hand"):].split("-", 1)[0])
        rounds.setdefault(number, []).append(f"{p(seat)} {render_all(cards.split('+'))}")
    lines = [f"Round {number} (a fold): {', '.join(hands)}." for number, hands in rounds.items()]
    if state.phase != Phase.OVER and state.round > 0 and state.round not in rounds \
            and any(state.hands):
        lines.append(unfinished(state))
    if not lines:
        return "🔓 Every round ended at a showdown: no hand was left unshown."
    return "\n".join(["🔓 The hands the match left unshown:", *lines])


def unfinished(state: RenounceFateState) -> str:
    """The round the hosts ended midway: both hands, and a pick made but not yet revealed."""
    hands = ", ".join(f"{p(seat)} {render_all(state.hands[seat])}" for seat in (0, 1))
    line = f"Round {state.round} (unfinished): {hands}."
    picks = [f"{p(seat)} was renouncing {pick_text(pick.set_no, pick.card)}"
             for seat, pick in enumerate(state.picks) if pick is not None]
    if picks:
        line += " When the match ended, " + " and ".join(picks) + "."
    return line
