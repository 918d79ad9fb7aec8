"""The 30 card codes of Turn-based RPS Poker and their integer indices, and nothing else.

A card is the seed's 2-character code: symbol (R, P or S), then number 0-9 ("R0".."S9").
The fast rules and the arena work on integer indices: index = symbol * 10 + number with
R = 0, P = 1, S = 2, so `index % 10` is the number and `index // 10` the symbol.

Apart from `cards.py` (which adds how cards look and are read), so that the rules and the
arena import no game engine: `umpire arena` starts in a third of the time.
"""

from __future__ import annotations

SYMBOLS = "RPS"
NUMBERS = tuple(range(10))
CARDS: tuple[str, ...] = tuple(f"{s}{n}" for s in SYMBOLS for n in NUMBERS)
INDEX: dict[str, int] = {c: i for i, c in enumerate(CARDS)}
DECK_SIZE = len(CARDS)  # 30
