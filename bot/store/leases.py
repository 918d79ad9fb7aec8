"""Shard leases: which process umpires which servers' matches.

A match belongs to shard `shard_of(guild id, shard count)` (Discord's own formula). Each
shard has one row in `shard_leases`: its owner and until when the lease holds. The owner
renews it every few seconds; a lease that has expired (its process died or lost the
database) may be taken by another process. Taking a lease is one transaction that locks the
row (SELECT ... FOR UPDATE on PostgreSQL) and updates it only if it is still free, expired
or already ours, so two processes never both own a shard. The same transaction can shift the
shard's clocks by its downtime (`on_taken`), so a crash never shifts them twice or not at all.
Each take adds one to the lease's `generation`, the fencing token the writes of the shard's
matches are checked against (bot/store/fence.py): a process that lost a lease can no longer
write for its matches, whatever it believes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.models import ServiceStateRow, ShardLeaseRow

#: The expiry of a lease row nobody has held yet (long past).
NEVER = datetime(2000, 1, 1, tzinfo=UTC)
HEARTBEAT_KEY = "heartbeat"  # the unsharded service's heartbeat (bot/store/repository.py)


def shard_of(guild_id: int, shard_count: int) -> int:
    """Discord's shard of a server: (guild id >> 22) % shard count; 0 off a server."""
    if shard_count <= 1 or not guild_id:
        return 0
    return (int(guild_id) >> 22) % shard_count


@dataclass(frozen=True)
class Taken:
    """A lease just taken: `downtime` is how long nobody umpired the shard (since its last
    owner's last renewal, or release)."""

    shard: int
    downtime: timedelta
    previous_owner: str
    #: The lease's generation now (one more than before): the fencing token of this hold.
    generation: int = 0


#: Work done in the transaction that takes a lease (e.g. shifting the shard's clocks).
OnTaken = Callable[[Connection, Taken], None]


class Leases:
    """Take, renew, release and inspect shard leases as `owner`."""

    def __init__(self, engine: AsyncEngine, owner: str, ttl: timedelta) -> None:
        self.engine = engine
        self.owner = owner
        self.ttl = ttl

    async def take(self, shard: int, now: datetime, *, on_taken: OnTaken | None = None,
                   only_if_held_before: bool = False) -> Taken | None:
        """Take `shard` if its lease is free, expired or ours; None if another process holds
        it (or wins the race for it). `only_if_held_before`: take it only from a process
        that held it (a shard nobody ever started is left to the process meant for it)."""
        def run(conn: Connection) -> Taken | None:
            conn.execute(_insert_ignore(conn, dict(shard=shard, owner="", expires_at=NEVER,
                                                   heartbeat_at=None)))
            row = conn.execute(select(ShardLeaseRow.owner, ShardLeaseRow.expires_at,
                                      ShardLeaseRow.heartbeat_at, ShardLeaseRow.generation)
                               .where(ShardLeaseRow.shard == shard).with_for_update()).one()
            ours = row.owner == self.owner
            if not ours and row.expires_at > now:
                return None
            if not ours and only_if_held_before and not row.owner and row.heartbeat_at is None:
                return None
            done = conn.execute(
                update(ShardLeaseRow)
                .where(ShardLeaseRow.shard == shard,
                       (ShardLeaseRow.owner == self.owner) | (ShardLeaseRow.expires_at <= now))
                .values(owner=self.owner, expires_at=now + self.ttl, heartbeat_at=now,
                        wanted_by=None, generation=ShardLeaseRow.generation + 1))
            if done.rowcount != 1:
                return None
            last = row.heartbeat_at if row.heartbeat_at is not None else _service_beat(conn)
            downtime = timedelta(0) if last is None else max(timedelta(0), now - last)
            taken = Taken(shard, downtime, row.owner, int(row.generation) + 1)
            if on_taken is not None:
                on_taken(conn, taken)
            return taken

        try:
            async with self.engine.begin() as conn:
                return await conn.run_sync(run)
        except OperationalError:  # SQLite: another process wrote first (busy): not ours
            return None

    async def renew(self, shards: Iterable[int], now: datetime) -> set[int]:
        """Extend our leases of `shards` to `now` plus the TTL; return the shards still ours.
        One autocommitted statement (no BEGIN and COMMIT to wait for: a renewal is the
        shard's heartbeat, and a slow one costs the shard). Renewals may overlap: neither
        the expiry nor the last renewal ever moves back (a renewal answered late, after a
        newer one, leaves the newer one's)."""
        wanted = sorted(shards)
        if not wanted:
            return set()
        until = now + self.ttl
        async with self.engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            rows = await conn.execute(
                update(ShardLeaseRow)
                .where(ShardLeaseRow.shard.in_(wanted), ShardLeaseRow.owner == self.owner)
                .values(expires_at=_later(ShardLeaseRow.expires_at, until),
                        heartbeat_at=_later(ShardLeaseRow.heartbeat_at, now))
                .returning(ShardLeaseRow.shard))
            return {int(s) for s in rows.scalars()}

    async def release(self, shards: Iterable[int], now: datetime) -> None:
        """Give our leases of `shards` up now (a clean stop): another process may take them
        at once; its downtime counts from now."""
        wanted = sorted(shards)
        if not wanted:
            return
        async with self.engine.begin() as conn:
            await conn.execute(
                update(ShardLeaseRow)
                .where(ShardLeaseRow.shard.in_(wanted), ShardLeaseRow.owner == self.owner)
                .values(owner="", expires_at=now, heartbeat_at=now))

    async def takeable(self, shards: Iterable[int], now: datetime) -> list[int]:
        """Which of `shards` another process held and no longer holds (its lease expired or
        was released): those a process may take over. A shard handed back to the process
        that asked for it is left to that process (for a TTL: it may have died since).
        A lease still ours is takeable too: the caller asks only about shards it does not
        hold, so that is one it dropped (its deadline passed) and nobody took since; left
        alone, nobody would ever take it again."""
        wanted = sorted(shards)
        if not wanted:
            return []
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(ShardLeaseRow.shard).where(
                    ShardLeaseRow.shard.in_(wanted),
                    (ShardLeaseRow.owner == self.owner) | and_(
                        ShardLeaseRow.expires_at <= now, ShardLeaseRow.heartbeat_at.is_not(None),
                        ShardLeaseRow.wanted_by.is_(None)
                        | (ShardLeaseRow.wanted_by == self.owner)
                        | (ShardLeaseRow.expires_at <= now - self.ttl)))
                .order_by(ShardLeaseRow.shard))
            return [int(s) for s in rows.scalars()]

    async def want(self, shards: Iterable[int], now: datetime) -> None:
        """Ask the live owners of `shards` (this process's preferred shards, taken over
        while it was down) to hand them back: they release them, then we take them."""
        wanted = sorted(shards)
        if not wanted:
            return
        async with self.engine.begin() as conn:
            await conn.execute(
                update(ShardLeaseRow)
                .where(ShardLeaseRow.shard.in_(wanted), ShardLeaseRow.owner != self.owner,
                       ShardLeaseRow.owner != "", ShardLeaseRow.expires_at > now,
                       ShardLeaseRow.wanted_by.is_distinct_from(self.owner))
                .values(wanted_by=self.owner))

    async def asked_back(self, shards: Iterable[int]) -> set[int]:
        """Which of our `shards` another process asks back (`want`)."""
        wanted = sorted(shards)
        if not wanted:
            return set()
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(ShardLeaseRow.shard).where(
                    ShardLeaseRow.shard.in_(wanted), ShardLeaseRow.owner == self.owner,
                    ShardLeaseRow.wanted_by.is_not(None), ShardLeaseRow.wanted_by != self.owner))
            return {int(s) for s in rows.scalars()}

    async def owners(self) -> dict[int, tuple[str, datetime]]:
        """Every lease: shard -> (owner, expires at)."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(ShardLeaseRow.shard, ShardLeaseRow.owner,
                                              ShardLeaseRow.expires_at))).all()
            return {int(r.shard): (r.owner, r.expires_at) for r in rows}


def _later(column: Any, value: datetime) -> Any:
    """`value`, unless the column already holds a later time (NULL: `value`)."""
    return case((column > value, column), else_=value)


def _insert_ignore(conn: Connection, values: dict[str, object]):  # type: ignore[no-untyped-def]
    """INSERT ... ON CONFLICT DO NOTHING (a concurrent insert of the same shard waits, then
    does nothing)."""
    make = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    return make(ShardLeaseRow).values(**values).on_conflict_do_nothing(
        index_elements=[ShardLeaseRow.shard])


def _service_beat(conn: Connection) -> datetime | None:
    """The unsharded service's last heartbeat: the downtime of a shard nobody has leased yet
    (the first sharded start of a database one process umpired until now)."""
    value = conn.execute(select(ServiceStateRow.value)
                         .where(ServiceStateRow.key == HEARTBEAT_KEY)).scalar()
    return datetime.fromisoformat(value).astimezone(UTC) if value else None
