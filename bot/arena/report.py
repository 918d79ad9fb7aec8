"""Totals, the leaderboard and head-to-head table, and the JSON record of a tournament."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.arena.loader import BotSpec
from bot.arena.tournament import POINTS, Results


@dataclass
class Standing:
    bot: int
    name: str
    points: int = 0
    matches: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    disqualified: str = ""  # why, with the match number
    head_to_head: dict[int, int] = field(default_factory=dict)  # opponent -> points won

    @property
    def games_won_pct(self) -> float:
        return 100.0 * self.points / (POINTS * self.matches) if self.matches else 0.0


def standings(specs: list[BotSpec], results: Results) -> list[Standing]:
    """Totals per bot, ranked by points (then fewer matches, then name)."""
    table = [Standing(i, s.name) for i, s in enumerate(specs)]
    for a, b, s0, n in results.tallies():
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
    for bot, (m, reason) in results.disqualified.items():
        table[bot].disqualified = f"match {m + 1}: {reason}"
    return sorted(table, key=lambda s: (-s.points, s.matches, s.name))


def leaderboard_text(specs: list[BotSpec], results: Results, *, seed: int,
                     rounds: int, jobs: int, seconds: float) -> str:
    table = standings(specs, results)
    width = max(8, *(len(s.name) for s in table))
    lines = [f"RPS Poker arena: {len(specs)} bots, {rounds} round-robin cycles, "
             f"{len(results)} matches counted, seed {seed}, {jobs} job(s), {seconds:.2f} s"]
    if results.interrupted:
        lines.append(f"Interrupted (Ctrl-C): the table so far, {len(results)} of "
                     f"{results.schedule.matches} matches.")
    lines += ["",
             f"{'rank':>4}  {'bot':<{width}}  {'points':>8}  {'games won':>9}  "
             f"{'matches W-D-L':>15}",
             ]
    for rank, s in enumerate(table, 1):
        wdl = f"{s.won}-{s.drawn}-{s.lost}"
        lines.append(f"{rank:>3}.  {s.name:<{width}}  {s.points:>8}  "
                     f"{s.games_won_pct:>8.1f}%  {wdl:>15}")
    dq = [s for s in table if s.disqualified]
    if dq:
        lines += ["", "Disqualified:"]
        lines += [f"  {s.name}: {s.disqualified}" for s in dq]
    if len(specs) > 1:
        order = [s.bot for s in table]
        short = [f"#{r}" for r in range(1, len(order) + 1)]
        lines += ["", "Head to head (points of the row's bot against the column's bot):",
                  f"{'':>{width + 5}}" + "".join(f"{c:>8}" for c in short)]
        by_bot = {s.bot: s for s in table}
        for rank, b in enumerate(order, 1):
            row = "".join(
                f"{'-':>8}" if o == b else f"{by_bot[b].head_to_head.get(o, 0):>8}"
                for o in order)
            lines.append(f"#{rank:<3} {by_bot[b].name:<{width}}{row}")
    return "\n".join(lines)


def to_json(specs: list[BotSpec], results: Results, *, seed: int, rounds: int,
            jobs: int, call_timeout: float, seconds: float) -> dict[str, Any]:
    table = standings(specs, results)
    return {
        "seed": seed, "rounds": rounds, "jobs": jobs, "call_timeout": call_timeout,
        "interrupted": results.interrupted,
        "seconds": round(seconds, 3),
        "points_per_match": POINTS,
        "bots": [{"index": i, "name": s.name, "source": s.arg, "kind": s.kind}
                 for i, s in enumerate(specs)],
        "leaderboard": [
            {"rank": rank, "bot": s.name, "index": s.bot, "points": s.points,
             "matches": s.matches, "games_won_pct": round(s.games_won_pct, 3),
             "won": s.won, "drawn": s.drawn, "lost": s.lost,
             "disqualified": s.disqualified or None}
            for rank, s in enumerate(table, 1)
        ],
        "head_to_head": {
            specs[s.bot].name: {specs[o].name: p for o, p in sorted(s.head_to_head.items())}
            for s in table
        },
        "matches": [
            {"match": r.number + 1, "seats": [specs[r.seats[0]].name, specs[r.seats[1]].name],
             "score": list(r.score),
             **({"disqualified": specs[r.disqualified].name, "reason": r.reason}
                if r.disqualified is not None else {})}
            for r in results
        ],
    }
