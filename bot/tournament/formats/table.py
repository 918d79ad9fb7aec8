"""Points tables for the formats that play for points (round robin, Swiss).

A win is 1 point, a draw 0.5, a loss 0; a walkover counts as a win and a loss. A pairing
that nobody could play (both players withdrawn) gives nobody anything. What a bye is
worth is the format's choice (`bye_points`). Results count for the place, so a substitute
carries on their predecessor's record.

Tie-breaks, as applied:
- Buchholz: the sum of the points of every opponent met (byes add nothing);
- Sonneborn-Berger: the points of every opponent beaten, plus half those of every opponent
  drawn;
- head-to-head: among players level on everything before it, the points each scored
  against the others of that group;
- seed: the better seed (the earlier entrant) first, so no two places are ever level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .base import FormatState, Standing


@dataclass
class Line:
    points: float = 0.0
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    games: list[tuple[str, float]] = field(default_factory=list)  # (opponent, my score)


def tally(state: FormatState, bye_points: float) -> dict[str, Line]:
    """Each place's record, keyed by its current name."""
    cur = state.current
    lines = {name: Line() for name in state.entrants}
    for p in state.pairings:
        result = state.results.get(p.id)
        if result is None:
            continue
        p0 = cur(p.player0)
        if p.player1 is None:
            lines[p0].byes += 1
            lines[p0].points += bye_points
            continue
        p1 = cur(p.player1)
        winner = cur(result.winner) if result.winner is not None else None
        for me, other in ((p0, p1), (p1, p0)):
            line = lines[me]
            line.played += 1
            if winner == me:
                score, line.wins = 1.0, line.wins + 1
            elif winner is None and not result.walkover:
                score, line.draws = 0.5, line.draws + 1
            else:
                score, line.losses = 0.0, line.losses + 1
            line.points += score
            if not (winner is None and result.walkover):
                line.games.append((other, score))
    return lines


def buchholz(lines: dict[str, Line], name: str) -> float:
    return sum(lines[o].points for o, _ in lines[name].games)


def sonneborn_berger(lines: dict[str, Line], name: str) -> float:
    return sum(lines[o].points * s for o, s in lines[name].games)


def head_to_head(lines: dict[str, Line], name: str, group: set[str]) -> float:
    return sum(s for o, s in lines[name].games if o in group and o != name)


TieBreak = Callable[[dict[str, Line], str], float]


def points_table(
    state: FormatState, bye_points: float, tiebreaks: list[TieBreak]
) -> list[Standing]:
    """The standings: points, then `tiebreaks` in order, then head-to-head, then seed."""
    lines = tally(state, bye_points)
    before = {n: (lines[n].points, *(tb(lines, n) for tb in tiebreaks)) for n in state.entrants}
    groups: dict[tuple[float, ...], set[str]] = {}
    for name, key in before.items():
        groups.setdefault(key, set()).add(name)
    full = {n: (*before[n], head_to_head(lines, n, groups[before[n]])) for n in state.entrants}
    order = sorted(
        state.entrants, key=lambda n: (tuple(-x for x in full[n]), state.entrants.index(n))
    )
    return [
        Standing(
            rank=i + 1,
            player=n,
            points=lines[n].points,
            played=lines[n].played,
            wins=lines[n].wins,
            draws=lines[n].draws,
            losses=lines[n].losses,
            tiebreaks=full[n][1:],
            out=n in state.withdrawn,
        )
        for i, n in enumerate(order)
    ]
