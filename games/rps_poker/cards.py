"""The 30 cards of Turn-based RPS Poker: codes and integer indices (from `codes.py`), and how
they look and are read.
"""

from __future__ import annotations

import re

from games.core.cards import CardStyle, Suit
from games.core.parsing import number as read_number
from games.rps_poker.codes import CARDS, DECK_SIZE, INDEX, NUMBERS, SYMBOLS

__all__ = ["CARDS", "DECK_SIZE", "INDEX", "NUMBERS", "STYLE", "SYMBOLS", "SYMBOL_WORDS",
           "find_cards", "number", "render", "render_all"]

ROCK = Suit("R", "rock", "🪨", aliases=("rocks", "stone", "✊", "👊", "🤜"))
PAPER = Suit("P", "paper", "📄", aliases=("papers", "✋", "🖐", "🤚", "📃", "🧻"))
SCISSORS = Suit("S", "scissors", "✂️", aliases=("scissor", "✌", "✂"))

STYLE = CardStyle(suits=(ROCK, PAPER, SCISSORS), numbers=NUMBERS)


def render(card: str) -> str:
    """A card as a person sees it: symbol emoji and number ("🪨7")."""
    return STYLE.render(card)


def render_all(cards: list[str] | tuple[str, ...], sep: str = " ") -> str:
    return STYLE.render_all(cards, sep)


def number(card: str) -> int:
    return INDEX[card] % 10


def _word_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for suit in STYLE.suits:
        for word in (suit.letter, suit.name, suit.emoji, *suit.aliases):
            table[word.replace("\ufe0f", "").lower()] = suit.letter
    return table


SYMBOL_WORDS = _word_table()
_SYM = "|".join(re.escape(w) for w in sorted(SYMBOL_WORDS, key=len, reverse=True))
# A symbol word must not be the tail of a longer word ("keeps 2" is not S2), and the number
# is not part of a longer number. Symbol-first forms ("R3", "🪨 3") are read before
# number-first ones ("3 rock"), so "2 🪨3" is the position 2 and the card R3.
_SYMBOL_FIRST = re.compile(rf"(?<![a-z])(?P<s>{_SYM})\s?[-_:]?\s?(?P<n>[0-9]+)(?![0-9])")
_NUMBER_FIRST = re.compile(rf"(?<![0-9])(?P<n>[0-9]+)\s?[-_:]?\s?(?P<s>{_SYM})(?![a-z])")


def find_cards(text: str) -> list[str]:
    """Every card named in `text`, in order: "R3", "r3", "rock 3", "🪨3", "3 rock", "✊ 3".

    Numbers above 9 are returned as written ("R12") so the caller can say no such card exists.
    """
    folded = text.replace("\ufe0f", "").lower()
    found: list[tuple[int, str]] = []

    def blank(m: re.Match[str]) -> str:  # one pass: rebuilding the text per card is quadratic
        found.append((m.start(), f"{SYMBOL_WORDS[m.group('s')]}{read_number(m.group('n'))}"))
        return " " * (m.end() - m.start())

    folded = _SYMBOL_FIRST.sub(blank, folded)
    for m in _NUMBER_FIRST.finditer(folded):
        found.append((m.start(), f"{SYMBOL_WORDS[m.group('s')]}{read_number(m.group('n'))}"))
    return [card for _, card in sorted(found)]
