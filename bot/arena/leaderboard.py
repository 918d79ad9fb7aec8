"""The arena's leaderboard, the same whatever order the matches were played in.

The rule (docs/arena.md, Scoring): a disqualified bot leaves the tournament. Every match it
played or would have played is void for every opponent, so no bot gains from meeting it
early or loses from meeting it late; it is listed apart, with the reason and the match.
The remaining bots are ranked by total points, raw game points summed over every counted
match (the ruling), then by games won per match played, then by name, with matches W-D-L,
head-to-head and an openskill (Plackett-Luce) rating. The two orders differ only when the
bots played different numbers of matches (a stopped run).

The rating is the one figure that depends on an order of matches: it is computed over the
counted matches taken in a canonical order (deal by deal, and within a deal by the bots'
names), never the schedule's, at most RATED_PER_PAIR matches of each pair (the first deals:
openskill's estimate is settled long before, and each update costs about 20 microseconds).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

POINTS = 10
RATED_PER_PAIR = 200


@cache
def model() -> Any:
    """The openskill model, imported when first rated (not while a tournament starts)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


@dataclass
class Standing:
    bot: int
    name: str
    points: int = 0
    matches: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    head_to_head: dict[int, int] = field(default_factory=dict)  # opponent -> points won
    mu: float = field(default_factory=lambda: model().mu)
    sigma: float = field(default_factory=lambda: model().sigma)

    @property
    def games_per_match(self) -> float:
        """Games won per match played (of POINTS)."""
        return self.points / self.matches if self.matches else 0.0

    @property
    def games_won_pct(self) -> float:
        return 100.0 * self.games_per_match / POINTS

    @property
    def rating(self) -> float:
        """openskill's conservative estimate, mu - 3 sigma."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Departure:
    """A disqualified bot: the match (1-based number and opponent) and why."""

    bot: int
    name: str
    match: int
    opponent: str
    reason: str

    def __str__(self) -> str:
        return f"match {self.match} against {self.opponent}: {self.reason}"


@dataclass
class Leaderboard:
    table: list[Standing]  # the bots still in, ranked
    departed: list[Departure]  # the disqualified bots, by name


def build(names: Sequence[str], tallies: Iterable[tuple[int, int, int, int]],
          rated: Iterable[tuple[int, int, int, int]],
          departed: Iterable[tuple[int, int, int, str]]) -> Leaderboard:
    """The leaderboard of a tournament.

    tallies: (bot in seat 0, bot in seat 1, seat 0's score, number of such counted matches);
    rated: (deal, bot in seat 0, bot in seat 1, seat 0's score) of the counted matches to
    rate, in any order; departed: (bot, match number from 0, opponent, reason). Matches of
    a departed bot must not be among the counted ones (the caller voids them).
    """
    departures = list(departed)
    out = {b for b, _, _, _ in departures}
    table = {i: Standing(i, n) for i, n in enumerate(names) if i not in out}
    for a, b, s0, n in tallies:
        for me, other, mine in ((a, b, s0), (b, a, POINTS - s0)):
            st = table[me]
            st.points += mine * n
            st.matches += n
            st.head_to_head[other] = st.head_to_head.get(other, 0) + mine * n
            if 2 * mine > POINTS:
                st.won += n
            elif 2 * mine == POINTS:
                st.drawn += n
            else:
                st.lost += n
    _rate(table, names, rated)
    ranked = sorted(table.values(), key=lambda s: (-s.points, -s.games_per_match, s.name))
    gone = sorted((Departure(b, names[b], m + 1, names[o], reason)
                   for b, m, o, reason in departures), key=lambda d: d.name)
    return Leaderboard(ranked, gone)


def _rate(table: dict[int, Standing], names: Sequence[str],
          rated: Iterable[tuple[int, int, int, int]]) -> None:
    """openskill ratings over the rated matches in canonical order: by deal, then by the
    pair's names, then by who sat first. A match's winner is the bot with more games."""
    order = sorted(rated, key=lambda r: (r[0], *sorted((names[r[1]], names[r[2]])),
                                         names[r[1]]))
    rating = model()
    ratings = {b: rating.rating(name=s.name) for b, s in table.items()}
    for _, a, b, s0 in order:
        ranks = [0, 0] if 2 * s0 == POINTS else ([0, 1] if 2 * s0 > POINTS else [1, 0])
        [[ratings[a]], [ratings[b]]] = rating.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
    for b, r in ratings.items():
        table[b].mu, table[b].sigma = r.mu, r.sigma
