"""Wording of Devil's Deal events and prompts (plain text; players as {P0}/{P1})."""

from __future__ import annotations

from collections.abc import Sequence

from games.core.contract import seat_name
from games.devils_deal.cards import number, render, render_all


def p(seat: int) -> str:
    return seat_name(seat)


def chips_line(chips: Sequence[int]) -> str:
    return f"Chips: {p(0)} {chips[0]}, {p(1)} {chips[1]}."


def pool_counts(pools: Sequence[Sequence[str]]) -> str:
    return f"Pool sizes: {p(0)} {len(pools[0])}, {p(1)} {len(pools[1])}."


def cards_with_sum(cards: Sequence[str]) -> str:
    return f"{render_all(cards)} (sum {sum(number(c) for c in cards)})"


def pair_token(seat: int, first: str, second: str) -> str:
    """A seat's private pair as "seat1:R7>B3" (first>second): it appears only in that seat's
    own events and view, so the leak check can look for it everywhere else. The seat is part
    of it because both players may hold the same pair (there are infinitely many decks)."""
    return f"seat{seat}:{first}>{second}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def pile_lines(piles: Sequence[Sequence[str]], aside: int | None) -> str:
    lines = []
    for i, pile in enumerate(piles):
        mark = " (set aside)" if i == aside else ""
        lines.append(f"pile {i + 1}: {cards_with_sum(pile)}{mark}")
    return "; ".join(lines) if lines else "no piles (everything set aside)"


def card(c: str) -> str:
    return render(c)
