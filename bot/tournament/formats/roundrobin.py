"""Round robin: every player meets every other once.

Rounds and seats follow FIDE's Berger tables (`berger`), so that n players need n - 1
rounds (n rounds when n is odd: a place with no opponent, the bye, goes round the table and
every player sits out one round, for no points), and every player has seat 0 (the
advantage) in half their matches, give or take one. A win is 1 point, a draw 0.5; ties are broken by Sonneborn-Berger,
then head-to-head, then seed (see `table`). A player who withdraws loses each match they
had not played yet, by walkover.
"""

from __future__ import annotations

from .base import FormatState, Pairing, Standing
from .common import BaseFormat
from .table import points_table, sonneborn_berger


def berger(count: int) -> list[list[tuple[int, int | None]]]:
    """Every round's pairs of seed indices (0-based) as (seat 0, seat 1), by FIDE's Berger
    tables; (player, None) is the bye. Odd counts get a last place whose opponent sits out.

    Round 1, board b: number b v number N - b + 1 (N places, numbered from 1). Each later
    round lists numbers 1 to N - 1 in the previous round's board order (seat 0 before
    seat 1); N meets the last of that list, taking seat 0 in every even round, and the
    rest pair from the end of the list: the last but one takes seat 0 against the last."""
    size = count + count % 2
    boards = [(b, size - b + 1) for b in range(1, size // 2 + 1)]
    rounds = [boards]
    for r in range(2, size):
        order = [x for board in rounds[-1] for x in board if x != size]
        last = order.pop()
        made = [(size, last) if r % 2 == 0 else (last, size)]
        while order:
            b, a = order.pop(), order.pop()
            made.append((a, b))
        rounds.append(made)
    out = []
    for boards in rounds:
        pairs: list[tuple[int, int | None]] = []
        bye: list[tuple[int, int | None]] = []
        for a, b in boards:
            if count % 2 and size in (a, b):
                bye.append((b - 1 if a == size else a - 1, None))
            else:
                pairs.append((a - 1, b - 1))
        out.append(pairs + bye)
    return out


class RoundRobin(BaseFormat):
    name = "roundrobin"
    label = "round-robin"
    allows_draws = True

    def _round(self, state: FormatState) -> list[Pairing]:
        schedule = berger(len(state.entrants))
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
        return state.round >= len(berger(len(state.entrants))) and not state.pending()

    def standings(self, state: FormatState) -> list[Standing]:
        return points_table(state, 0.0, [sonneborn_berger])
