"""Swiss: a set number of rounds; each round pairs players with the same points.

Pairing, as applied, in order of priority:
1. no rematch: two players meet again only when no pairing of the round avoids it, and
   a player gets a second bye only when that is the only way to avoid a rematch;
2. with an odd count, one bye: to the lowest-ranked player who has not had one;
3. players with equal points meet (as few and as small point gaps as possible);
4. within that, neighbours in the standings meet (1 v 2, 3 v 4: the Monrad way).
The whole round is chosen at once as a maximum-weight perfect matching (networkx), with
weights in tiers so that each priority outweighs all the ones after it, so the pairing is
never stuck and always the same for the same table.

Points: win 1, draw 0.5, bye 1, loss 0. Ties are broken by Buchholz, then
Sonneborn-Berger, then head-to-head, then seed (see `table`). A player who withdraws loses
their unplayed match by walkover and is not paired again. The default number of rounds is
the one that can leave a single unbeaten player: ceil(log2(players)).
"""

from __future__ import annotations

import math

import networkx as nx

from .base import FormatError, FormatState, Pairing, Standing
from .common import BaseFormat
from .table import buchholz, points_table, sonneborn_berger

BYE = -1


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
        return points_table(state, 1.0, [buchholz, sonneborn_berger])

    def _round(self, state: FormatState) -> list[Pairing]:
        if state.round >= state.rounds:
            return []
        table = [s for s in self.standings(state) if not s.out]
        if len(table) < 2:
            return []
        matched = pair(
            [s.player for s in table], [s.points for s in table], *met_before(state), state.rounds
        )
        number = state.round + 1
        return [
            Pairing(id=f"r{number}m{i + 1}", round=number, player0=a, player1=b)
            for i, (a, b) in enumerate(matched)
        ]


def pair(
    ranked: list[str],
    points: list[float],
    met: set[frozenset[str]],
    had_bye: set[str],
    rounds: int,
) -> list[tuple[str, str | None]]:
    """Pair `ranked` (best first) by the priorities in the module's docstring.

    Weights in tiers (all integers, so the matching is exact): a rank gap and a point gap
    cost less than anything in the tier above can add up to over a whole round.
    """
    n = len(ranked)
    edges = n // 2 + 1
    gap_room = 4 * rounds * rounds + 1  # (2 * point gap)^2 never reaches it
    near_max = gap_room * (n + 1) + n
    bye_tier = edges * near_max + 1
    fresh_tier = 2 * (bye_tier * (n + 1) + edges * near_max + 1)

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            gap = round(2 * abs(points[i] - points[j])) ** 2
            near = (gap_room - gap) * (n + 1) + (n - (j - i))
            fresh = frozenset((ranked[i], ranked[j])) not in met
            graph.add_edge(i, j, weight=fresh_tier * fresh + near)
    if n % 2:
        for i in range(n):
            fresh = fresh_tier if ranked[i] not in had_bye else fresh_tier // 2
            graph.add_edge(i, BYE, weight=fresh + bye_tier * (i + 1))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs: list[tuple[str, str | None]] = []
    for u, v in matching:
        if BYE in (u, v):
            continue
        a, b = sorted((u, v))
        pairs.append((ranked[a], ranked[b]))
    pairs.sort(key=lambda ab: ranked.index(ab[0]))
    for u, v in matching:
        if BYE in (u, v):
            pairs.append((ranked[max(u, v)], None))
    return pairs
