"""Decoder's rules as pure functions (no state): units, extra tiles, clues, turn order, sabotage,
compensation letters, bank charging. Each is named after the seed's rule it implements."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from games.decoder.letters import ALPHABET, EXTRA_CAP, RARITY_ORDER, Rarity

if TYPE_CHECKING:
    from games.decoder.settings import DecoderSettings

Clue = Literal["ANY", "ODD", "TWO"]
CLUES: tuple[Clue, ...] = ("ANY", "ODD", "TWO")
MAX_UNITS = 30


def recharge_units(seconds: int) -> int:
    """Seconds divided by 10, rounded down; under 10 s is 1 unit; at most 30 (300 s)."""
    if seconds < 10:
        return 1
    return min(seconds // 10, MAX_UNITS)


def earns_extra_tile(mine: int, theirs: int) -> bool:
    """A tank earns its owner an extra tile when its units are strictly below 75% of the
    opponent's units for the same puzzle (compared in whole units: 4*mine < 3*theirs)."""
    return 4 * mine < 3 * theirs


def sabotaged(units: int) -> int:
    """Recharge time increased by 50%, rounded up, capped at 30 units."""
    return min(math.ceil(units * 3 / 2), MAX_UNITS)


def clue_count(word: str, hand: Iterable[str]) -> int:
    """How many letters of `word` are in `hand`, counting repeated letters of the word each time."""
    held = set(hand)
    return sum(1 for ch in word.upper() if ch in held)


def clue_answer(clue: Clue, count: int) -> bool:
    """The truthful answer to a clue for a count."""
    if clue == "ANY":
        return count >= 1
    if clue == "ODD":
        return count % 2 == 1
    return count == 2


def offered_clues(excluded: Clue) -> tuple[Clue, Clue]:
    """The two clues left after the asker excludes one."""
    a, b = (c for c in CLUES if c != excluded)
    return a, b


def rarity_options(extra: int) -> list[tuple[int, int, int]]:
    """Every (common, uncommon, rare) split of `extra` tiles within the caps (3, 3, 1), in the
    order offered to the player: most common tiles first, then most uncommon."""
    caps = [EXTRA_CAP[r] for r in RARITY_ORDER]
    out = []
    for c in range(min(extra, caps[0]), -1, -1):
        for u in range(min(extra - c, caps[1]), -1, -1):
            r = extra - c - u
            if 0 <= r <= caps[2]:
                out.append((c, u, r))
    return out


def describe_rarities(split: tuple[int, int, int]) -> str:
    """(2, 0, 1) -> "2 common, 1 rare"."""
    parts = [f"{n} {name}" for n, name in zip(split, RARITY_ORDER, strict=True) if n]
    return ", ".join(parts) or "none"


def rarity_split(rarities: Iterable[Rarity]) -> tuple[int, int, int]:
    rs = list(rarities)
    return (rs.count("common"), rs.count("uncommon"), rs.count("rare"))


def advance_timers(timers: list[int], last_mover: int | None) -> int:
    """Run both recharge timers down together until one is zero (mutating `timers`) and return the
    seat that moves next. On a double zero, the player who did not take the last turn moves."""
    low = min(timers)
    if low > 0:
        timers[0] -= low
        timers[1] -= low
    if timers[0] == 0 and timers[1] == 0:
        return 0 if last_mover is None else 1 - last_mover
    return 0 if timers[0] == 0 else 1


def compensation_letters(revealed: Iterable[str], receiver_hand: Iterable[str],
                         guesser_setup: Iterable[str], guesser_hand: Iterable[str]) -> list[str]:
    """Letters that may be offered to the wrongly accused player: not revealed, not in their hand,
    not among the letters the guesser saw during setup (the seed's three conditions), and not in
    the guesser's hand now (house ruling: a tile is never in two hands)."""
    banned = set(revealed) | set(receiver_hand) | set(guesser_setup) | set(guesser_hand)
    return [ch for ch in ALPHABET if ch not in banned]


def turn_budget(settings: DecoderSettings, active: bool) -> float:
    """The seconds a seat has for all of its decisions in one turn before its bank runs: the
    player on turn 90 s, the opponent 60 s (settings)."""
    return settings.turn_time if active else settings.response_time


def bank_charge(elapsed: float | None, time_limit: float, step: int) -> int:
    """Seconds of time bank that `elapsed` seconds (a turn's decisions together) need beyond the
    turn budget `time_limit`: the excess rounded UP to whole steps."""
    if elapsed is None or elapsed <= time_limit:
        return 0
    over = elapsed - time_limit
    return int(math.ceil(over / step - 1e-9)) * step
