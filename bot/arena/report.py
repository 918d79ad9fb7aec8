"""Totals, the leaderboard and head-to-head table, and the JSON record of a tournament."""

from __future__ import annotations

from typing import Any

from bot.arena.leaderboard import RATED_PER_PAIR, Leaderboard, Standing, build
from bot.arena.loader import BotSpec
from bot.arena.match import CORE, match_key
from bot.arena.tournament import POINTS, Results


def board(specs: list[BotSpec], results: Results) -> Leaderboard:
    """The tournament's leaderboard (bot/arena/leaderboard.py has the rule)."""
    return build([s.name for s in specs], results.tallies(), results.rated(RATED_PER_PAIR),
                 results.departures())


def standings(specs: list[BotSpec], results: Results) -> list[Standing]:
    """The ranked bots still in the tournament."""
    return board(specs, results).table


def leaderboard_text(specs: list[BotSpec], results: Results, *, seed: int,
                     rounds: int, jobs: int, seconds: float) -> str:
    lb = board(specs, results)
    table = lb.table
    width = max(8, *(len(s.name) for s in specs))
    lines = [f"RPS Poker arena: {len(specs)} bots, {rounds} round-robin cycles, "
             f"{len(results)} matches counted, seed {seed}, {jobs} job(s), {CORE} core, "
             f"{seconds:.2f} s"]
    if results.interrupted:
        lines.append(f"Interrupted (Ctrl-C): the table so far, {len(results)} of "
                     f"{results.schedule.matches} matches.")
    lines += ["",
              f"{'rank':>4}  {'bot':<{width}}  {'points':>8}  {'games/match':>11}  "
              f"{'matches W-D-L':>15}  {'rating':>6}"]
    for rank, s in enumerate(table, 1):
        wdl = f"{s.won}-{s.drawn}-{s.lost}"
        lines.append(f"{rank:>3}.  {s.name:<{width}}  {s.points:>8}  "
                     f"{s.games_per_match:>11.3f}  {wdl:>15}  {s.rating:>6.1f}")
    lines += ["", "Ranked by points (games won over every counted match), then games/match: "
                  "games won per match played (of 10); rating: openskill mu - 3 sigma."]
    if lb.departed:
        lines += ["", "Disqualified (left the tournament: all their matches are void):"]
        lines += [f"  {d.name}: {d}" for d in lb.departed]
    if len(table) > 1:
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
    lb = board(specs, results)
    table = lb.table
    twin = len(results.schedule.seatings)
    keys: dict[int, str] = {}

    def deal_seed(deal: int) -> str:
        if deal not in keys:
            keys[deal] = match_key(seed, deal).hex()
        return keys[deal]

    return {
        "seed": seed, "rounds": rounds, "jobs": jobs, "call_timeout": call_timeout,
        "core": CORE,
        "interrupted": results.interrupted,
        "seconds": round(seconds, 3),
        "points_per_match": POINTS,
        "bots": [{"index": i, "name": s.name, "source": s.arg, "kind": s.kind}
                 for i, s in enumerate(specs)],
        "leaderboard": [
            {"rank": rank, "bot": s.name, "index": s.bot, "points": s.points,
             "matches": s.matches, "games_per_match": round(s.games_per_match, 4),
             "games_won_pct": round(s.games_won_pct, 3),
             "won": s.won, "drawn": s.drawn, "lost": s.lost,
             "rating": {"mu": round(s.mu, 4), "sigma": round(s.sigma, 4),
                        "ordinal": round(s.rating, 4)}}
            for rank, s in enumerate(table, 1)
        ],
        "disqualified": [
            {"bot": d.name, "index": d.bot, "match": d.match, "opponent": d.opponent,
             "reason": d.reason, "deal": (d.match - 1) // twin,
             "match_seed": deal_seed((d.match - 1) // twin)}
            for d in lb.departed
        ],
        "head_to_head": {
            specs[s.bot].name: {specs[o].name: p for o, p in sorted(s.head_to_head.items())}
            for s in table
        },
        # Each match's seed is its deal's key (the deal's shuffles): `--replay` plays it again.
        "matches": [
            {"match": r.number + 1, "seats": [specs[r.seats[0]].name, specs[r.seats[1]].name],
             "score": list(r.score), "deal": r.number // twin,
             "match_seed": deal_seed(r.number // twin)}
            for r in results
        ],
    }
