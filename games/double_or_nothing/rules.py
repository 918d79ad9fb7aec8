"""The pure rules of Double or Nothing: cards, sets, strength, draws, the doubling die.

A card is its code: "1" to "10", or "J" for a joker. A hand is a list of codes in the order
the player may never change. A played set keeps each card's value: jokers get theirs when
played (the best value, fixed from then on), so the table is a list of codes and a parallel
list of values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from games.core.cards import CardStyle

JOKER = "J"
NUMBERS = tuple(range(1, 11))
STYLE = CardStyle(suits=(), numbers=NUMBERS, extra=(JOKER,),
                  extra_aliases={"joker": JOKER, "jokers": JOKER, "jk": JOKER, "🃏": JOKER})
COPIES = 4
JOKER_VALUE = 10  # a set of jokers only is a set of equal cards of 10 (ruling)

EQUAL = "equal"
RUN = "run"


def deck() -> list[str]:
    """The 40 number cards (four copies of 1-10) in a fixed order; jokers are not dealt."""
    return [str(n) for _ in range(COPIES) for n in NUMBERS]


@dataclass(frozen=True)
class SetValue:
    """A valid set: its kind ("equal" or "run") and the value of each card, in order."""

    kind: str
    values: tuple[int, ...]

    @cached_property
    def key(self) -> tuple[int, int, int]:
        """Strength: more cards, then equal over run, then higher numbers."""
        return (len(self.values), 1 if self.kind == EQUAL else 0, max(self.values))


def evaluate(cards: Sequence[str]) -> SetValue | None:
    """The strongest reading of adjacent cards as a set (see `_evaluate`), cached: the same
    few windows of a hand are read over and over."""
    return _evaluate(tuple(cards))


# The caches below are keyed by hands and windows of hands in their order, a domain far too
# large to fill: big caches grew by KB per finished match until full (issue 15). Small ones
# keep the reuse that matters (the same windows and hand within a turn and a match).
@lru_cache(maxsize=1 << 9)
def _evaluate(cards: tuple[str, ...]) -> SetValue | None:
    """The strongest reading of adjacent cards as a set, or None if they are not a set.

    Equal cards (jokers join them) come before a run of the same size; a run must go up or
    down by one in hand order (1-2-3 and 3-2-1, never 2-3-1); jokers alone are equal 10s.
    """
    k = len(cards)
    if k == 0:
        return None
    fixed = [(i, int(c)) for i, c in enumerate(cards) if c != JOKER]
    if not fixed:
        return SetValue(EQUAL, (JOKER_VALUE,) * k)
    first = fixed[0][1]
    if all(v == first for _, v in fixed):
        return SetValue(EQUAL, (first,) * k)
    for step in (1, -1):
        start = fixed[0][1] - step * fixed[0][0]
        if all(v == start + step * i for i, v in fixed):
            values = tuple(start + step * i for i in range(k))
            if min(values) >= 1 and max(values) <= 10:
                return SetValue(RUN, values)
    return None


def kind_of(values: Sequence[int]) -> str:
    """The kind of a table set from its fixed values (a single card counts as equal)."""
    return EQUAL if len(set(values)) == 1 else RUN


def is_set(values: Sequence[int]) -> bool:
    """Whether fixed values still form a set: all equal, or up or down by one throughout."""
    if len(values) <= 1 or len(set(values)) == 1:
        return True
    step = values[1] - values[0]
    return step in (1, -1) and all(b - a == step for a, b in zip(values, values[1:], strict=False))


def table_key(table_values: Sequence[int]) -> tuple[int, int, int]:
    """The strength of the table set ((0, 0, 0) for the empty table)."""
    if not table_values:
        return (0, 0, 0)
    return (len(table_values), 1 if kind_of(table_values) == EQUAL else 0, max(table_values))


def beats(new: SetValue, table_values: Sequence[int]) -> bool:
    """Whether `new` is stronger than the table set (the empty table loses to anything)."""
    return new.key > table_key(table_values)


def windows(hand: Sequence[str], named: Sequence[str]) -> list[int]:
    """Start positions of adjacent cards reading `named` (in hand order, or reversed)."""
    k = len(named)
    fwd, back = list(named), list(reversed(named))
    return [s for s in range(len(hand) - k + 1) if hand[s:s + k] in (fwd, back)]


def plays(hand: Sequence[str], table_values: Sequence[int]) -> tuple[tuple[int, int, SetValue], ...]:
    """Every (start, length, value) of adjacent cards that is a set beating the table."""
    return _plays(tuple(hand), tuple(table_values))


@lru_cache(maxsize=1 << 8)
def _plays(cards: tuple[str, ...], table_values: tuple[int, ...]) -> tuple[tuple[int, int, SetValue], ...]:
    out = []
    n = len(cards)
    least = table_key(table_values)
    for s in range(n):
        for e in range(s + 1, n + 1):
            value = _evaluate(cards[s:e])
            if value is None:
                break  # a longer window holds this one, so it is no set either
            if value.key > least:
                out.append((s, e - s, value))
    return tuple(out)


def draw_indices(table: Sequence[str], values: Sequence[int]) -> list[int]:
    """Table positions that may be drawn: not a joker, and the rest is still a set."""
    out = []
    for i, card in enumerate(table):
        if card == JOKER:
            continue
        rest = [*values[:i], *values[i + 1:]]
        if is_set(rest):
            out.append(i)
    return out


def drawable_numbers(table: Sequence[str], values: Sequence[int]) -> list[int]:
    return sorted({int(table[i]) for i in draw_indices(table, values)})


def stranded_jokers(table: Sequence[str], values: Sequence[int]) -> tuple[int, int]:
    """How many jokers to discard from the front and the back after a draw: when a run is
    left with a joker at both ends, those end jokers go (they could never be drawn)."""
    if len(table) < 2 or kind_of(values) != RUN or table[0] != JOKER or table[-1] != JOKER:
        return 0, 0
    front = next((i for i, c in enumerate(table) if c != JOKER), len(table))
    if front == len(table):
        return len(table), 0
    back = next(i for i, c in enumerate(reversed(table)) if c != JOKER)
    return front, back


def min_sets(hand: Sequence[str]) -> int:
    """The fewest adjacent sets the hand splits into (how many plays it needs at best)."""
    return _min_sets(tuple(hand))


@lru_cache(maxsize=1 << 8)
def _min_sets(hand: tuple[str, ...]) -> int:
    n = len(hand)
    best = [0] + [n + 1] * n
    for s in range(n):
        if best[s] > n:
            continue
        for e in range(s + 1, n + 1):
            if _evaluate(hand[s:e]) is None:
                break
            if best[s] + 1 < best[e]:
                best[e] = best[s] + 1
    return best[n]


def render_set(cards: Sequence[str], values: Sequence[int] | None = None) -> str:
    """"5-J-7", with the jokers' values when they differ from the plain code: "5-J(6)-7"."""
    if not cards:
        return "empty"
    parts = []
    for i, c in enumerate(cards):
        parts.append(f"J({values[i]})" if c == JOKER and values is not None else c)
    return "-".join(parts)


def hand_line(hand: Sequence[str]) -> str:
    """The hand with 1-based positions: "1:5 2:7 3:J"."""
    return " ".join(f"{i + 1}:{c}" for i, c in enumerate(hand)) or "(empty)"


def may_double(*, seat: int, stake: int, max_stake: int, last_doubler: int | None,
               crawford: bool) -> bool:
    """The doubling die: not in a Crawford bout, not past the cap, and never by the player
    who made the last accepted double."""
    return not crawford and stake * 2 <= max_stake and last_doubler != seat


def crawford_next(before: int, after: int, target: int) -> bool:
    """Whether the next bout is a Crawford bout: the winner just reached one short of the
    target (also by a doubled win) without reaching the target."""
    return before < target - 1 <= after < target
