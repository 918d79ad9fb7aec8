"""Round robin: every player meets every other once.

Rounds follow the circle method: the first seed stays in place and the others turn one
step round the table each round, so that n players need n - 1 rounds (n rounds when n is
odd: a place with no opponent, the bye, goes round the table and every player sits out one
round, for no points). A win is 1 point, a draw 0.5; ties are broken by Sonneborn-Berger,
then head-to-head, then seed (see `table`). A player who withdraws loses each match they
had not played yet, by walkover.
"""

from __future__ import annotations

from .base import FormatState, Pairing, Standing
from .common import BaseFormat
from .table import points_table, sonneborn_berger


def circle(count: int) -> list[list[tuple[int, int | None]]]:
    """Every round's pairs of seed indices (0-based, the lower first); None is the bye."""
    slots: list[int | None] = list(range(count)) + ([None] if count % 2 else [])
    size = len(slots)
    rounds = []
    for _ in range(size - 1):
        pairs: list[tuple[int, int | None]] = []
        for i in range(size // 2):
            a, b = slots[i], slots[size - 1 - i]
            if a is None:
                a, b = b, a
            assert a is not None
            pairs.append((a, b) if b is None or a < b else (b, a))
        rounds.append(sorted(pairs, key=lambda p: (p[1] is None, p[0])))
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return rounds


class RoundRobin(BaseFormat):
    name = "roundrobin"
    label = "round-robin"
    allows_draws = True

    def _round(self, state: FormatState) -> list[Pairing]:
        schedule = circle(len(state.entrants))
        if state.round >= len(schedule):
            return []
        number = state.round + 1
        names = state.entrants
        return [
            Pairing(
                id=f"r{number}m{i + 1}",
                round=number,
                player0=names[a],
                player1=names[b] if b is not None else None,
            )
            for i, (a, b) in enumerate(schedule[state.round])
        ]

    def finished(self, state: FormatState) -> bool:
        return state.round >= len(circle(len(state.entrants))) and not state.pending()

    def standings(self, state: FormatState) -> list[Standing]:
        return points_table(state, 0.0, [sonneborn_berger])
