"""Single elimination: one loss and a player is out.

The bracket has the next power of two of slots, filled by standard seeding (1 v 8, 4 v 5,
2 v 7, 3 v 6, ...), so that the top seeds meet as late as possible; the slots past the last
entrant are byes, and so go to the top seeds. Winners meet winners until one is left; no
third-place match is played. A draw is refused: the host replays the match or awards it.
"""

from __future__ import annotations

from .bracket import BracketFormat, Node, first_round, knockout


def single_nodes(count: int) -> list[Node]:
    return knockout(first_round(count, "R", ""), "R", "")


class SingleElimination(BracketFormat):
    name = "single"
    label = "single-elimination"

    def nodes(self, count: int) -> list[Node]:
        return single_nodes(count)
