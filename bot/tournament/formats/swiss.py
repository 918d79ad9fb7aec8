"""Swiss: a set number of rounds; each round pairs players with the same points.

Each round is paired by the principles of FIDE's Dutch system (`dutch`: no rematch, no
second bye, the absolute colour rule, as few floats as possible from the top group down,
colour preferences, then one written order for ties); the seats follow FIDE's colour
rules (`seats`).

Points: win 1, draw 0.5, bye 1, loss 0. Ties are broken by Buchholz, then
Sonneborn-Berger, then head-to-head, then seed (see `table`). A player who withdraws loses
their unplayed match by walkover and is not paired again. The default number of rounds is
the one that can leave a single unbeaten player: ceil(log2(players)).
"""

from __future__ import annotations

import math

from .base import FormatError, FormatState, Pairing, Standing
from .common import BaseFormat
from .dutch import pair_round
from .seats import first_seat, histories
from .table import buchholz, points_table, sonneborn_berger, tally

BYE_POINTS = 1.0


def max_rounds(count: int) -> int:
    """The most rounds that can be paired without a rematch among `count` players."""
    return count - 1 if count % 2 == 0 else count


def default_rounds(count: int) -> int:
    return max(1, math.ceil(math.log2(count)))


def met_before(state: FormatState) -> tuple[set[frozenset[str]], set[str]]:
    """The pairs of places that have met (walkovers included) and the places that had a bye."""
    cur = state.current
    met: set[frozenset[str]] = set()
    byes: set[str] = set()
    for p in state.pairings:
        if p.player1 is None:
            byes.add(cur(p.player0))
        else:
            met.add(frozenset((cur(p.player0), cur(p.player1))))
    return met, byes


class Swiss(BaseFormat):
    name = "swiss"
    label = "Swiss"
    allows_draws = True

    def _check_rounds(self, count: int, rounds: int | None) -> int:
        if rounds is None:
            return default_rounds(count)
        most = max_rounds(count)
        if not 1 <= rounds <= most:
            raise FormatError(
                f"A Swiss of {count} players can have 1 to {most} rounds without rematches, "
                f"not {rounds}; choose a number in that range (or round robin, to meet everyone)."
            )
        return rounds

    def finished(self, state: FormatState) -> bool:
        return not state.pending() and (state.round >= state.rounds or len(state.active()) < 2)

    def standings(self, state: FormatState) -> list[Standing]:
        return points_table(state, BYE_POINTS, [buchholz, sonneborn_berger])

    def _round(self, state: FormatState) -> list[Pairing]:
        if state.round >= state.rounds:
            return []
        lines = tally(state, BYE_POINTS)
        active = state.active()
        if len(active) < 2:
            return []
        order = {name: i for i, name in enumerate(state.entrants)}
        ranked = sorted(active, key=lambda n: (-lines[n].points, order[n]))
        met, byes = met_before(state)
        matched = pair_round(ranked, [lines[n].points for n in ranked], met, byes,
                             histories(state), first_seat(state.seed))
        number = state.round + 1
        return [
            Pairing(id=f"r{number}m{i + 1}", round=number, player0=a, player1=b)
            for i, (a, b) in enumerate(matched)
        ]
