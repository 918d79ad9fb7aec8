"""Single elimination: one loss and a player is out.

The bracket has the next power of two of slots, filled by standard seeding (1 v 8, 4 v 5,
2 v 7, 3 v 6, ...), so that the top seeds meet as late as possible; the slots past the last
entrant are byes, and so go to the top seeds. Winners meet winners until one is left; no
third-place match is played. A draw is refused: the host replays the match or awards it.
"""

from __future__ import annotations

from .base import FormatState, Pairing, Standing
from .bracket import Evaluation, Node, elimination_standings, first_round, knockout
from .common import BaseFormat


def single_nodes(count: int) -> list[Node]:
    return knockout(first_round(count, "R", ""), "R", "")


class SingleElimination(BaseFormat):
    name = "single"
    label = "single-elimination"

    def _round(self, state: FormatState) -> list[Pairing]:
        return Evaluation(single_nodes(len(state.entrants)), state).pairings(state.round + 1)

    def finished(self, state: FormatState) -> bool:
        nodes = single_nodes(len(state.entrants))
        return Evaluation(nodes, state).decided(nodes[-1].id)

    def champion(self, state: FormatState) -> str | None:
        """The winner once the final is decided (None if nobody was left to win it)."""
        nodes = single_nodes(len(state.entrants))
        return Evaluation(nodes, state).out.get(nodes[-1].id, (None, None))[0]

    def standings(self, state: FormatState) -> list[Standing]:
        nodes = single_nodes(len(state.entrants))
        return elimination_standings(nodes, state, nodes[-1].id)
