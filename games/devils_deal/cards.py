"""The cards of Devil's Deal: red, green and blue, numbered 1 to 9 (27 different cards)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from games.core.cards import CardStyle, Suit

STYLE = CardStyle(
    suits=(
        Suit("R", "red", "🟥", ("🔴",)),
        Suit("G", "green", "🟩", ("🟢",)),
        Suit("B", "blue", "🟦", ("🔵",)),
    ),
    numbers=tuple(range(1, 10)),
)

DECK: tuple[str, ...] = tuple(STYLE.deck())  # the 27 cards of one fresh deck, in a fixed order


def number(card: str) -> int:
    return int(card[1:])


def suit(card: str) -> str:
    return card[0]


def render(card: str) -> str:
    return STYLE.render(card)


def render_all(cards: Iterable[str]) -> str:
    return STYLE.render_all(list(cards))


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards in a stable reading order: by colour (R, G, B), then number."""
    order = {c: i for i, c in enumerate(DECK)}
    return sorted(cards, key=lambda c: order[c])


def multiset_contains(bag: Iterable[str], wanted: Iterable[str]) -> bool:
    """Whether `bag` holds every card of `wanted`, copies counted."""
    have = Counter(bag)
    need = Counter(wanted)
    return all(have[c] >= n for c, n in need.items())


def remove_cards(bag: list[str], cards: Iterable[str]) -> None:
    """Remove one copy of each card of `cards` from `bag` (they must be there)."""
    for c in cards:
        bag.remove(c)
