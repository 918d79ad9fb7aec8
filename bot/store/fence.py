"""Fencing: a process writes for a sharded match only while it still holds the shard's lease,
at the generation it took the lease at, checked in the write's own transaction.

A lease's `generation` grows by one each time the lease is taken (bot/store/leases.py). The
shard keeper records here, for each shard it holds, that generation and until when it may act
on the shard without a renewal (two thirds of the lease after the last one: bot/shards.py).
Each write of a sharded match carries the generation its writer held when it was made
(`MatchWrite.fence`, from `token`); the store makes the write only if the lease row still
names this process at that generation, in the same transaction (one statement on the
single-statement path), and locks the row for share until the transaction ends, so a
takeover, which updates the row, waits for the write and reads what it stored. A write the
fence refuses stores nothing (`FencedOut`), its shard is dropped at once (`on_lost`) and it
is never retried.

A transaction is begun only before the deadline (`admit`), and a process paused in the
middle of one cannot hold a takeover up: a sharded process's PostgreSQL sessions end a
transaction left idle for a third of the lease (`bound_idle_transactions`), so the locks
of a transaction begun before the two-thirds deadline are gone when the lease expires.

`live` is the check before acting: a timer, a bot's move or a delivery of the shard runs only
while the wall clock is before the shard's two-thirds deadline. After a pause (a stopped
process, a frozen machine) every callback that was due runs at once, the keeper's renewal
among them; the deadline, read from the wall clock, decides for each of them, whatever the
renewal may answer later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, event, false, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.models import MatchRow, OutboxRow, ShardLeaseRow

log = logging.getLogger(__name__)

#: A write's fence: (shard, the lease generation its writer held).
Stamp = tuple[int, int]


class FencedOut(Exception):
    """Writes refused: this process no longer holds the leases they were made under
    (`stamps`: shard, generation). Nothing of them was stored; never retried."""

    def __init__(self, stamps: Iterable[Stamp], why: str = "refused by the fence") -> None:
        self.stamps = set(stamps)
        self.shards = {s for s, _ in self.stamps}
        super().__init__(f"shards {sorted(self.shards)}: {why}: another process may "
                         "umpire them now")


@dataclass
class Hold:
    generation: int
    valid_until: datetime


class Fence:
    """The leases this process holds, as the shard keeper took and renewed them."""

    def __init__(self, owner: str, now: Callable[[], datetime]) -> None:
        self.owner = owner
        self.now = now
        self.holds: dict[int, Hold] = {}
        #: Called with shards just lost here (a deadline passed, or the store refused a
        #: write): the keeper drops them.
        self.on_lost: Callable[[set[int]], None] | None = None

    def hold(self, shard: int, generation: int, valid_until: datetime) -> None:
        self.holds[shard] = Hold(generation, valid_until)

    def extend(self, shard: int, valid_until: datetime) -> None:
        """A renewal made at `valid_until` minus two thirds of the lease: later only (a
        renewal answered after a newer take or renewal leaves that one's deadline)."""
        hold = self.holds.get(shard)
        if hold is not None:
            hold.valid_until = max(hold.valid_until, valid_until)

    def release(self, shards: Iterable[int]) -> None:
        for shard in shards:
            self.holds.pop(shard, None)

    def live(self, shard: int) -> bool:
        """Whether this process may act on `shard` now: it holds the lease and the wall clock
        is before its two-thirds deadline. A deadline found passed loses the shard."""
        hold = self.holds.get(shard)
        if hold is None:
            return False
        now = self.now()
        if now < hold.valid_until:
            return True
        log.warning("shard %d: %.2f s past its lease's deadline (no renewal in time)", shard,
                    (now - hold.valid_until).total_seconds())
        self.lost({shard})
        return False

    def token(self, shard: int) -> int:
        """The generation a write for `shard` is made under; `FencedOut` if not `live`."""
        if not self.live(shard):
            raise FencedOut({(shard, 0)}, "not held here (lost, or its deadline passed)")
        return self.holds[shard].generation

    def lost(self, shards: set[int]) -> None:
        """These shards are lost here: no write or act of theirs goes on; the keeper drops them."""
        held = {s for s in shards if s in self.holds}
        self.release(held)
        if held and self.on_lost is not None:
            self.on_lost(held)

    def refused(self, stamps: set[Stamp]) -> None:
        """The store refused writes made under these leases: those still held here at
        those generations are lost (not a lease taken again since, at a newer one)."""
        self.lost({s for s, g in stamps
                   if (hold := self.holds.get(s)) is not None and hold.generation == g})

    def held(self) -> dict[int, int]:
        """shard -> generation, of the shards live now."""
        return {s: h.generation for s, h in list(self.holds.items()) if self.live(s)}

    def admit(self, stamps: set[Stamp]) -> None:
        """Before a batch is sent to the store: `FencedOut` for the stamps of shards not
        live here now at their generation (a deadline passed while the write queued: its
        transaction is not begun, so none holds a lock past the deadline)."""
        refused = {(s, g) for s, g in stamps
                   if not self.live(s) or self.holds[s].generation != g}
        if refused:
            raise FencedOut(refused, "not held here at its generation (lost, or its deadline "
                            "passed)")

    # --- in the write's transaction ----------------------------------------------------
    def check(self, conn: Connection, stamps: set[Stamp]) -> None:
        """In `conn`'s transaction: lock the lease rows of `stamps` for share and raise
        `FencedOut` for each shard whose lease is no longer this process's at the stamped
        generation (the transaction then stores nothing)."""
        if not stamps:
            return
        self.admit(stamps)
        rows = conn.execute(select(ShardLeaseRow.shard, ShardLeaseRow.generation)
                            .where(ShardLeaseRow.shard.in_(sorted({s for s, _ in stamps})),
                                   ShardLeaseRow.owner == self.owner)
                            .with_for_update(read=True)).all()
        found = {(int(r.shard), int(r.generation)) for r in rows}
        refused = {(s, g) for s, g in stamps if (s, g) not in found}
        if refused:
            raise FencedOut(refused)

    def marks(self, ids: list[int], at: datetime) -> Any:
        """The UPDATE marking these messages delivered at `at`, only those of the matches
        of the shards held here now (a mark of a lost shard is left to its new owner)."""
        held = self.held()
        lease_now = or_(*(and_(ShardLeaseRow.shard == s, ShardLeaseRow.generation == g)
                          for s, g in held.items())) if held else false()
        ours = (select(MatchRow.id)
                .join(ShardLeaseRow, ShardLeaseRow.shard == MatchRow.shard)
                .where(MatchRow.id == OutboxRow.match_id, ShardLeaseRow.owner == self.owner,
                       lease_now).exists())
        return (update(OutboxRow).where(OutboxRow.id.in_(ids), ours)
                .values(delivered_at=at, attempts=OutboxRow.attempts + 1))


def bound_idle_transactions(engine: AsyncEngine, seconds: float) -> None:
    """PostgreSQL: every session of `engine` ends a transaction left idle in the middle for
    `seconds` (the server's `idle_in_transaction_session_timeout`: it rolls the transaction
    back and closes the session, which frees its locks). So a process paused inside a
    transaction (the lease row locked for share by `check`, match rows by its writes) holds
    no takeover up for longer. Set on each connection the first time the pool hands it out
    (connections opened before the call included); a transaction cut this way stored
    nothing, and its write is tried again on a new connection, where the fence decides."""
    if engine.dialect.name != "postgresql":
        return
    ms = max(1, round(seconds * 1000))

    def bound(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if record.info.get("idle_in_transaction_ms") != ms:
            dbapi_connection.run_async(lambda driver: driver.execute(
                f"SET idle_in_transaction_session_timeout = {ms}"))
            record.info["idle_in_transaction_ms"] = ms

    event.listen(engine.sync_engine, "checkout", bound)


def fenced(repo: Any, write: Any, transport: dict[str, Any]) -> Any:
    """`repo.stamp(write, transport)` when the store is sharded (it has a fence); the write
    unchanged otherwise (also for a stand-in store without fencing)."""
    if getattr(repo, "fence", None) is not None:
        repo.stamp(write, transport)
    return write


def acting(repo: Any, transport: dict[str, Any]) -> bool:
    """Whether this process may act for a match played where `transport` says: always when
    the store has no fence (not sharded); else while `Fence.live` for the match's shard."""
    fence = getattr(repo, "fence", None)
    return fence is None or fence.live(repo.shard_for(transport))


def stamps_of(writes: Iterable[Any]) -> set[Stamp]:
    """The fences of these match writes (those that carry one)."""
    return {w.fence for w in writes if w.fence is not None}
