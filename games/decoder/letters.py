"""The 26 letter tiles and their rarities."""

from __future__ import annotations

from typing import Literal

Rarity = Literal["common", "uncommon", "rare"]

COMMON: tuple[str, ...] = tuple("ADEGILNORSTU")
UNCOMMON: tuple[str, ...] = tuple("BCFHKMPVWY")
RARE: tuple[str, ...] = tuple("JQXZ")
ALPHABET: tuple[str, ...] = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

RARITIES: dict[Rarity, tuple[str, ...]] = {"common": COMMON, "uncommon": UNCOMMON, "rare": RARE}
RARITY_ORDER: tuple[Rarity, ...] = ("common", "uncommon", "rare")

INITIAL: dict[Rarity, int] = {"common": 3, "uncommon": 2, "rare": 1}
EXTRA_CAP: dict[Rarity, int] = {"common": 3, "uncommon": 3, "rare": 1}
HAND_SIZE = 6


def rarity_of(letter: str) -> Rarity:
    for rarity, letters in RARITIES.items():
        if letter in letters:
            return rarity
    raise ValueError(f"not a letter tile: {letter!r}")


def sort_letters(letters: list[str] | set[str] | tuple[str, ...]) -> list[str]:
    return sorted(letters)


def render_letters(letters: list[str] | tuple[str, ...]) -> str:
    """Tiles as players read them: "A D E K S T" ("(none)" when empty)."""
    return " ".join(letters) if letters else "(none)"


# Regional-indicator emoji (🇦..🇿) players may paste instead of letters.
_REGIONAL_A = 0x1F1E6


def fold_letter_emoji(text: str) -> str:
    """Replace regional-indicator emoji by plain letters (with spaces, so they stay separate)."""
    out = []
    for ch in text:
        code = ord(ch)
        if _REGIONAL_A <= code < _REGIONAL_A + 26:
            out.append(f" {chr(ord('A') + code - _REGIONAL_A)} ")
        else:
            out.append(ch)
    return "".join(out)
