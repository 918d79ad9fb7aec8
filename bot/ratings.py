"""History and ratings: every ended match is recorded (`match_results`) and, when rated,
moves both players' ratings (`ratings`, openskill's Plackett-Luce model: mu and sigma per
server, game and player), in the same transaction as the match's result.

Rated: a match that ended with a result (a win, including a host's award, or a draw)
between two people, unless a host marked it unrated. Aborted matches and matches against a
built-in bot are in the history but move no rating. Marking an ended match unrated
recomputes that server's ratings of the game from its rated history.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from openskill.models import PlackettLuce
from sqlalchemy import Table, delete, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.live import LiveMatch
from bot.status import MatchStatus
from bot.store.bulk import insert_of, select_of, update_of
from bot.store.models import MatchResultRow, RatingRow

MODEL = PlackettLuce()
RESULTS = cast(Table, MatchResultRow.__table__)  # (a FromClause to the type checker)
RATINGS = cast(Table, RatingRow.__table__)


def guild_of(match: LiveMatch) -> int:
    """The server a match was played on (0: not on a server, e.g. the terminal)."""
    return int(match.transport.get("guild") or 0)


def is_rated(match: LiveMatch) -> bool:
    return (match.status == MatchStatus.FINISHED and not match.transport.get("unrated")
            and all(p.bot is None for p in match.players))


def ordinal(mu: float, sigma: float) -> float:
    """The displayed rating: a conservative estimate (mu - 3 sigma), what the board sorts by."""
    return mu - 3 * sigma


def result_statement(match: LiveMatch, now: datetime) -> Callable[[Connection], None]:
    """The statement that records `match`'s end (and its rating changes) in the transaction
    that stores the result. The caller has set `match.status` and `match.result`."""
    result = dict(match.result or {})
    winner = result.get("winner")
    outcome = "aborted" if match.status == MatchStatus.ABORTED else ("draw" if winner is None else "win")
    row: dict[str, Any] = dict(match_id=match.id, guild_id=guild_of(match), game=match.game.slug,
               player0=match.players[0].id, player1=match.players[1].id,
               names=[p.name for p in match.players], outcome=outcome,
               winner=winner if outcome == "win" else None,
               reason=str(result.get("reason") or ""), rated=is_rated(match), changes={},
               ended_at=now)

    def run(conn: Connection) -> None:
        if _RESULT_OF.rows(conn, {"match_id": match.id}):
            return  # recorded already (the shared transaction retried alone)
        if row["rated"]:
            row["changes"] = _rate(conn, row, now)
        _INSERT_RESULT.run(conn, [row])

    return run


# Built once and run on the DB-API cursor on SQLite (bulk.py): they run in the transaction
# of every match's last move, where SQLAlchemy's per-call work cost more than SQLite's
# (0.24 ms a result through `Connection.execute`).
_RESULT_OF = select_of(RESULTS, ["match_id"], {"match_id": "match_id"})
_INSERT_RESULT = insert_of(RESULTS, [c.name for c in RESULTS.c])
_RATING_COLUMNS = ["name", "mu", "sigma", "played", "wins", "draws", "losses", "updated_at"]
_INSERT_RATING = insert_of(RATINGS, ["guild_id", "game", "player_id", *_RATING_COLUMNS])
_RATINGS_OF = select_of(RATINGS, ["player_id", "mu", "sigma", "played", "wins", "draws",
                                  "losses"],
                        {"guild_id": "guild_id", "game": "game", "player_id": ("player0", "player1")})
#: One player's rating: the key as `key_*` parameters, the new values as `set_*`.
_UPDATE_RATING = update_of(RATINGS, ["guild_id", "game", "player_id"], _RATING_COLUMNS)


def _rate(conn: Connection, row: dict[str, Any], now: datetime) -> dict[str, Any]:
    """Move both players' ratings by one result; return {player: [mu0, s0, mu1, s1]}."""
    ids = [row["player0"], row["player1"]]
    stored = {r[0]: r for r in _RATINGS_OF.rows(conn, dict(
        guild_id=row["guild_id"], game=row["game"], player0=ids[0], player1=ids[1]))}
    before = [MODEL.rating(mu=stored[i][1], sigma=stored[i][2]) if i in stored
              else MODEL.rating() for i in ids]
    winner = row["winner"]
    ranks: list[float] = [0, 0] if winner is None else [0 if seat == winner else 1 for seat in (0, 1)]
    after = [team[0] for team in MODEL.rate([[before[0]], [before[1]]], ranks=ranks)]
    changes = {}
    for seat, pid in enumerate(ids):
        won, drew = winner == seat, winner is None
        lost = not won and not drew
        _, _, _, played, wins, draws, losses = stored.get(pid, (pid, 0, 0, 0, 0, 0, 0))
        values = dict(name=str(row["names"][seat])[:100], mu=after[seat].mu,
                      sigma=after[seat].sigma, played=played + 1, wins=wins + won,
                      draws=draws + drew, losses=losses + lost, updated_at=now)
        key = dict(guild_id=row["guild_id"], game=row["game"], player_id=pid)
        if pid in stored:
            _UPDATE_RATING.run(conn, [{**{f"key_{k}": v for k, v in key.items()},
                                       **{f"set_{k}": v for k, v in values.items()}}])
        else:
            _INSERT_RATING.run(conn, [{**key, **values}])
        changes[pid] = [before[seat].mu, before[seat].sigma, after[seat].mu, after[seat].sigma]
    return changes


def rerate(conn: Connection, guild_id: int, game: str, now: datetime) -> None:
    """Recompute a server's ratings of one game from its rated history, oldest first."""
    conn.execute(delete(RATINGS).where(RATINGS.c.guild_id == guild_id, RATINGS.c.game == game))
    rows = conn.execute(select(RESULTS).where(
        RESULTS.c.guild_id == guild_id, RESULTS.c.game == game, RESULTS.c.rated.is_(True))
        .order_by(RESULTS.c.ended_at, RESULTS.c.match_id)).all()
    for r in rows:
        changes = _rate(conn, dict(r._mapping), now)
        conn.execute(update(RESULTS).where(RESULTS.c.match_id == r.match_id)
                     .values(changes=changes))


def unrate_statement(match_id: int, now: datetime) -> Callable[[Connection], bool]:
    """Mark an ended match unrated and recompute what it moved; False if it has no result."""
    def run(conn: Connection) -> bool:
        found = conn.execute(select(RESULTS.c.guild_id, RESULTS.c.game, RESULTS.c.rated).where(
            RESULTS.c.match_id == match_id)).first()
        if found is None:
            return False
        conn.execute(update(RESULTS).where(RESULTS.c.match_id == match_id)
                     .values(rated=False, changes={}))
        if found.rated:
            rerate(conn, found.guild_id, found.game, now)
        return True
    return run


# --- reading -----------------------------------------------------------------------------
@dataclass(frozen=True)
class HistoryLine:
    match_id: int
    game: str
    names: tuple[str, ...]
    seat: int  # the player's seat
    outcome: str  # win|loss|draw|aborted
    reason: str
    rated: bool
    change: float | None  # the displayed rating's change
    ended_at: datetime


@dataclass(frozen=True)
class Standing:
    player_id: str
    name: str
    mu: float
    sigma: float
    played: int
    wins: int
    losses: int
    draws: int

    @property
    def rating(self) -> float:
        return ordinal(self.mu, self.sigma)


async def history(engine: AsyncEngine, guild_id: int, player_id: str, game: str | None = None,
                  limit: int = 15) -> list[HistoryLine]:
    """A player's ended matches on a server, newest first."""
    query = (select(RESULTS).where(RESULTS.c.guild_id == guild_id,
                                   or_(RESULTS.c.player0 == player_id,
                                       RESULTS.c.player1 == player_id))
             .order_by(RESULTS.c.ended_at.desc(), RESULTS.c.match_id.desc()).limit(limit))
    if game:
        query = query.where(RESULTS.c.game == game)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    out = []
    for r in rows:
        seat = 0 if r.player0 == player_id else 1
        outcome = ("win" if r.winner == seat else "loss") if r.outcome == "win" else r.outcome
        change = None
        moved = (r.changes or {}).get(player_id)
        if r.rated and moved:
            change = ordinal(moved[2], moved[3]) - ordinal(moved[0], moved[1])
        out.append(HistoryLine(r.match_id, r.game, tuple(r.names), seat, outcome, r.reason,
                               bool(r.rated), change, r.ended_at))
    return out


async def standings(engine: AsyncEngine, guild_id: int, game: str,
                    player_ids: Sequence[str] | None = None, limit: int = 20) -> list[Standing]:
    """The server's ratings of a game, best first (or only the given players')."""
    query = select(RATINGS).where(RATINGS.c.guild_id == guild_id, RATINGS.c.game == game)
    if player_ids is not None:
        query = query.where(RATINGS.c.player_id.in_(list(player_ids)))
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    found = [Standing(r.player_id, r.name, r.mu, r.sigma, r.played, r.wins, r.losses, r.draws)
             for r in rows]
    found.sort(key=lambda s: (-s.rating, -s.played, s.name))
    return found[:limit]


async def result_of(engine: AsyncEngine, match_id: int) -> Any:
    async with engine.connect() as conn:
        return (await conn.execute(select(RESULTS).where(RESULTS.c.match_id == match_id))).first()
