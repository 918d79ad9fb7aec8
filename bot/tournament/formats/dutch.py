"""One Swiss round paired by the principles of FIDE's Dutch system (C.04.3).

The players come ranked as the Dutch system ranks them: points, then pairing number (the
seed). A *score group* is the players on the same points. The round is chosen as a whole,
as a maximum-weight matching (networkx, exact integer weights), so it never gets stuck;
each rule below outweighs all the ones after it taken together (weights in tiers):

1. no rematch (two players meet again only when no pairing of the round avoids it);
2. no second bye (likewise: only when it is the only way left);
3. FIDE's absolute colour rule: two players who both must take the same seat are not
   paired (see `seats`);
4. as few players as possible float out of each score group, the top group first (a
   player floating down past a group floats out of it too), so that two leaders who have
   not met play each other; with an odd count, the bye is a float out of the lowest group;
5. as few colour preferences as possible left unmet, then as few strong ones;
6. ties between pairings equal on all of the above are broken by one written order,
   never by the matching library's: the best-ranked player gets the opponent that comes
   first in their order, then the next best-ranked, and so on. A player's order follows the
   Dutch system's split of their score group into a top half (S1) and a bottom half (S2):
   first the player as many places below them as the half's size (1 v n/2+1), then the
   other players of the opposite half by distance from that place, then the players of
   their own half; then the players of the nearest lower groups, best-ranked first; the
   bye last. A group's players already paired with players floating in from above (the
   best-ranked of the group, as the Dutch system pairs them) are left out of the split.

Seats are then given by `seats.allocate`. The pairings come in board order: by the
better-ranked player of each, the bye last.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from . import seats

BYE = -1


def pair_round(
    ranked: Sequence[str],
    points: Sequence[float],
    met: set[frozenset[str]],
    had_bye: set[str],
    history: dict[str, str],
    first: int,
) -> list[tuple[str, str | None]]:
    """The round's pairings as (seat 0, seat 1), or (player, None) for the bye."""
    n = len(ranked)
    if n < 2:
        return [(ranked[0], None)] if n else []
    groups = sorted(set(points), reverse=True)
    group = [groups.index(p) for p in points]
    matching = _match(ranked, group, len(groups), met, had_bye, history, None)
    absorbed = _absorbed(matching, group)
    if absorbed:  # the splits change: the tie-break order is made again without them
        matching = _match(ranked, group, len(groups), met, had_bye, history, absorbed)
    pairs: list[tuple[int, int | None]] = sorted(
        (min(u, v), max(u, v)) if BYE not in (u, v) else (max(u, v), None)
        for u, v in matching
    )
    pairs.sort(key=lambda ab: (ab[1] is None, ab[0]))
    out: list[tuple[str, str | None]] = []
    for a, b in pairs:
        if b is None:
            out.append((ranked[a], None))
        else:
            out.append(seats.allocate(ranked[a], ranked[b], history, a + 1, first))
    return out


def _absorbed(matching: set[tuple[int, int]], group: list[int]) -> dict[int, int]:
    """How many of each group's players are paired with players floating in from above."""
    count: dict[int, int] = {}
    for u, v in matching:
        if BYE in (u, v):
            continue
        low = max(u, v, key=lambda x: (group[x], x))
        high = u if low == v else v
        if group[high] < group[low]:
            count[group[low]] = count.get(group[low], 0) + 1
    return count


def _orders(group: list[int], absorbed: dict[int, int] | None) -> list[dict[int, int]]:
    """Each player's order of preference (rule 6): opponent index -> place (0 first)."""
    n = len(group)
    members: dict[int, list[int]] = {}
    for i, g in enumerate(group):
        members.setdefault(g, []).append(i)
    position: dict[int, tuple[int, int]] = {}  # player -> (place in the split, split size)
    for g, players in members.items():
        skip = (absorbed or {}).get(g, 0)
        rest = players[skip:]
        for k, i in enumerate(rest):
            position[i] = (k, len(rest))
        for i in players[:skip]:
            position[i] = (-1, 0)
    orders = []
    for i in range(n):
        a, size = position[i]
        half = size // 2

        def key(j: int, a: int = a, half: int = half, i: int = i) -> tuple[int, ...]:
            if group[j] == group[i]:
                b, _ = position[j]
                if a < 0 or b < 0:
                    return (1, 0, 0, j)
                opposite = (a < half) != (b < half)
                return (0, 0 if opposite else 1, abs(abs(b - a) - half), j)
            return (2, abs(group[j] - group[i]), 0, j)
        others = sorted((j for j in range(n) if j != i), key=key)
        orders.append({j: place for place, j in enumerate(others)})
    return orders


def _match(
    ranked: Sequence[str],
    group: list[int],
    group_count: int,
    met: set[frozenset[str]],
    had_bye: set[str],
    history: dict[str, str],
    absorbed: dict[int, int] | None,
) -> set[tuple[int, int]]:
    n = len(ranked)
    edges = n // 2 + 1  # the most edges a matching holds (the bye's included)
    base = n + 2  # rule 6: one player's place outweighs all later players' together
    orders = _orders(group, absorbed)
    tie_room = base ** (n + 1)
    k_strong = tie_room
    k_pref = k_strong * (edges + 1)
    k_float = k_pref * (edges + 1)
    float_base = edges + 1  # one float out of a group outweighs any number below it
    float_room = edges * float_base ** (group_count + 1) + 1
    k_colour = k_float * float_room
    k_bye = k_colour * (edges + 1)
    k_rematch = k_bye * 2
    top = k_rematch * (edges + 1)

    def floats(g_from: int, g_to: int) -> int:
        return sum(float_base ** (group_count - 1 - k) for k in range(g_from, g_to))

    def tie(i: int, place: int) -> int:
        return (n + 1 - place) * base ** (n - 1 - i)

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            a, b = ranked[i], ranked[j]
            same, strong = seats.preference_clash(a, b, history)
            cost = (
                k_rematch * (frozenset((a, b)) in met)
                + k_colour * seats.absolute_clash(a, b, history)
                + k_float * floats(group[i], group[j])
                + k_pref * same
                + k_strong * strong
            )
            graph.add_edge(i, j, weight=top - cost + tie(i, orders[i][j]))
    if n % 2:
        for i in range(n):
            cost = k_bye * (ranked[i] in had_bye) + k_float * floats(group[i], group_count)
            graph.add_edge(i, BYE, weight=top - cost + tie(i, n))
    return set(nx.max_weight_matching(graph, maxcardinality=True))
