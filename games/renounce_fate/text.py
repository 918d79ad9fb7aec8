"""Wording of Renounce Fate events and prompts (plain text; players as {P0}/{P1})."""

from __future__ import annotations

from collections.abc import Sequence

from games.core.contract import seat_name
from games.renounce_fate.cards import render, render_all
from games.renounce_fate.state import FateSet

HAND_RULES = {
    3: "3 community cards: the best 4-card hand using both private cards and two community cards",
    2: "2 community cards: the best 3-card hand from your two cards and the two community cards",
    1: "1 community card: the best 2-card hand of the community card and one private card",
}


def p(seat: int) -> str:
    return seat_name(seat)


def chips_line(chips: Sequence[int]) -> str:
    return f"Chips: {p(0)} {chips[0]}, {p(1)} {chips[1]}."


def hand_token(seat: int, round_no: int, cards: Sequence[str]) -> str:
    """A seat's hand as "hand3-seat1:R2+Y5": it appears only in that seat's own events and
    view, so the leak check can look for it everywhere else."""
    return f"hand{round_no}-seat{seat}:{'+'.join(sorted(cards))}"


def pick_token(seat: int, round_no: int, step: int, set_no: int, card: str) -> str:
    """A pending renounce pick, secret to its seat until both picks are revealed."""
    return f"pick{round_no}.{step}-seat{seat}:{card}@set{set_no}"


def pick_text(set_no: int, card: str) -> str:
    return f"{render(card)} from set {set_no}"


def pick_choice(set_no: int, card: str) -> str:
    """The button/menu text of a pick (what `parse` reads)."""
    return f"renounce {card} set {set_no}"


def set_line(n: int, s: FateSet) -> str:
    """"Set 2: 🟥4 🟨5 — open (discarded 🟨1)"."""
    cards = render_all(s.remaining) if s.remaining else "empty"
    if s.kept is not None:
        state = "locked (both renounced it)"
    elif s.locked:
        state = "locked"
    else:
        state = "open"
    gone = f" (discarded {render_all(s.discarded)})" if s.discarded else ""
    return f"Set {n}: {cards} — {state}{gone}"


def sets_picture(sets: Sequence[FateSet]) -> str:
    return "\n".join(set_line(i + 1, s) for i, s in enumerate(sets))
