"""Turn-based RPS Poker's reveal (`contract.Reveals`): the draft and every hand, once the
match is over.

The plays of each game are public as they are made; the draft and the hands are each
player's own until the match ends (a kept card is in its player's deck until the end, and a
game's hand keeps two of its three cards for the next game). When the match ends the feed
shows what was private: each draft round's offers and picks, and each player's hand in
every game (and the cards on offer or in hand if the hosts end the match midway).
"""

from __future__ import annotations

from games.core.contract import seat_name as p
from games.rps_poker.cards import render, render_all
from games.rps_poker.state import RpsState

AT_END = ("each draft round's offers and kept cards and each player's hand in every game "
          "(and the cards on offer or in hand if the hosts end the match midway)")


def reveal(state: RpsState) -> str:
    """Everything private of the match, once it is over (`games.core.feed`)."""
    lines = ["🔓 The match's private cards:"]
    for r, draft in enumerate(state.drafts, start=1):
        picks = "; ".join(
            f"{p(seat)} was offered {render_all(draft.offers[seat])} and kept "
            f"{render(draft.kept[seat])}" for seat in (0, 1))
        lines.append(f"Draft round {r}: {picks}.")
    if state.phase == "draft" and any(state.offers):
        offers = "; ".join(f"{p(seat)} {render_all(state.offers[seat])}" for seat in (0, 1))
        lines.append(f"Draft round {len(state.drafts) + 1} (unfinished): offered {offers}.")
    for game in state.history:
        hands = "; ".join(f"{p(seat)} held {render_all(game.hands[seat])}" for seat in (0, 1))
        lines.append(f"Game {game.number}: {hands}.")
    if state.phase == "main" and any(state.hand):
        hands = "; ".join(f"{p(seat)} {render_all(state.hand[seat])}" for seat in (0, 1))
        lines.append(f"Game {len(state.history) + 1} (unfinished): hands {hands}.")
    return "\n".join(lines)
