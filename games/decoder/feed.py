"""Decoder's reveal (`contract.Reveals`): each player's setup and hand, once the match is over.

The tiles a player holds, how they chose them and what their puzzle times earned are theirs
until the match ends. Then the feed shows for each player the puzzle times they set (and
which earned an extra tile), the letters they were dealt and chose at setup, the
compensation letters they were offered and what they did with them, and the tiles left in
their hand.
"""

from __future__ import annotations

from games.core.contract import seat_name as p
from games.decoder.letters import render_letters
from games.decoder.state import DecoderState, SeatState

AT_END = ("the puzzle times each player set (and which earned an extra tile), the tiles "
          "they were dealt and their extra tiles, each compensation letter offered and "
          "whether they took it (and for which tile), and the tiles left in their hand")


def reveal(state: DecoderState) -> str:
    """Each player's private side of the match, once it is over (`games.core.feed`)."""
    return "\n".join(["🔓 Each player's private side of the match:",
                      *(seat_reveal(seat, state.seats[seat]) for seat in (0, 1))])


def seat_reveal(seat: int, me: SeatState) -> str:
    times = ", ".join(f"{t.name} {t.seconds} s" + (" (extra tile)" if t.extra_tile else "")
                      for t in me.tanks)
    parts = [f"{p(seat)}: puzzle times {times or 'none'}"]
    if me.initial:
        parts.append(f"dealt {render_letters(me.initial)}")
    if me.extras:
        parts.append(f"extra tiles {render_letters(me.extras)}")
    for offer in me.offers:
        if offer.letter is None:
            parts.append(f"turn {offer.turn}: no compensation letter qualified")
        elif offer.gave is not None:
            parts.append(f"turn {offer.turn}: took {offer.letter} for {offer.gave}")
        elif offer.decided:
            parts.append(f"turn {offer.turn}: declined {offer.letter}")
    parts.append(f"hand at the end {render_letters(me.hand) if me.hand else 'empty'}")
    return "; ".join(parts) + "."
