"""Devil's Deal's reveal (`contract.Reveals`): the private cards a fold left unshown, once
the match is over.

A round's private cards are shown at its showdown, in the game room. Those a fold leaves
unshown are the folder's and their opponent's secret for the rest of the match (and the
pools carry over from round to round, so knowing which cards left a pool unseen tells what
it still holds). When the match ends, the feed shows every pair a fold (or the hosts'
ending the match midway) left unshown, in the order the rounds were played.
"""

from __future__ import annotations

from games.devils_deal.cards import render_all
from games.devils_deal.state import DevilsDealState
from games.devils_deal.text import p, pair_token

AT_END = ("every pair a fold (or the hosts' ending the match mid-round) left unshown, in "
          "the order of the rounds")


def reveal(state: DevilsDealState) -> str:
    hidden = [(int(seat), str(token)) for seat, token in state.hidden_pairs]
    for seat, pair in enumerate(state.private):  # a round the hosts ended midway
        if pair is not None and state.revealed[seat] < 2:
            token = pair_token(seat, *pair)
            if (seat, token) not in hidden:
                hidden.append((seat, token))
    if not hidden:
        return "🔓 Every private pair of the match was shown at its showdown: nothing more to reveal."
    pairs = "; ".join(f"{p(seat)} {render_all(_cards(token))}" for seat, token in hidden)
    return f"🔓 Private cards never shown in the game room, round by round: {pairs}."


def _cards(token: str) -> list[str]:
    """The two cards of a `pair_token` ("seat1:R7>B3"), first chosen first."""
    return token.split(":", 1)[1].split(">")
