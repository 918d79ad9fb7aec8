"""Elimination brackets as a fixed graph of matches, shared by single and double elimination.

A bracket is a list of nodes in playing order; each node takes its two players from a
seed slot or from the winner or loser of an earlier node. The graph depends only on the
number of entrants, so it is rebuilt from the stored state rather than stored: the state
keeps only the pairings made and their results.

A slot is empty when its seed does not exist (a bye), when the node it comes from had
nobody to send, or when its player has withdrawn. A node with one player is a bye; a
node with none sends nobody on, at once and without a pairing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import FormatState, Pairing, Standing
from .common import BaseFormat
from .seats import allocate, first_seat, histories

Source = tuple[str, int | str]  # ("seed", 0-based index) | ("winner" | "loser", node id)
UNKNOWN = object()  # a slot whose player is not known yet


@dataclass(frozen=True)
class Node:
    id: str
    bracket: str  # "" (single), "winners", "losers", "final"
    stage: int  # the node's column in a drawing of its bracket (1-based)
    a: Source
    b: Source


def seed_order(size: int) -> list[int]:
    """Standard seeding for a bracket of `size` (a power of two): 1 v 8, 4 v 5, 2 v 7, 3 v 6."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for s in order for x in (s, total - s)]
    return order


def bracket_size(count: int) -> int:
    size = 1
    while size < count:
        size *= 2
    return size


def first_round(count: int, prefix: str, bracket: str) -> list[Node]:
    """Round 1: the best seed of each pair is player0; seeds past `count` are byes."""
    order = seed_order(bracket_size(count))
    return [
        Node(
            f"{prefix}1-{i + 1}",
            bracket,
            1,
            ("seed", order[2 * i] - 1),
            ("seed", order[2 * i + 1] - 1),
        )
        for i in range(len(order) // 2)
    ]


def knockout(first: list[Node], prefix: str, bracket: str) -> list[Node]:
    """Winners meet winners, round after round, until one is left."""
    nodes = list(first)
    level = first
    stage = 1
    while len(level) > 1:
        stage += 1
        level = [
            Node(
                f"{prefix}{stage}-{i + 1}",
                bracket,
                stage,
                ("winner", level[2 * i].id),
                ("winner", level[2 * i + 1].id),
            )
            for i in range(len(level) // 2)
        ]
        nodes.extend(level)
    return nodes


class Evaluation:
    """What the stored results say about every node of a bracket."""

    def __init__(self, nodes: list[Node], state: FormatState) -> None:
        self.nodes = nodes
        self.state = state
        made = {p.id: p for p in state.pairings}
        self.slots: dict[str, tuple[object, object]] = {}  # every node's inputs, or UNKNOWN
        self.players: dict[str, tuple[str | None, str | None]] = {}  # resolved inputs
        self.out: dict[str, tuple[str | None, str | None]] = {}  # (winner, loser) once decided
        self.ready: list[Node] = []  # both inputs known, no pairing yet
        for node in nodes:
            a, b = self._slot(node.a), self._slot(node.b)
            self.slots[node.id] = (a, b)
            if a is UNKNOWN or b is UNKNOWN:
                continue
            self.players[node.id] = (a, b)  # type: ignore[assignment]  # (neither is UNKNOWN)
            if node.id in made:
                result = state.results.get(node.id)
                if result is not None:
                    self.out[node.id] = self._outcome(made[node.id], result.winner)
            elif a is None and b is None:
                self.out[node.id] = (None, None)
            else:
                self.ready.append(node)

    def _slot(self, source: Source) -> object:
        kind, ref = source
        if kind == "seed":
            assert isinstance(ref, int)
            name = self.state.entrants[ref] if ref < len(self.state.entrants) else None
        elif ref in self.out:
            name = self.out[ref][0 if kind == "winner" else 1]
        else:
            return UNKNOWN
        return None if name is None or name in self.state.withdrawn else name

    def _outcome(self, p: Pairing, winner: str | None) -> tuple[str | None, str | None]:
        cur = self.state.current
        p0 = cur(p.player0)
        p1 = cur(p.player1) if p.player1 is not None else None
        if winner is None:
            return None, None
        w = cur(winner)
        return w, (p1 if w == p0 else p0)

    def pairings(self, round_no: int) -> list[Pairing]:
        """The ready nodes as pairings: a bye's only player is player0; two players get
        their seats by the colour rules of `seats` (the better seed ranked first)."""
        made = []
        history = histories(self.state)
        first = first_seat(self.state.seed)
        seed = {name: i for i, name in enumerate(self.state.entrants)}
        for node in self.ready:
            a, b = self.players[node.id]
            if a is None:
                a, b = b, a
            assert a is not None
            if b is not None:
                better, other = sorted((a, b), key=lambda n: seed[n])
                a, b = allocate(better, other, history, seed[better] + 1, first)
            made.append(
                Pairing(id=node.id, round=round_no, player0=a, player1=b, bracket=node.bracket)
            )
        return made

    def decided(self, node_id: str) -> bool:
        return node_id in self.out


def elimination_standings(nodes: list[Node], state: FormatState, final: str) -> list[Standing]:
    """Players still in first (the champion alone at the top once the final is decided),
    then the others by the round of their last match, later rounds higher; players out in
    the same round share a rank. Points are wins (walkovers won included, byes not)."""
    ev = Evaluation(nodes, state)
    alive: set[str] = set()
    for node in nodes:
        if node.id not in ev.out:
            alive.update(n for n in ev.slots[node.id] if isinstance(n, str))
    champion = ev.out.get(final, (None, None))[0]
    cur = state.current
    wins = dict.fromkeys(state.entrants, 0)
    losses = dict.fromkeys(state.entrants, 0)
    last = dict.fromkeys(state.entrants, 0)
    for p in state.pairings:
        names = [cur(p.player0)] + ([cur(p.player1)] if p.player1 is not None else [])
        for n in names:
            last[n] = max(last[n], p.round)
        result = state.results.get(p.id)
        if result is None or p.player1 is None:
            continue
        for n in names:
            if result.winner is not None and cur(result.winner) == n:
                wins[n] += 1
            else:
                losses[n] += 1

    def key(name: str) -> tuple[int, int]:
        if name == champion:
            return (2, 0)
        if name in alive and name not in state.withdrawn:
            return (1, 0)
        return (0, last[name])

    order = sorted(state.entrants, key=lambda n: (key(n), -state.entrants.index(n)), reverse=True)
    table: list[Standing] = []
    for i, name in enumerate(order):
        rank = table[-1].rank if table and key(order[i - 1]) == key(name) else i + 1
        table.append(
            Standing(
                rank=rank,
                player=name,
                points=float(wins[name]),
                played=wins[name] + losses[name],
                wins=wins[name],
                draws=0,
                losses=losses[name],
                out=key(name)[0] == 0,
            )
        )
    return table


class BracketFormat(BaseFormat):
    """An elimination format: its graph of nodes (`nodes`) and its last node (`final`)."""

    final = ""

    def nodes(self, count: int) -> list[Node]:
        raise NotImplementedError

    def _evaluate(self, state: FormatState) -> Evaluation:
        return Evaluation(self.nodes(len(state.entrants)), state)

    def _round(self, state: FormatState) -> list[Pairing]:
        return self._evaluate(state).pairings(state.round + 1)

    def finished(self, state: FormatState) -> bool:
        return self._evaluate(state).decided(self._final(state))

    def champion(self, state: FormatState) -> str | None:
        """The final's winner (None before it, or if nobody was left to play it)."""
        return self._evaluate(state).out.get(self._final(state), (None, None))[0]

    def standings(self, state: FormatState) -> list[Standing]:
        return elimination_standings(self.nodes(len(state.entrants)), state, self._final(state))

    def _final(self, state: FormatState) -> str:
        return self.final or self.nodes(len(state.entrants))[-1].id
