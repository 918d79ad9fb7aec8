"""The 20 cards of Renounce Fate: numbers 1-5 in red (R) and yellow (Y), two copies of each.

A card is its code, "R3" or "Y5"; the bot shows it as a coloured square and the number
(🟥3, 🟨5). Players may type "R3", "red 3", "3 red", "🟥3" (also 🔴3, 🟡5, "yel 5").
"""

from __future__ import annotations

from collections.abc import Iterable

from games.core.cards import CardStyle, Suit

RED = Suit("R", "red", "🟥", aliases=("🔴", "reds"))
YELLOW = Suit("Y", "yellow", "🟨", aliases=("🟡", "yel", "yellows", "gold"))
STYLE = CardStyle(suits=(RED, YELLOW), numbers=(1, 2, 3, 4, 5))
DECK: tuple[str, ...] = tuple(STYLE.deck(copies=2))  # 20 cards
CODES: tuple[str, ...] = tuple(STYLE.deck())  # the 10 different cards


def render(card: str) -> str:
    return STYLE.render(card)


def render_all(cards: Iterable[str], sep: str = " ") -> str:
    return STYLE.render_all(list(cards), sep)


def number(card: str) -> int:
    return STYLE.number(card)


def suit(card: str) -> str:
    return STYLE.suit(card)


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Low to high, red before yellow on equal numbers (display order)."""
    return sorted(cards, key=lambda c: (number(c), suit(c)))
