"""The repository: every read and write the service makes, in SQLAlchemy Core for speed.

The service hands one `MatchWrite` per accepted command (or host action) to `commit`, which
stores the action, any snapshot, the outbox messages and the clock changes in ONE
transaction: either everything a command caused is stored, or nothing is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.store.migrate import migrate
from bot.store.models import (
    ActionRow,
    DeadlineRow,
    MatchRow,
    OutboxRow,
    ServiceStateRow,
    SnapshotRow,
)

ACTIVE_STATUSES = ("active", "paused")
HEARTBEAT_KEY = "heartbeat"


@dataclass
class ClockData:
    """A decision clock as the service keeps it (mirrors DeadlineRow)."""

    key: str
    seat: int
    started_at: datetime
    limit_at: datetime | None
    deadline_at: datetime | None
    reminders_sent: int = 0
    status: str = "armed"  # armed|done|expired

    def shifted(self, delta: timedelta) -> None:
        self.started_at += delta
        if self.limit_at is not None:
            self.limit_at += delta
        if self.deadline_at is not None:
            self.deadline_at += delta


@dataclass
class OutboxData:
    audience: str
    text: str
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class MatchWrite:
    """Everything one accepted command (or host action) changes, stored atomically."""

    match_id: int
    seq: int  # the action count after this write
    action: tuple[int, dict[str, Any], str] | None = None  # seat, command JSON, source
    snapshot: str | None = None  # state JSON after the action
    outbox: list[OutboxData] = field(default_factory=list)
    clocks_new: list[ClockData] = field(default_factory=list)
    clocks_changed: list[ClockData] = field(default_factory=list)
    match_fields: dict[str, Any] = field(default_factory=dict)


@dataclass
class StoredMatch:
    """A match as loaded on start: its row, latest snapshot, the actions after it, clocks."""

    row: MatchRow
    snapshot_seq: int
    snapshot: str | None
    actions: list[tuple[int, int, dict[str, Any]]]  # seq, seat, command
    clocks: list[ClockData]


@dataclass
class StoredMessage:
    id: int
    match_id: int
    seq: int
    audience: str
    text: str
    payload: dict[str, Any]
    created_at: datetime
    delivered_at: datetime | None = None


class Repository:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def migrate(self) -> None:
        """Create or upgrade the tables (Alembic)."""
        await migrate(self.engine)

    # --- matches ------------------------------------------------------------------------
    async def create_match(self, *, game: str, settings: dict[str, Any], seed: str,
                           commitment: str, players: list[dict[str, Any]],
                           transport: dict[str, Any], now: datetime) -> int:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                insert(MatchRow).returning(MatchRow.id),
                dict(game=game, settings=settings, seed=seed, seed_commitment=commitment,
                     players=players, status="active", result=None, transport=transport,
                     action_count=0, created_at=now, updated_at=now),
            )
            return int(result.scalar_one())

    async def commit(self, write: MatchWrite, now: datetime) -> list[int]:
        """Store a write atomically; return the new outbox ids in order."""
        async with self.engine.begin() as conn:
            return await self._apply_write(conn, write, now)

    async def _apply_write(self, conn: AsyncConnection, write: MatchWrite, now: datetime) -> list[int]:
        if write.action is not None:
            seat, command, source = write.action
            await conn.execute(insert(ActionRow), dict(
                match_id=write.match_id, seq=write.seq, seat=seat, command=command,
                source=source, created_at=now))
        if write.snapshot is not None:
            await conn.execute(insert(SnapshotRow), dict(
                match_id=write.match_id, seq=write.seq, state=write.snapshot, created_at=now))
        ids: list[int] = []
        for message in write.outbox:
            result = await conn.execute(insert(OutboxRow).returning(OutboxRow.id), dict(
                match_id=write.match_id, seq=write.seq, audience=message.audience,
                text=message.text, payload=message.payload, created_at=now, attempts=0))
            ids.append(int(result.scalar_one()))
        if write.clocks_new:
            await conn.execute(insert(DeadlineRow), [
                dict(match_id=write.match_id, prompt_key=c.key, seat=c.seat,
                     started_at=c.started_at, limit_at=c.limit_at, deadline_at=c.deadline_at,
                     reminders_sent=c.reminders_sent, status=c.status)
                for c in write.clocks_new])
        for c in write.clocks_changed:
            await conn.execute(
                update(DeadlineRow)
                .where(DeadlineRow.match_id == write.match_id, DeadlineRow.prompt_key == c.key)
                .values(started_at=c.started_at, limit_at=c.limit_at, deadline_at=c.deadline_at,
                        reminders_sent=c.reminders_sent, status=c.status))
        fields = dict(write.match_fields, updated_at=now)
        if write.action is not None:
            fields["action_count"] = write.seq
        await conn.execute(update(MatchRow).where(MatchRow.id == write.match_id).values(**fields))
        return ids

    async def load_active(self) -> list[StoredMatch]:
        """Every active or paused match with its latest snapshot, later actions and clocks."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                select(MatchRow).where(MatchRow.status.in_(ACTIVE_STATUSES)).order_by(MatchRow.id)
            )).all()
            matches = [MatchRow(**r._mapping) for r in rows]
            return [await self._load(conn, m) for m in matches]

    async def load_match(self, match_id: int) -> StoredMatch | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(MatchRow).where(MatchRow.id == match_id))).first()
            return await self._load(conn, MatchRow(**row._mapping)) if row else None

    async def _load(self, conn: AsyncConnection, match: MatchRow) -> StoredMatch:
        snap = (await conn.execute(
            select(SnapshotRow.seq, SnapshotRow.state)
            .where(SnapshotRow.match_id == match.id)
            .order_by(SnapshotRow.seq.desc()).limit(1)
        )).first()
        snap_seq = snap.seq if snap else 0
        actions = (await conn.execute(
            select(ActionRow.seq, ActionRow.seat, ActionRow.command)
            .where(ActionRow.match_id == match.id, ActionRow.seq > snap_seq)
            .order_by(ActionRow.seq)
        )).all()
        clocks = (await conn.execute(
            select(DeadlineRow).where(DeadlineRow.match_id == match.id,
                                      DeadlineRow.status == "armed").order_by(DeadlineRow.id)
        )).all()
        return StoredMatch(
            row=match, snapshot_seq=snap_seq, snapshot=snap.state if snap else None,
            actions=[(a.seq, a.seat, a.command) for a in actions],
            clocks=[ClockData(key=c.prompt_key, seat=c.seat, started_at=c.started_at,
                              limit_at=c.limit_at, deadline_at=c.deadline_at,
                              reminders_sent=c.reminders_sent, status=c.status) for c in clocks],
        )

    async def find_match_by_transport(self, key: str, value: Any) -> list[MatchRow]:
        """Matches whose transport data has `key` == value (e.g. a Discord channel id)."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(MatchRow).order_by(MatchRow.id.desc()))).all()
        return [MatchRow(**r._mapping) for r in rows if (r.transport or {}).get(key) == value]

    async def list_matches(self, limit: int = 50) -> list[MatchRow]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(MatchRow).order_by(MatchRow.id.desc()).limit(limit))).all()
        return [MatchRow(**r._mapping) for r in rows]

    async def set_transport(self, match_id: int, transport: dict[str, Any]) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(MatchRow).where(MatchRow.id == match_id)
                               .values(transport=transport))

    # --- the record ---------------------------------------------------------------------
    async def actions(self, match_id: int) -> list[ActionRow]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(ActionRow).where(ActionRow.match_id == match_id)
                                       .order_by(ActionRow.seq))).all()
        return [ActionRow(**r._mapping) for r in rows]

    async def messages(self, match_id: int) -> list[StoredMessage]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(OutboxRow).where(OutboxRow.match_id == match_id)
                                       .order_by(OutboxRow.id))).all()
        return [_message(r) for r in rows]

    # --- outbox -------------------------------------------------------------------------
    async def undelivered(self) -> list[StoredMessage]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(OutboxRow).where(OutboxRow.delivered_at.is_(None))
                                       .order_by(OutboxRow.id))).all()
        return [_message(r) for r in rows]

    async def mark_delivered(self, ids: list[int], now: datetime) -> None:
        if not ids:
            return
        async with self.engine.begin() as conn:
            await conn.execute(update(OutboxRow).where(OutboxRow.id.in_(ids))
                               .values(delivered_at=now, attempts=OutboxRow.attempts + 1))

    async def count_undelivered(self) -> int:
        async with self.engine.connect() as conn:
            return int((await conn.execute(
                select(func.count()).select_from(OutboxRow).where(OutboxRow.delivered_at.is_(None))
            )).scalar_one())

    # --- the service's heartbeat --------------------------------------------------------
    async def last_heartbeat(self) -> datetime | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(ServiceStateRow.value)
                                      .where(ServiceStateRow.key == HEARTBEAT_KEY))).first()
        return datetime.fromisoformat(row.value).astimezone(UTC) if row else None

    async def beat(self, now: datetime) -> None:
        async with self.engine.begin() as conn:
            done = await conn.execute(update(ServiceStateRow)
                                      .where(ServiceStateRow.key == HEARTBEAT_KEY)
                                      .values(value=now.isoformat(), updated_at=now))
            if done.rowcount == 0:
                await conn.execute(insert(ServiceStateRow), dict(
                    key=HEARTBEAT_KEY, value=now.isoformat(), updated_at=now))


def _message(r: Any) -> StoredMessage:
    return StoredMessage(id=r.id, match_id=r.match_id, seq=r.seq, audience=r.audience,
                         text=r.text, payload=r.payload or {}, created_at=r.created_at,
                         delivered_at=r.delivered_at)
