"""Events in the database: one row per event (`events`), its entrants (`event_entrants`) and
which match plays which pairing (`event_matches`).

Every change of a stored event is a read-modify-write inside one transaction (`change`):
the event is read in the transaction, a pure transition (bot/tournament/event.py) applied,
and the result written back. A change rides in the transaction of a match's end
(`MatchWrite.also`), so that a result and the event it advances are stored together or not
at all; two matches of one event ending at once each see the other's result.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.models import EventEntrantRow, EventMatchRow, EventRow, MatchRow
from bot.tournament.event import Event

T = TypeVar("T")
#: The columns of `events` that hold a field of `Event` of the same name.
_COLUMNS = ("name", "game", "settings", "format", "rated", "break_seconds", "status", "state",
            "round_opens_at", "version")
_IN_ROW = {"id", "guild", *_COLUMNS}


def _row_values(event: Event, now: datetime) -> dict[str, Any]:
    data = event.model_dump(mode="json", exclude=_IN_ROW)
    values = {c: getattr(event, c) for c in _COLUMNS}
    values.update(guild_id=event.guild, data=data, updated_at=now,
                  message_id=event.place.get("message"))
    return values


def _from_row(row: Any) -> Event:
    fields = {c: getattr(row, c) for c in _COLUMNS}
    return Event.model_validate({**(row.data or {}), **fields, "id": row.id,
                                 "guild": row.guild_id})


def insert_event(conn: Connection, event: Event, now: datetime) -> Event:
    """Store a new event; return it with its id."""
    values = _row_values(event, now)
    event_id = conn.execute(insert(EventRow).values(created_at=now, **values)
                            .returning(EventRow.id)).scalar_one()
    stored = event.model_copy(update={"id": int(event_id)})
    _write_parts(conn, stored)
    return stored


def read(conn: Connection, event_id: int) -> Event | None:
    query = select(EventRow).where(EventRow.id == event_id)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()  # (SQLite has one writer: the transaction is enough)
    row = conn.execute(query).first()
    return _from_row(row) if row is not None else None


def write(conn: Connection, event: Event, now: datetime) -> None:
    conn.execute(update(EventRow).where(EventRow.id == event.id)
                 .values(**_row_values(event, now)))
    _write_parts(conn, event)


def _write_parts(conn: Connection, event: Event) -> None:
    """The entrants (replaced: a few rows) and the pairing -> match links (upserted)."""
    conn.execute(delete(EventEntrantRow).where(EventEntrantRow.event_id == event.id))
    if event.entrants:
        conn.execute(insert(EventEntrantRow), [
            dict(event_id=event.id, player_id=e.id, name=e.name[:100], bot=e.bot, position=i,
                 withdrawn=e.withdrawn) for i, e in enumerate(event.entrants)])
    stored = dict(conn.execute(select(EventMatchRow.pairing, EventMatchRow.match_id)
                               .where(EventMatchRow.event_id == event.id)).all())
    for pairing, match_id in event.matches.items():
        if pairing not in stored:
            conn.execute(insert(EventMatchRow).values(event_id=event.id, pairing=pairing,
                                                      match_id=match_id))
        elif stored[pairing] != match_id:
            conn.execute(update(EventMatchRow).where(
                EventMatchRow.event_id == event.id, EventMatchRow.pairing == pairing)
                .values(match_id=match_id))
    gone = set(stored) - set(event.matches)
    if gone:
        conn.execute(delete(EventMatchRow).where(EventMatchRow.event_id == event.id,
                                                 EventMatchRow.pairing.in_(sorted(gone))))


def change(event_id: int, transition: Callable[[Event], tuple[Event, T]],
           now: datetime, box: dict[str, Any] | None = None
           ) -> Callable[[Connection], tuple[Event, T]]:
    """A statement for a transaction: read the event, apply `transition` (pure: it returns
    the new event and anything else), write the new event if it changed. The result is
    also put in `box` ("event", "extra"), for a caller whose statement rides in another
    write (a match's end) and reads it once that write is stored."""
    def run(conn: Connection) -> tuple[Event, T]:
        event = read(conn, event_id)
        if event is None:
            raise LookupError(f"There is no event #{event_id}.")
        changed, extra = transition(event)
        if changed.version != event.version:
            write(conn, changed, now)
        if box is not None:
            box.update(event=changed, extra=extra)
        return changed, extra
    return run


# --- reading -------------------------------------------------------------------------------
async def load(engine: AsyncEngine, event_id: int) -> Event | None:
    async with engine.connect() as conn:
        row = (await conn.execute(select(EventRow).where(EventRow.id == event_id))).first()
    return _from_row(row) if row is not None else None


async def running(engine: AsyncEngine, guild_ids: set[int] | None = None) -> list[Event]:
    """Every event that is running or paused (of these servers), oldest first."""
    query = select(EventRow).where(EventRow.status.in_(("running", "paused")))
    if guild_ids is not None:
        query = query.where(EventRow.guild_id.in_(sorted(guild_ids)))
    async with engine.connect() as conn:
        rows = (await conn.execute(query.order_by(EventRow.id))).all()
    return [_from_row(r) for r in rows]


async def of_guild(engine: AsyncEngine, guild_id: int, *, limit: int = 25,
                   open_only: bool = False) -> list[Event]:
    """A server's events, newest first (only those not ended, with `open_only`)."""
    query = select(EventRow).where(EventRow.guild_id == guild_id)
    if open_only:
        query = query.where(EventRow.status != "ended")
    async with engine.connect() as conn:
        rows = (await conn.execute(query.order_by(EventRow.id.desc()).limit(limit))).all()
    return [_from_row(r) for r in rows]


async def newest(engine: AsyncEngine, limit: int = 50) -> list[Event]:
    """Every server's events (and the local ones), newest first: `umpire events`."""
    async with engine.connect() as conn:
        rows = (await conn.execute(select(EventRow).order_by(EventRow.id.desc())
                                   .limit(limit))).all()
    return [_from_row(r) for r in rows]


async def of_player(engine: AsyncEngine, guild_id: int, player_id: str,
                    limit: int = 15) -> list[Event]:
    """The events a player entered on a server, newest first."""
    query = (select(EventRow).join(EventEntrantRow, EventEntrantRow.event_id == EventRow.id)
             .where(EventRow.guild_id == guild_id, EventEntrantRow.player_id == player_id)
             .order_by(EventRow.id.desc()).limit(limit))
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [_from_row(r) for r in rows]


async def _event_match_rows(engine: AsyncEngine, event_id: int) -> list[Any]:
    """The event's matches (id, status, pairing), oldest first, from the matches' own rows."""
    async with engine.connect() as conn:
        rows = (await conn.execute(
            select(MatchRow.id, MatchRow.status, MatchRow.transport)
            .where(MatchRow.transport["event"].as_integer() == event_id)
            .order_by(MatchRow.id))).all()
    return [(int(r.id), str(r.status), str((r.transport or {}).get("pairing") or ""))
            for r in rows]


async def started_matches(engine: AsyncEngine, event_id: int) -> dict[str, tuple[int, str]]:
    """pairing -> (latest match id, its status), from the matches' own rows: a match whose
    start was stored just before a kill, but not yet linked to its pairing, is found here."""
    return {pairing: (match_id, status)
            for match_id, status, pairing in await _event_match_rows(engine, event_id)
            if pairing}


async def pairing_matches(engine: AsyncEngine, event_id: int) -> dict[str, list[int]]:
    """pairing -> every match that played it, oldest first (an aborted match or a draw the
    format has no place for is played again: the record keeps each)."""
    found: dict[str, list[int]] = {}
    for match_id, _status, pairing in await _event_match_rows(engine, event_id):
        if pairing:
            found.setdefault(pairing, []).append(match_id)
    return found
