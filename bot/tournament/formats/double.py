"""Double elimination: a player is out after two losses.

The winners' bracket is a single-elimination bracket (standard seeding, byes to the top
seeds). Its losers drop into the losers' bracket, which alternates two kinds of round: its
survivors meet each other, then they meet the players just dropped from the next round of
the winners' bracket (in reverse order every other time, so that early opponents do not meet
again at once). The winners' champion meets the losers' champion in one grand final, and its
winner is the champion: **no bracket reset** is played, so the winners' champion can leave
with one loss (the event's length is then known when it starts).

A round holds every match whose players are known once the previous round is over, so
winners' and losers' matches share rounds.
"""

from __future__ import annotations

from .bracket import BracketFormat, Node, Source, first_round, knockout

FINAL = "GF"


def double_nodes(count: int) -> list[Node]:
    winners = knockout(first_round(count, "W", "winners"), "W", "winners")
    levels: dict[int, list[Node]] = {}
    for node in winners:
        levels.setdefault(node.stage, []).append(node)
    losers: list[Node] = []
    survivors: list[Source] = [("loser", n.id) for n in levels[1]]
    stage = 0
    for j in range(2, max(levels) + 1):
        stage += 1
        level = [
            Node(f"L{stage}-{i + 1}", "losers", stage, survivors[2 * i], survivors[2 * i + 1])
            for i in range(len(survivors) // 2)
        ]
        losers.extend(level)
        drops: list[Source] = [("loser", n.id) for n in levels[j]]
        if j % 2 == 0:
            drops.reverse()
        stage += 1
        level = [
            Node(f"L{stage}-{i + 1}", "losers", stage, ("winner", node.id), drops[i])
            for i, node in enumerate(level)
        ]
        losers.extend(level)
        survivors = [("winner", n.id) for n in level]
    final = Node(FINAL, "final", 1, ("winner", winners[-1].id), survivors[0])
    return [*winners, *losers, final]


class DoubleElimination(BracketFormat):
    name = "double"
    label = "double-elimination"
    final = FINAL

    def nodes(self, count: int) -> list[Node]:
        return double_nodes(count)
