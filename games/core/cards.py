"""Cards shared by the card games: codes, decks, rendering and tolerant reading.

A card is its code, a short string such as "R7" (suit letter, then number) or "7" for a
game without suits. Codes are what players type, what events and views carry, and what is
stored; a `CardStyle` knows a game's suits and numbers, reads what players type for a card
("R7", "r7", "red 7", "🟥7", "7 red") and renders a card with its coloured emoji ("🟥7").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from games.core.parsing import number as read_number


@dataclass(frozen=True)
class Suit:
    letter: str  # "R"
    name: str  # "red"
    emoji: str  # "🟥"
    aliases: tuple[str, ...] = ()  # other words and emoji players may use


@dataclass(frozen=True)
class CardStyle:
    """The suits and numbers of one game's cards."""

    suits: tuple[Suit, ...]
    numbers: tuple[int, ...]
    extra: tuple[str, ...] = ()  # codes of special cards, e.g. ("J",) for a joker
    extra_aliases: dict[str, str] = field(default_factory=dict)  # "joker" -> "J"
    _lookup: dict[str, str] = field(init=False, repr=False, compare=False)
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _extras: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lookup: dict[str, str] = {}
        for suit in self.suits:
            for word in (suit.letter, suit.name, suit.emoji, *suit.aliases):
                lookup[_fold(word)] = suit.letter
        object.__setattr__(self, "_lookup", lookup)
        suit_words = sorted(lookup, key=len, reverse=True)
        suit_re = "|".join(re.escape(w) for w in suit_words) if suit_words else "(?!)"
        extras = {_fold(c): c for c in self.extra}
        extras.update({_fold(k): v for k, v in self.extra_aliases.items()})
        object.__setattr__(self, "_extras", extras)
        # Word boundaries on both sides: "number 2" is not R2, "sub 3" is not B3.
        pattern = (
            rf"(?<![a-z])(?P<s1>{suit_re})\s*[-_:]?\s*(?P<n1>[0-9]+)"
            rf"|(?<![a-z0-9])(?P<n2>[0-9]+)\s*[-_:]?\s*(?P<s2>{suit_re})(?![a-z0-9])"
        )
        object.__setattr__(self, "_pattern", re.compile(pattern))

    # --- codes --------------------------------------------------------------------------
    def code(self, suit: str | None, number: int) -> str:
        return f"{suit or ''}{number}"

    def suit(self, card: str) -> str:
        return card[0] if self.suits and card[:1].isalpha() else ""

    def number(self, card: str) -> int:
        digits = card[1:] if self.suits else card
        return int(digits) if digits.isascii() and digits.isdigit() else 0

    def deck(self, copies: int = 1) -> list[str]:
        """Every card, `copies` times over, in a fixed order (shuffle with Chance)."""
        one = [self.code(s.letter, n) for s in self.suits for n in self.numbers] if self.suits \
            else [str(n) for n in self.numbers]
        return [c for _ in range(copies) for c in one] + [c for _ in range(copies) for c in self.extra]

    def is_card(self, card: str) -> bool:
        return card in self._all_codes()

    def _all_codes(self) -> frozenset[str]:
        return frozenset(self.deck())

    # --- rendering ----------------------------------------------------------------------
    def render(self, card: str) -> str:
        """A card as a person sees it: coloured emoji and the code's number ("🟥7")."""
        for s in self.suits:
            if card.startswith(s.letter):
                return f"{s.emoji}{card[len(s.letter):]}"
        return card

    def render_all(self, cards: Iterable[str], sep: str = " ") -> str:
        return sep.join(self.render(c) for c in cards) or "(none)"

    # --- reading ------------------------------------------------------------------------
    def find_cards(self, text: str) -> list[str]:
        """Every card named in `text`, in order ("R7 b3, green 5" -> ["R7", "B3", "G5"])."""
        folded = _fold(text)
        found: list[tuple[int, str]] = []
        if self.suits:
            for m in self._pattern.finditer(folded):
                letter = self._lookup[m.group("s1") or m.group("s2")]
                number = read_number(m.group("n1") or m.group("n2"))
                found.append((m.start(), self.code(letter, number)))
        else:
            for m in re.finditer(r"\d+", folded):
                found.append((m.start(), m.group()))
        for word, code in self._extras.items():
            for m in re.finditer(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", folded):
                found.append((m.start(), code))
        return [code for _, code in sorted(found)]

    def without_cards(self, text: str) -> str:
        """`text` (lower-cased) with every card named in it replaced by a space, so a grammar
        can read what else was typed ("y3 set 2" -> "  set 2")."""
        folded = _fold(text)
        folded = self._pattern.sub(" ", folded) if self.suits else re.sub(r"\d+", " ", folded)
        for word in self._extras:
            folded = re.sub(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", " ", folded)
        return folded

    def read_cards(self, text: str) -> list[str]:
        """Like find_cards, but every card must exist in this game (else ValueError)."""
        cards = self.find_cards(text)
        valid = self._all_codes()
        bad = [c for c in cards if c not in valid]
        if bad:
            raise ValueError(f"There is no card {', '.join(bad)} in this game.")
        return cards


def _fold(text: str) -> str:
    """Lower-case, and drop emoji variation selectors so "✌️" and "✌" read the same."""
    return text.replace("\ufe0f", "").lower()


def count_cards(cards: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return counts
