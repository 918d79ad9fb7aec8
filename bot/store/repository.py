"""The repository: every read and write the service makes, in SQLAlchemy Core for speed.

The service hands one `MatchWrite` per accepted command (or host action) to `commit`, which
stores the action, any snapshot, the outbox messages and the clock changes in ONE
transaction: either everything a command caused is stored, or nothing is.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any, ParamSpec, TypeVar

from sqlalchemy import (
    Text,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal_column,
    select,
    text,
    true,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import BindParameter

from bot.status import ENDED, LIVE, RUNNING, ClockStatus, MatchStatus
from bot.store.bulk import Bulk, insert_of, scalar_raw, update_of
from bot.store.database import reconnecting, sync_writer_engine
from bot.store.fence import Fence, FencedOut, Stamp, stamps_of
from bot.store.leases import shard_of
from bot.store.migrate import migrate
from bot.store.models import (
    ActionRow,
    ClockStopRow,
    DeadlineRow,
    MatchRow,
    OutboxRow,
    ServiceStateRow,
    SnapshotRow,
)
from bot.store.single_statement import SingleStatementWrites, ids_per_write
from bot.store.writer import BatchWriter, Extra

P = ParamSpec("P")
R = TypeVar("R")

# (plain strings, as the statements bind them)
ACTIVE_STATUSES = tuple(s.value for s in RUNNING)
LIVE_CLOCKS = tuple(s.value for s in LIVE)  # reloaded on start; "break": runs once a break ends
ENDED_STATUSES = tuple(s.value for s in ENDED)
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
    status: str = ClockStatus.ARMED  # (break: starts when a break ends)

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
    #: More statements for the same transaction (e.g. the ratings a result changes).
    also: list[Callable[[Connection], object]] = field(default_factory=list)
    #: The match's clock stops after this write, replacing those stored (None: unchanged).
    stops: dict[str, StopData] | None = None
    #: Sharded: (shard, lease generation) the write was made under; stored only if the
    #: lease is still this process's at that generation (bot/store/fence.py).
    fence: Stamp | None = None


@dataclass
class StopData:
    """A decision's clock stopped (a channel it depends on is down or held): since when,
    and the channels it waits for (mirrors ClockStopRow)."""

    since: datetime
    channels: set[str] = field(default_factory=set)


@dataclass
class StoredMatch:
    """A match as loaded on start: its row, latest snapshot, the actions after it, clocks."""

    row: Any  # a MatchRow, or a result row with the same columns
    snapshot_seq: int
    snapshot: str | None
    actions: list[tuple[int, int, dict[str, Any] | str]]  # seq, seat, command (or its JSON)
    clocks: list[ClockData]


@dataclass
class Pruned:
    """What `Repository.prune` deleted."""

    messages: int = 0
    snapshots: int = 0
    clocks: int = 0


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


def transport_merge(match_id: int, changes: dict[str, Any], fence: Fence | None = None,
                    *, replace: bool = False) -> Callable[[Connection], dict[str, Any]]:
    """A statement setting some keys of a match's transport data (read and written in the
    caller's transaction, e.g. `MatchWrite.also`); it returns the merged data. `replace`:
    the data becomes `changes` alone. With a `fence` (a transaction of its own, sharded),
    it is stored only while the match's shard is held here at the generation held now
    (`FencedOut` otherwise; a write it rides in carries its own fence)."""
    def merge(conn: Connection) -> dict[str, Any]:
        row = conn.execute(select(MatchRow.transport, MatchRow.shard).where(
            MatchRow.id == match_id)).one_or_none()
        if fence is not None and row is not None:
            fence.check(conn, {(int(row.shard), fence.token(int(row.shard)))})
        merged = dict(changes) if replace else {**((row.transport if row else None) or {}),
                                                **changes}
        conn.execute(update(MatchRow).where(MatchRow.id == match_id).values(transport=merged))
        return merged
    return merge


def _reading(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A read retried while the database server cannot be reached, then refused as
    `StoreUnavailable` (one sentence for the service to pass on, never a traceback)."""
    @functools.wraps(method)
    async def read(*args: P.args, **kwargs: P.kwargs) -> R:
        return await reconnecting(lambda: method(*args, **kwargs))
    return read


class Repository:
    def __init__(self, engine: AsyncEngine, *, shard_count: int = 1,
                 shards: set[int] | None = None) -> None:
        self.engine = engine
        #: Matches are stored with their shard, `shard_of(guild id, shard_count)`.
        self.shard_count = shard_count
        #: The shards this process umpires: the reads that decide what it resumes and sends
        #: (running matches, undelivered messages, clock shifts, places left open) see only
        #: their matches. None: every match (one process, no sharding).
        self.shards = shards
        url = engine.url.render_as_string(hide_password=False)
        self._delivered: list[int] = []
        self._delivered_at: datetime | None = None
        self._unborn: dict[int, dict[str, Any]] = {}  # reserved matches: row, not yet stored
        self._last_match_id: int | None = None  # SQLite: the highest id handed out
        #: Sharded: the leases this process holds; every match write is fenced by them
        #: (set by the shard keeper, bot/shards.py). None: one process, nothing fenced.
        self.fence: Fence | None = None
        sync_engine = sync_writer_engine(url)
        self.writer: BatchWriter[tuple[MatchWrite, datetime]] = BatchWriter(
            engine, self._apply_writes, sync_engine=sync_engine, extras=self._take_delivered,
            one_statement=(SingleStatementWrites(engine, self._unborn.__contains__,
                                                 lambda: self.fence)
                           if engine.dialect.name == "postgresql" else None),
            landed=self._landed if sync_engine is None else None, refuses=_fenced_out)

    async def close(self) -> None:
        await self.writer.close()

    async def migrate(self) -> None:
        """Create or upgrade the tables (Alembic)."""
        await migrate(self.engine)

    # --- matches ------------------------------------------------------------------------
    async def create_match(self, *, game: str, settings: dict[str, Any], seed: str,
                           commitment: str, players: list[dict[str, Any]],
                           transport: dict[str, Any], now: datetime) -> int:
        """Store a match row now (own transaction); return its id."""
        match_id = await self.reserve_match(game=game, settings=settings, seed=seed,
                                            commitment=commitment, players=players,
                                            transport=transport, now=now)
        try:
            await self.commit(MatchWrite(match_id, 0), now)
        finally:
            self._unborn.pop(match_id, None)
        return match_id

    async def reserve_match(self, *, game: str, settings: dict[str, Any], seed: str,
                            commitment: str, players: list[dict[str, Any]],
                            transport: dict[str, Any], now: datetime,
                            salt: str | None = None,
                            match_commitment: dict[str, Any] | None = None) -> int:
        """An id for a new match whose row is stored by the match's first `commit`, in the
        same transaction as that write (the opening: seed commitment, first prompts, clocks),
        so that a crash never leaves a match without its opening. Until then the match does
        not exist in the database; `forget_match` drops a reservation whose write failed."""
        match_id = await self._new_match_id()
        self._unborn[match_id] = dict(
            id=match_id, game=game, settings=settings, seed=seed, seed_commitment=commitment,
            seed_salt=salt, match_commitment=match_commitment, players=players,
            status=MatchStatus.ACTIVE.value, result=None, transport=transport,
            action_count=0, created_at=now, updated_at=now, shard=self.shard_for(transport))
        return match_id

    def shard_for(self, transport: dict[str, Any]) -> int:
        """The shard of a match played where `transport` says (its Discord server)."""
        return shard_of(int(transport.get("guild") or 0), self.shard_count)

    def _in_scope(self, shards: set[int] | None = None) -> Any:
        """A condition on MatchRow: in `shards` (default: the shards this process owns)."""
        scope = self.shards if shards is None else shards
        return MatchRow.shard.in_(sorted(scope)) if scope is not None else true()

    def forget_match(self, match_id: int) -> None:
        self._unborn.pop(match_id, None)

    @_reading
    async def _new_match_id(self) -> int:
        async with self.engine.connect() as conn:
            if conn.dialect.name != "sqlite":
                return int((await conn.execute(text(
                    "SELECT nextval(pg_get_serial_sequence('matches', 'id'))"))).scalar_one())
            if self._last_match_id is None:
                top = (await conn.execute(select(func.max(MatchRow.id)))).scalar()
                # (another reservation may have run while this one awaited)
                self._last_match_id = max(self._last_match_id or 0, int(top or 0))
        # SQLite has one writing process: ids are handed out here, never twice.
        self._last_match_id += 1
        return self._last_match_id

    def stamp(self, write: MatchWrite, transport: dict[str, Any]) -> MatchWrite:
        """Sharded: fence `write`, of a match played where `transport` says, by the lease
        this process holds for its shard now (`FencedOut` if none: it must not be made)."""
        if self.fence is not None and write.fence is None:
            shard = self.shard_for(transport)
            write.fence = (shard, self.fence.token(shard))
        return write

    async def commit(self, write: MatchWrite, now: datetime, *, at_once: bool = False) -> list[int]:
        """Store a write atomically (sharing the transaction with writes made at the same
        moment); return the new outbox ids in order. The first write of a reserved match
        also stores its row. `at_once`: someone waits on it (writer.py, `_can_store_now`).
        Sharded, a write must be fenced (`stamp`); one the fence refuses raises `FencedOut`
        and loses its shard here at once."""
        if self.fence is not None and write.fence is None:
            born = self._unborn.get(write.match_id)
            if born is None:
                raise ValueError(f"match {write.match_id}: a sharded write without a fence")
            self.stamp(write, born["transport"])
        try:
            ids = await self.writer.write((write, now), at_once=at_once)
        except FencedOut as exc:
            if self.fence is not None:
                self.fence.refused(exc.stamps)
            raise
        self._unborn.pop(write.match_id, None)
        return ids

    async def _landed(self, items: list[tuple[MatchWrite, datetime]]) -> list[list[int]] | None:
        """Whether this batch of writes is stored (a connection lost mid-batch may have lost
        only the server's answer): each write's outbox ids if so, else None. A batch is
        stored whole or not at all, and each write sets its match's `updated_at` to its own
        moment, which no other write of the match can have changed since: its match waits."""
        ids = sorted({w.match_id for w, _ in items})
        async with self.engine.connect() as conn:
            updated = dict((await conn.execute(select(MatchRow.id, MatchRow.updated_at)
                                               .where(MatchRow.id.in_(ids)))).all())
            if any(updated.get(w.match_id) != now for w, now in items):
                return None
            rows = (await conn.execute(
                select(OutboxRow.id, OutboxRow.match_id, OutboxRow.seq, OutboxRow.audience,
                       OutboxRow.text, OutboxRow.created_at)
                .where(OutboxRow.match_id.in_(ids)).where(OutboxRow.created_at.in_(
                    sorted({now for _, now in items}))).order_by(OutboxRow.id))).all()
        unused = list(rows)
        out: list[list[int]] = []
        for w, now in items:
            mine = []
            for message in w.outbox:  # (messages alike in every column: either id fits)
                row = next((r for r in unused if (r.match_id, r.seq, r.audience, r.text,
                                                  r.created_at) ==
                            (w.match_id, w.seq, message.audience, message.text, now)), None)
                if row is None:  # (pruned meanwhile: cannot tell)
                    return None
                unused.remove(row)
                mine.append(int(row.id))
            out.append(mine)
        return out

    async def commit_many(self, writes: list[MatchWrite], now: datetime) -> None:
        """Store several writes in one transaction (e.g. clock shifts on start); sharded,
        each fenced (`stamp`): one the fence refuses refuses them all (`FencedOut`)."""
        if writes:
            await self._fenced_run(
                lambda conn: self._apply_writes(conn, [(w, now) for w in writes]))

    def _apply_writes(self, conn: Connection,
                      items: list[tuple[MatchWrite, datetime]]) -> list[list[int]]:
        """Apply writes of distinct matches with one statement per table (bulk). Sharded,
        first the fence: the lease rows locked for share, `FencedOut` if one is not ours at
        its write's generation (nothing of the transaction is then stored)."""
        if self.fence is not None:
            if any(w.fence is None for w, _ in items):
                raise ValueError("a sharded write without a fence")
            self.fence.check(conn, stamps_of(w for w, _ in items))
        if self._unborn:
            _INSERT_MATCH.run(conn, [self._unborn[w.match_id] for w, _ in items
                                     if w.match_id in self._unborn])
        _INSERT_ACTION.run(conn, [
            dict(match_id=w.match_id, seq=w.seq, seat=w.action[0], command=w.action[1],
                 source=w.action[2], created_at=now) for w, now in items if w.action])
        _INSERT_SNAPSHOT.run(conn, [
            dict(match_id=w.match_id, seq=w.seq, state=w.snapshot, created_at=now)
            for w, now in items if w.snapshot is not None])
        outbox = [dict(match_id=w.match_id, seq=w.seq, audience=m.audience, text=m.text,
                       payload=m.payload, created_at=now, attempts=0)
                  for w, now in items for m in w.outbox]
        all_ids = _insert_outbox(conn, outbox)
        _INSERT_DEADLINE.run(conn, [
            dict(match_id=w.match_id, prompt_key=c.key, seat=c.seat, started_at=c.started_at,
                 limit_at=c.limit_at, deadline_at=c.deadline_at,
                 reminders_sent=c.reminders_sent, status=c.status)
            for w, _ in items for c in w.clocks_new])
        _UPDATE_DEADLINE.run(conn, [
            dict(key_match_id=w.match_id, key_prompt_key=c.key, set_started_at=c.started_at,
                 set_limit_at=c.limit_at, set_deadline_at=c.deadline_at,
                 set_reminders_sent=c.reminders_sent, set_status=c.status)
            for w, _ in items for c in w.clocks_changed])
        ended = [w.match_id for w, _ in items if w.match_fields.get("status") in ENDED_STATUSES]
        # a match that ends keeps only its latest snapshot
        _OLD_SNAPSHOTS_OF.run(conn, [{"match_id": m} for m in ended])
        by_fields: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for w, now in items:
            fields = dict(w.match_fields, updated_at=now)
            if w.action is not None:
                fields["action_count"] = w.seq
            by_fields.setdefault(tuple(sorted(fields)), []).append(
                {"key_id": w.match_id, **{f"set_{k}": v for k, v in fields.items()}})
        for keys, rows in by_fields.items():
            _update_match(keys).run(conn, rows)
        for w, _ in items:
            for statement in w.also:
                statement(conn)
            if w.stops is not None:
                _replace_stops(conn, w.match_id, w.stops)
        return ids_per_write(items, all_ids)

    @_reading
    async def load_active(self) -> list[StoredMatch]:
        """Every active or paused match (of the shards owned) with its latest snapshot,
        later actions and clocks (four queries in all, however many matches)."""
        active = MatchRow.status.in_(ACTIVE_STATUSES) & self._in_scope()
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(MatchRow).where(active).order_by(MatchRow.id))).all()
            latest = (select(SnapshotRow.match_id, func.max(SnapshotRow.seq).label("seq"))
                      .join(MatchRow, MatchRow.id == SnapshotRow.match_id).where(active)
                      .group_by(SnapshotRow.match_id).subquery())
            snaps = (await conn.execute(
                select(SnapshotRow.match_id, SnapshotRow.seq, SnapshotRow.state).join(
                    latest, (latest.c.match_id == SnapshotRow.match_id) & (latest.c.seq == SnapshotRow.seq))
            )).all()
            snap_of = {s.match_id: (s.seq, s.state) for s in snaps}
            actions = (await conn.execute(
                select(ActionRow.match_id, ActionRow.seq, ActionRow.seat, _command_text)
                .join(MatchRow, MatchRow.id == ActionRow.match_id)
                .outerjoin(latest, latest.c.match_id == ActionRow.match_id)
                .where(active, ActionRow.seq > func.coalesce(latest.c.seq, 0))
                .order_by(ActionRow.match_id, ActionRow.seq)
            )).all()
            clocks = (await conn.execute(
                select(*_CLOCK_COLUMNS).join(MatchRow, MatchRow.id == DeadlineRow.match_id)
                .where(active, DeadlineRow.status.in_(LIVE_CLOCKS)).order_by(DeadlineRow.id)
            )).all()
        return _assemble(rows, snap_of, actions, clocks)

    @_reading
    async def active_ids(self, shards: set[int] | None = None) -> list[int]:
        """Ids of every active or paused match of `shards` (default: those owned), in order."""
        async with self.engine.connect() as conn:
            return [int(i) for i in (await conn.execute(
                select(MatchRow.id).where(MatchRow.status.in_(ACTIVE_STATUSES),
                                          self._in_scope(shards))
                .order_by(MatchRow.id))).scalars()]

    @_reading
    async def load_many(self, ids: list[int]) -> list[StoredMatch]:
        """These matches (any status) with their latest snapshot, later actions and armed
        clocks, in four queries however many there are: resume loads active matches in
        batches of a few hundred, so that no single step holds the event loop for long."""
        if not ids:
            return []
        batch = {"ids": ids}
        async with self.engine.connect() as conn:
            rows = (await conn.execute(_LOAD_ROWS, batch)).all()
            snap_of = {match_id: (seq, state) for match_id, seq, state
                       in (await conn.execute(_LOAD_SNAPSHOTS, batch)).all()}
            actions = (await conn.execute(_LOAD_ACTIONS, batch)).all()
            clocks = (await conn.execute(_LOAD_CLOCKS, batch)).all()
        return _assemble(rows, snap_of, actions, clocks)

    @_reading
    async def match_rows(self, ids: list[int]) -> list[MatchRow]:
        """Just the rows of these matches (who plays, where): no state is loaded."""
        if not ids:
            return []
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(MatchRow).where(MatchRow.id.in_(ids))
                                       .order_by(MatchRow.id))).all()
        return [MatchRow(**r._mapping) for r in rows]

    async def resume_clocks(self, downtime: timedelta, now: datetime) -> None:
        """One transaction: every live clock (armed, or waiting for a break to end) of every
        active (not paused) match moves later
        by `downtime`, in one UPDATE statement, and the heartbeat records `now` (so a crash
        right after cannot shift the clocks a second time). Run on start, before anything
        else writes: through the async engine, so that SQLite works in its own thread rather
        than on the event loop like the group-commit writer (with thousands of clocks the
        statement takes a while)."""
        def write(conn: Connection) -> None:
            self.shift_clocks(conn, downtime)
            if self.shards is None:  # sharded: each shard's lease is its heartbeat
                _beat(conn, now)

        async with self.engine.begin() as conn:
            await conn.run_sync(write)

    def shift_clocks(self, conn: Connection, downtime: timedelta,
                     shards: set[int] | None = None) -> None:
        """In `conn`'s transaction: move every live clock of every active match of `shards`
        (default: those owned) later by `downtime` (one statement)."""
        micro = downtime // timedelta(microseconds=1)
        scope = self.shards if shards is None else shards
        if micro > 0 and (scope is None or scope):
            conn.execute(_shift_statement(conn.dialect.name, micro, scope))
            # a stopped clock's stop moves with it: the downtime is not counted twice
            conn.execute(_shift_statement(conn.dialect.name, micro, scope, stops=True))

    @_reading
    async def stops(self, ids: list[int]) -> dict[int, dict[str, StopData]]:
        """The stored clock stops of these matches: match id -> prompt key -> stop."""
        found: dict[int, dict[str, StopData]] = {}
        if not ids:
            return found
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(
                ClockStopRow.match_id, ClockStopRow.prompt_key, ClockStopRow.since,
                ClockStopRow.channels).where(ClockStopRow.match_id.in_(ids)))).all()
        for row in rows:
            found.setdefault(row.match_id, {})[row.prompt_key] = StopData(
                row.since, set(row.channels or ()))
        return found

    @_reading
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
            select(*_CLOCK_COLUMNS).where(DeadlineRow.match_id == match.id, _live_clock)
            .order_by(DeadlineRow.id)
        )).all()
        return StoredMatch(
            row=match, snapshot_seq=snap_seq, snapshot=snap.state if snap else None,
            actions=[(a.seq, a.seat, a.command) for a in actions],
            clocks=[_clock(c) for c in clocks],
        )

    @_reading
    async def find_match_by_transport(self, key: str, value: Any) -> list[MatchRow]:
        """Matches whose transport data has `key` == value (e.g. a Discord channel id)."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(MatchRow).order_by(MatchRow.id.desc()))).all()
        return [MatchRow(**r._mapping) for r in rows if (r.transport or {}).get(key) == value]

    @_reading
    async def list_matches(self, limit: int = 50) -> list[MatchRow]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(MatchRow).order_by(MatchRow.id.desc()).limit(limit))).all()
        return [MatchRow(**r._mapping) for r in rows]

    @_reading
    async def ended_with_open_places(self, flag: str = "closed") -> list[MatchRow]:
        """Ended (finished or aborted) matches whose transport data has no true `flag`: their
        places (e.g. Discord channels) were never closed, say because the bot stopped between
        the last message and closing them."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                select(MatchRow).where(MatchRow.status.in_(ENDED_STATUSES), self._in_scope(),
                                       MatchRow.transport[flag].as_boolean().is_not(True))
                .order_by(MatchRow.id))).all()
        return [MatchRow(**r._mapping) for r in rows]

    async def set_transport(self, match_id: int, transport: dict[str, Any]) -> None:
        """Replace a match's transport data (sharded: fenced, as `merge_transport`)."""
        await self._fenced_run(transport_merge(match_id, transport, self.fence, replace=True))

    async def merge_transport(self, match_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        """Set some keys of a match's transport data, read and written in one transaction
        (two writers of different keys never undo each other); returns the merged data.
        Sharded, stored only under the lease of the match's shard held here now, checked in
        the same transaction (`FencedOut` otherwise, and the shard is lost here)."""
        return await self._fenced_run(transport_merge(match_id, changes, self.fence))

    async def run_for_match(self, match_id: int, fn: Callable[[Connection], R]) -> R:
        """Run statement `fn` in a transaction of its own, as a write of match `match_id`:
        sharded, only under the lease of the match's shard held here now, checked first in
        the same transaction (`FencedOut` otherwise, nothing stored, the shard lost here).
        For writes the match's own record does not carry (its ratings recomputed, say)."""
        def under_fence(conn: Connection) -> R:
            if self.fence is not None:
                shard = conn.execute(select(MatchRow.shard).where(
                    MatchRow.id == match_id)).scalar_one_or_none()
                if shard is not None:
                    self.fence.check(conn, {(int(shard), self.fence.token(int(shard)))})
            return fn(conn)
        return await self._fenced_run(under_fence)

    async def _fenced_run(self, fn: Callable[[Connection], R]) -> R:
        try:
            return await self.writer.run(fn)
        except FencedOut as exc:
            if self.fence is not None:
                self.fence.refused(exc.stamps)
            raise

    # --- the record ---------------------------------------------------------------------
    @_reading
    async def actions(self, match_id: int) -> list[ActionRow]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(ActionRow).where(ActionRow.match_id == match_id)
                                       .order_by(ActionRow.seq))).all()
        return [ActionRow(**r._mapping) for r in rows]

    @_reading
    async def messages(self, match_id: int) -> list[StoredMessage]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(OutboxRow).where(OutboxRow.match_id == match_id)
                                       .order_by(OutboxRow.id))).all()
        return [_message(r) for r in rows]

    # --- outbox -------------------------------------------------------------------------
    @_reading
    async def undelivered(self, shards: set[int] | None = None) -> list[StoredMessage]:
        """Messages not yet delivered, of the matches of `shards` (default: those owned)."""
        query = select(OutboxRow).where(OutboxRow.delivered_at.is_(None))
        scope = self.shards if shards is None else shards
        if scope is not None:
            query = query.join(MatchRow, MatchRow.id == OutboxRow.match_id).where(
                self._in_scope(scope))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query.order_by(OutboxRow.id))).all()
        return [_message(r) for r in rows]

    async def mark_delivered(self, ids: list[int], now: datetime) -> None:
        """Record that these messages were delivered, now (own transaction)."""
        self.queue_delivered(ids, now)
        await self.flush_delivered()

    def queue_delivered(self, ids: list[int], now: datetime) -> None:
        """Record delivered messages with the next transaction (no fsync of their own while
        moves are being stored; a crash before then only means they are sent again)."""
        self._delivered.extend(ids)
        self._delivered_at = now

    async def flush_delivered(self) -> None:
        """Store queued delivery marks now, if no other transaction has taken them; marks
        riding in a transaction under way are waited for (an empty job runs after it)."""
        if self._delivered or self.writer.busy:
            await self.writer.run(lambda conn: None)

    def _take_delivered(self) -> Extra | None:
        if not self._delivered or self._delivered_at is None:
            return None
        ids, now = self._delivered, self._delivered_at
        self._delivered = []

        def apply(conn: Connection) -> None:
            if self.fence is not None:  # only those of matches of shards still held
                conn.execute(self.fence.marks(ids, now))
                return
            _MARK_DELIVERED.run(conn, [{"key_id": i, "set_delivered_at": now} for i in ids])

        def undo() -> None:
            self._delivered[:0] = ids

        return Extra(apply, undo, data=(ids, now))

    @_reading
    async def count_undelivered(self) -> int:
        async with self.engine.connect() as conn:
            return int((await conn.execute(
                select(func.count()).select_from(OutboxRow).where(OutboxRow.delivered_at.is_(None))
            )).scalar_one())

    # --- keeping storage bounded --------------------------------------------------------
    async def prune(self, delivered_before: datetime | None, *, batch: int = 2000) -> Pruned:
        """Delete outbox rows delivered before `delivered_before` (None: none; the newest
        outbox row always stays, because SQLite numbers new rows after it and an id must
        never be used twice), every snapshot of an ended match but its latest, and every
        clock row of an ended match (one per decision ever made; nothing reads them once
        the match is over). In transactions of at most `batch` rows, so that no single one
        holds the writer long."""
        def outbox(conn: Connection) -> int:
            newest = select(func.max(OutboxRow.id)).correlate(None).scalar_subquery()
            doomed = (select(OutboxRow.id).where(OutboxRow.delivered_at.is_not(None),
                                                 OutboxRow.delivered_at < delivered_before,
                                                 OutboxRow.id < newest)
                      .order_by(OutboxRow.id).limit(batch).correlate(None))
            return int(conn.execute(delete(OutboxRow).where(
                OutboxRow.id.in_(doomed.scalar_subquery()))).rowcount or 0)

        def snapshots(conn: Connection) -> int:
            ended = select(MatchRow.id).where(MatchRow.status.in_(ENDED_STATUSES))
            doomed = (select(SnapshotRow.id).where(_NOT_LATEST, SnapshotRow.match_id.in_(
                ended.scalar_subquery())).limit(batch).correlate(None))
            return int(conn.execute(delete(SnapshotRow).where(
                SnapshotRow.id.in_(doomed.scalar_subquery()))).rowcount or 0)

        def clocks(conn: Connection) -> int:
            ended = select(MatchRow.id).where(MatchRow.status.in_(ENDED_STATUSES))
            doomed = (select(DeadlineRow.id).where(DeadlineRow.match_id.in_(
                ended.scalar_subquery())).limit(batch).correlate(None))
            conn.execute(delete(ClockStopRow).where(  # (a stop its match's end left behind)
                ClockStopRow.match_id.in_(ended.scalar_subquery())))
            return int(conn.execute(delete(DeadlineRow).where(
                DeadlineRow.id.in_(doomed.scalar_subquery()))).rowcount or 0)

        pruned = Pruned()
        while delivered_before is not None:
            done = await self.writer.run(outbox)
            pruned.messages += done
            if done < batch:
                break
        while True:
            done = await self.writer.run(snapshots)
            pruned.snapshots += done
            if done < batch:
                break
        while True:
            done = await self.writer.run(clocks)
            pruned.clocks += done
            if done < batch:
                break
        return pruned

    async def vacuum(self) -> None:
        """Give the space of deleted rows back: SQLite rewrites the file (VACUUM) and empties
        its WAL; PostgreSQL marks it reusable (plain VACUUM, which locks nothing)."""
        async with self.engine.connect() as conn:
            auto = await conn.execution_options(isolation_level="AUTOCOMMIT")
            if conn.dialect.name == "sqlite":
                await auto.exec_driver_sql("VACUUM")
                await auto.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            else:
                await auto.exec_driver_sql("VACUUM (ANALYZE)")

    # --- the service's heartbeat --------------------------------------------------------
    @_reading
    async def last_heartbeat(self) -> datetime | None:
        """The service's last beat. None when sharded: a shard's downtime is measured from
        its lease's last renewal, when the lease is taken (bot/store/leases.py)."""
        if self.shards is not None:
            return None
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(ServiceStateRow.value)
                                      .where(ServiceStateRow.key == HEARTBEAT_KEY))).first()
        return datetime.fromisoformat(row.value).astimezone(UTC) if row else None

    async def beat(self, now: datetime) -> None:
        if self.shards is not None:  # sharded: the shard keeper renews the leases instead
            return
        await self.writer.run(lambda conn: _beat(conn, now))


def _fenced_out(item: tuple[MatchWrite, datetime], exc: BaseException) -> bool:
    """Whether the writer's failed batch failed because of this write's fence: it is
    answered `FencedOut` and never tried again (the others are)."""
    write = item[0]
    return isinstance(exc, FencedOut) and write.fence in exc.stamps


def _replace_stops(conn: Connection, match_id: int, stops: dict[str, StopData]) -> None:
    """In `conn`'s transaction: the match's stored clock stops become `stops`."""
    conn.execute(delete(ClockStopRow).where(ClockStopRow.match_id == match_id))
    if stops:
        conn.execute(insert(ClockStopRow), [
            dict(match_id=match_id, prompt_key=key, since=stop.since,
                 channels=sorted(stop.channels)) for key, stop in stops.items()])


def _beat(conn: Connection, now: datetime) -> None:
    done = conn.execute(update(ServiceStateRow)
                        .where(ServiceStateRow.key == HEARTBEAT_KEY)
                        .values(value=now.isoformat(), updated_at=now))
    if done.rowcount == 0:
        conn.execute(insert(ServiceStateRow), dict(
            key=HEARTBEAT_KEY, value=now.isoformat(), updated_at=now))


def _shift_statement(dialect: str, micro: int, shards: set[int] | None = None, *,
                     stops: bool = False) -> Any:
    """UPDATE moving every armed clock of every active match (of `shards`, if given)
    `micro` microseconds later (`stops`: the `since` of every clock stop of those matches).
    SQLite stores these times as text 'YYYY-MM-DD HH:MM:SS.ffffff' (SQLAlchemy's format):
    whole seconds go through strftime, microseconds are added as an integer with the carry,
    so the result is exact (julianday arithmetic would round to about 10 microseconds).
    NULL times (no turn timer) stay NULL."""
    live = ", ".join(f"'{s}'" for s in LIVE_CLOCKS)
    in_shards = "" if shards is None else \
        f" AND shard IN ({', '.join(str(int(s)) for s in sorted(shards))})"
    where = (f"status IN ({live}) AND match_id IN "
             f"(SELECT id FROM matches WHERE status = 'active'{in_shards})")
    columns: tuple[str, ...] = ("started_at", "limit_at", "deadline_at")
    table = "deadlines"
    if stops:
        where = where.split(" AND ", 1)[1]
        columns, table = ("since",), "clock_stops"
    if dialect == "sqlite":
        seconds, rest = divmod(micro, 1_000_000)

        def shifted(c: str) -> str:
            frac = f"(CAST(substr({c}, 21, 6) AS INTEGER) + {rest})"
            return (f"strftime('%Y-%m-%d %H:%M:%S', substr({c}, 1, 19), '+' || "
                    f"({seconds} + {frac} / 1000000) || ' seconds') || '.' || "
                    f"printf('%06d', {frac} % 1000000)")

        sets = ", ".join(f"{c} = {shifted(c)}" for c in columns)
        return text(f"UPDATE {table} SET {sets} WHERE {where}")
    sets = ", ".join(f"{c} = {c} + make_interval(secs => :seconds)" for c in columns)
    return text(f"UPDATE {table} SET {sets} WHERE {where}").bindparams(
        seconds=micro / 1_000_000)


_INSERT_MATCH = insert_of(MatchRow.__table__, [
    "id", "game", "settings", "seed", "seed_commitment", "seed_salt", "match_commitment",
    "players", "status", "result",
    "transport", "action_count", "created_at", "updated_at", "shard"])
_INSERT_ACTION = insert_of(ActionRow.__table__,
                           ["match_id", "seq", "seat", "command", "source", "created_at"])
_INSERT_SNAPSHOT = insert_of(SnapshotRow.__table__, ["match_id", "seq", "state", "created_at"])
_OUTBOX_COLUMNS = ["match_id", "seq", "audience", "text", "payload", "created_at", "attempts"]
_INSERT_OUTBOX_WITH_ID = insert_of(OutboxRow.__table__, ["id", *_OUTBOX_COLUMNS])
_INSERT_DEADLINE = insert_of(DeadlineRow.__table__, [
    "match_id", "prompt_key", "seat", "started_at", "limit_at", "deadline_at", "reminders_sent",
    "status"])
_UPDATE_DEADLINE = update_of(DeadlineRow.__table__, ["match_id", "prompt_key"], [
    "started_at", "limit_at", "deadline_at", "reminders_sent", "status"])


_MARK_DELIVERED = Bulk(
    update(OutboxRow).where(OutboxRow.id == bindparam("key_id", type_=OutboxRow.id.type))
    .values(delivered_at=bindparam("set_delivered_at", type_=OutboxRow.delivered_at.type),
            attempts=OutboxRow.attempts + literal_column("1")),
    {"key_id": OutboxRow.id.type, "set_delivered_at": OutboxRow.delivered_at.type})


_LATER = SnapshotRow.__table__.alias("later")
#: A snapshot with a later one of the same match.
_NOT_LATEST = (select(_LATER.c.id).where(_LATER.c.match_id == SnapshotRow.match_id,
                                        _LATER.c.seq > SnapshotRow.seq).exists())
_OLD_SNAPSHOTS = delete(SnapshotRow).where(_NOT_LATEST)
#: The older snapshots of one match (built once: it runs in each match's ending write).
_OLD_SNAPSHOTS_OF = Bulk(
    _OLD_SNAPSHOTS.where(SnapshotRow.match_id == bindparam("match_id",
                                                           type_=SnapshotRow.match_id.type)),
    {"match_id": SnapshotRow.match_id.type})


@cache
def _update_match(columns: tuple[str, ...]) -> Bulk:
    return update_of(MatchRow.__table__, ["id"], list(columns))


def _insert_outbox(conn: Connection, rows: list[dict[str, Any]]) -> list[int]:
    """Insert outbox rows; return their ids in order. On SQLite the single writer numbers them
    itself (one bulk insert, no RETURNING); elsewhere the database does, with RETURNING."""
    if not rows:
        return []
    if conn.dialect.name == "sqlite":
        first = int(scalar_raw(conn, "SELECT coalesce(max(id), 0) FROM outbox")) + 1
        ids = list(range(first, first + len(rows)))
        _INSERT_OUTBOX_WITH_ID.run(conn, [dict(row, id=i) for row, i in zip(rows, ids, strict=True)])
        return ids
    # Ids first, then one INSERT of fixed text: an INSERT ... RETURNING of many rows is
    # rendered with one VALUES group per row, so each count of messages was a statement of
    # its own, prepared and cached by every connection (22 KB more memory per finished
    # match in bench.service, until the caches filled).
    ids = sorted(int(i) for i in conn.execute(_RESERVE_OUTBOX_IDS, {"n": len(rows)}).scalars())
    conn.execute(insert(OutboxRow), [dict(row, id=i) for row, i in zip(rows, ids, strict=True)])
    return ids


#: `n` new outbox ids from the table's sequence (PostgreSQL), in one statement of fixed text.
_RESERVE_OUTBOX_IDS = text("SELECT nextval(pg_get_serial_sequence('outbox', 'id')) "
                           "FROM generate_series(1, :n)")


#: An action's command as its stored JSON text: parsed only when its match is rebuilt
#: (`LiveMatch.hydrate`), so that loading thousands of running matches stays cheap.
_command_text = cast(ActionRow.command, Text).label("command_text")
#: A live clock, written so that the database looks clocks up by their match (the
#: (match_id, prompt_key) key) and filters the status after: through the status index,
#: SQLite visited every live clock of every match for each batch of a resume.
_live_clock = func.coalesce(DeadlineRow.status, "").in_(LIVE_CLOCKS)

# `load_many`'s four reads, built once: a batch's ids are one expanding parameter (building
# the statements with each batch's 250 ids took an eighth of a resume's time on the loop).
_IDS: BindParameter[Any] = bindparam("ids", expanding=True)
#: A live clock's columns, as `_clock` unpacks them.
_CLOCK_COLUMNS = (DeadlineRow.match_id, DeadlineRow.prompt_key, DeadlineRow.seat,
                  DeadlineRow.started_at, DeadlineRow.limit_at, DeadlineRow.deadline_at,
                  DeadlineRow.reminders_sent, DeadlineRow.status)
_LOAD_ROWS = select(MatchRow).where(MatchRow.id.in_(_IDS)).order_by(MatchRow.id)
_latest_snapshot = (select(SnapshotRow.match_id, func.max(SnapshotRow.seq).label("seq"))
                    .where(SnapshotRow.match_id.in_(_IDS))
                    .group_by(SnapshotRow.match_id).subquery())
_LOAD_SNAPSHOTS = select(SnapshotRow.match_id, SnapshotRow.seq, SnapshotRow.state).join(
    _latest_snapshot, (_latest_snapshot.c.match_id == SnapshotRow.match_id)
    & (_latest_snapshot.c.seq == SnapshotRow.seq))
_LOAD_ACTIONS = (select(ActionRow.match_id, ActionRow.seq, ActionRow.seat, _command_text)
                 .outerjoin(_latest_snapshot, _latest_snapshot.c.match_id == ActionRow.match_id)
                 .where(ActionRow.match_id.in_(_IDS),
                        ActionRow.seq > func.coalesce(_latest_snapshot.c.seq, 0))
                 .order_by(ActionRow.match_id, ActionRow.seq))
_LOAD_CLOCKS = (select(*_CLOCK_COLUMNS).where(DeadlineRow.match_id.in_(_IDS), _live_clock)
                .order_by(DeadlineRow.id))


def _clock(row: Any) -> ClockData:
    """A live clock from a row of `_CLOCK_COLUMNS` (unpacked: thousands of rows on a resume)."""
    _, key, seat, started, limit, deadline, reminders, status = row
    return ClockData(key, seat, started, limit, deadline, reminders, status)


def _message(r: Any) -> StoredMessage:
    return StoredMessage(id=r.id, match_id=r.match_id, seq=r.seq, audience=r.audience,
                         text=r.text, payload=r.payload or {}, created_at=r.created_at,
                         delivered_at=r.delivered_at)


def _assemble(rows: Any, snap_of: dict[int, Any], actions: Any, clocks: Any) -> list[StoredMatch]:
    """Stored matches from their rows, latest snapshots, actions and live clocks."""
    by_match: dict[int, StoredMatch] = {}
    for r in rows:
        seq, state = snap_of.get(r.id, (0, None))
        by_match[r.id] = StoredMatch(row=r, snapshot_seq=seq,
                                     snapshot=state, actions=[], clocks=[])
    for match_id, seq, seat, command in actions:  # unpacked: thousands of rows on a resume
        by_match[match_id].actions.append((seq, seat, command))
    for row in clocks:
        by_match[row[0]].clocks.append(_clock(row))
    return list(by_match.values())
