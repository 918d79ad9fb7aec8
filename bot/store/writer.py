"""Group commit: every write waiting at the same moment shares one transaction.

SQLite has one writer and each commit costs an fsync, so committing 200 matches' moves one
by one makes each move wait for all the others. The writer takes every queued write and
stores them in one transaction, with one bulk statement per table for the match writes
(each write's rows go in together, so each stays atomic), commits once, then answers every
caller. If the shared transaction fails, each write is retried alone, so one bad write never
takes the others down with it.

Jobs are synchronous SQLAlchemy Core functions. On an SQLite file the whole transaction
runs right on the event loop, on the writer's own synchronous connection (WAL lets it write
beside the async readers): its statements take a few hundred microseconds and its one fsync
well under a millisecond, while a trip to a worker thread costs more than that, since the
thread must win the GIL back from the busy loop after its fsync (measured: p99 5.7 ms in a
thread against 3.4 ms on the loop, bench/service.py; with only the COMMIT in a thread, at
GIL switch intervals of 5 to 0.5 ms, p99 28 to 45 ms against 12 to 20 ms on the loop:
docs/bench.md, "Where the command latency goes"). Since it runs on the loop anyway,
a write someone waits on (`at_once`: a player's or a host's move) is stored by its caller
at once, without the two waits in the loop's queue a trip through the writer task costs;
other writes queue and share one transaction (`_can_store_now`). WAL checkpoints, the one
slow part, run in their own thread (`checkpoint.py`).

Another process may hold the file's write lock (a backup, `umpire vacuum`, a second bot).
The writer's connection therefore waits for no lock (`busy_timeout=0`, database.py): a
transaction that finds the file locked fails at once, having stored nothing, and the writer
task tries it again after a pause (`asyncio.sleep`, 2 ms doubling to 50 ms), so the loop
keeps serving every other match; writes made meanwhile queue behind it. A write still not
stored `wait` seconds (database.store_wait_seconds) after it was made is answered with
`StoreUnavailable`; nothing of it was stored. The path without a lock costs nothing more.

Elsewhere (PostgreSQL) a batch of plain writes is one autocommitted statement
(`one_statement`: single_statement.py), one round trip to the server instead of about
seven; any other batch runs through `AsyncConnection.run_sync`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.store.checkpoint import WalCheckpointer
from bot.store.database import UNREACHABLE_WAIT_SECONDS, reconnecting, unreachable
from bot.store.errors import StoreUnavailable

log = logging.getLogger(__name__)

#: A transaction on the event loop taking longer than this is logged: every match waited.
SLOW_COMMIT_SECONDS = 0.1
#: How long a write waits for a database file another process holds locked, by default.
STORE_WAIT_SECONDS = 5.0
#: The first and the longest pause between two tries while the file is locked.
LOCKED_PAUSE_FIRST, LOCKED_PAUSE_MOST = 0.002, 0.05

T = TypeVar("T")
W = TypeVar("W")
Job = tuple[str, Any, asyncio.Future[Any]]  # ("write", item, future) | ("run", fn, future)
BulkFn = Callable[[Connection, list[Any]], list[Any]]


@dataclass(frozen=True)
class Extra:
    """Work that rides along in the next transaction: e.g. marking delivered messages, so
    that they cost no transaction of their own while moves flow."""

    apply: Callable[[Connection], None]
    undo: Callable[[], None]  # put the work back, when the transaction failed
    data: Any = None  # what `apply` stores, for a path without SQLAlchemy (OneStatement)


class OneStatement(Protocol):
    """A faster path for a batch of plain writes than the shared transaction
    (single_statement.py: PostgreSQL)."""

    def fits(self, items: list[Any]) -> bool: ...

    async def store(self, items: list[Any], extra: Extra | None) -> list[Any]: ...

    async def close(self) -> None: ...


class BatchWriter(Generic[W]):
    """Queues writes; one task commits everything queued in one transaction.

    `bulk(conn, items)` stores a list of items (at most one per `key(item)`, e.g. per match:
    a match never has two writes in flight since it holds its lock until its write commits;
    should it happen, the items are split into consecutive groups) and returns one result
    per item. `run(fn)` runs any other statement in the same transaction.
    """

    def __init__(self, engine: AsyncEngine, bulk: BulkFn, *, sync_engine: Engine | None = None,
                 max_batch: int = 500,
                 key: Callable[[Any], Any] = lambda item: item[0].match_id,
                 extras: Callable[[], Extra | None] = lambda: None,
                 one_statement: OneStatement | None = None,
                 wait: float = STORE_WAIT_SECONDS,
                 landed: Callable[[list[Any]], Awaitable[list[Any] | None]] | None = None,
                 refuses: Callable[[Any, BaseException], bool] = lambda item, exc: False,
                 ) -> None:
        self.engine = engine
        #: Whether a failed batch's error refuses this write for good (a fence: bot/store/
        #: fence.py): it is answered with the error and never tried again; the rest are.
        self.refuses = refuses
        #: Seconds a write may wait for a locked file before it is refused (StoreUnavailable).
        self.wait = wait
        self.one_statement = one_statement
        #: On a database server: whether a batch of writes is stored already (each write's
        #: result if so, else None), asked after a connection was lost mid-batch.
        self.landed = landed
        self.extras = extras
        self.sync_engine = sync_engine
        self.checkpointer = WalCheckpointer(sync_engine) if sync_engine is not None else None
        self.bulk = bulk
        self.key = key
        self.max_batch = max_batch
        self._conn: Connection | None = None  # the writer's own connection, held open
        self._busy = False  # a batch is being stored (close() waits for it)
        self._queue: list[Job] = []
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._made: dict[asyncio.Future[Any], float] = {}  # queued writes: when made
        self.batches = 0
        self.items = 0
        self.refused = 0  # writes refused after waiting `wait` s for a locked file
        #: How long a batch waits for a database server that cannot be reached.
        self.unreachable_wait = UNREACHABLE_WAIT_SECONDS

    async def write(self, item: W, *, at_once: bool = False) -> Any:
        """Store `item`; return its result once committed. `at_once`: someone is waiting
        on this write (a player's or a host's move); see `_can_store_now`."""
        return await self._enqueue("write", item, at_once)

    async def run(self, fn: Callable[[Connection], T]) -> T:
        """Run `fn` inside the next shared transaction; return its result once committed."""
        return await self._enqueue("run", fn, False)

    async def _enqueue(self, kind: str, payload: Any, at_once: bool) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if at_once and self._can_store_now() and self._store_now((kind, payload, future)):
            return future.result()
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._loop(), name="umpire-store-writer")
        self._made[future] = time.monotonic()
        self._queue.append((kind, payload, future))
        assert self._wake is not None
        self._wake.set()
        return await future

    def cancel(self, doomed: Callable[[Any], bool],
               exc: Callable[[Any], BaseException]) -> int:
        """Take the queued writes for which `doomed(item)` out of the queue, answered with
        `exc(item)` (their shard was dropped: none may be stored); how many. A batch
        already being stored is not touched (its fence decides)."""
        keep: list[Job] = []
        taken = 0
        for job in self._queue:
            kind, payload, future = job
            if kind == "write" and doomed(payload):
                taken += 1
                self._made.pop(future, None)
                _settle(future, exc=exc(payload))
            else:
                keep.append(job)
        self._queue[:] = keep
        return taken

    @property
    def busy(self) -> bool:
        """Writes are queued or a batch is being stored (delivery marks may ride in it)."""
        return self._busy or bool(self._queue)

    def _can_store_now(self) -> bool:
        """On SQLite, unless a batch or a checkpoint's last step is under way, a write
        someone waits on is stored by its caller, at once.

        The transaction runs on the loop either way; through the writer task a write waits
        twice in the loop's queue, for the writer to wake and then for the caller to, behind
        whatever else is ready. Other writes (clocks running out, bots' moves, deliveries)
        still queue and share a transaction: clocks fall due in bunches, and one commit for
        a bunch is what keeps the last of them on time."""
        return (self.sync_engine is not None and not self._busy
                and not (self.checkpointer is not None and self.checkpointer.restart_due))

    def _store_now(self, job: Job) -> bool:
        """Store one job in the caller's task, at once (SQLite: the transaction is
        synchronous), and settle its future. False: the file is locked and nothing was
        stored; the job should queue (the writer task waits for the lock without the loop)."""
        extra = self.extras()
        self._busy = True
        try:
            results = self._sqlite_transaction([job], extra)
        except BaseException as exc:
            if extra is not None:
                extra.undo()  # put the ride-along work back for the next transaction
            if not isinstance(exc, Exception):
                raise
            if _locked(exc):
                return False
            _settle(job[2], exc=exc)
            return True
        finally:
            self._busy = False
        self._answer([job], results)
        return True

    async def close(self) -> None:
        """Finish what is queued (and the batch under way), then stop."""
        while (self._queue or self._busy) and self._task and not self._task.done():
            await asyncio.sleep(0.001)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self.one_statement is not None:
            await self.one_statement.close()
        if self.checkpointer is not None:
            await asyncio.to_thread(self.checkpointer.stop)
        if self.sync_engine is not None:
            self.sync_engine.dispose()

    async def _loop(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                self._busy = True
                try:
                    if self.checkpointer is not None and self.checkpointer.restart_due:
                        await self._finish_checkpoint()
                    batch = self._queue[: self.max_batch]
                    del self._queue[: self.max_batch]
                    futures = [future for _, _, future in batch]
                    await self._commit(batch)
                    for future in futures:  # answered
                        self._made.pop(future, None)
                finally:
                    self._busy = False

    def _store(self, conn: Connection, batch: list[Job]) -> list[Any]:
        results: list[Any] = [None] * len(batch)
        group: list[int] = []
        keys: set[Any] = set()

        def flush() -> None:
            if group:
                stored = self.bulk(conn, [batch[i][1] for i in group])
                for i, result in zip(group, stored, strict=True):
                    results[i] = result
                group.clear()
                keys.clear()

        for i, (kind, payload, _) in enumerate(batch):
            if kind == "run":
                flush()
                results[i] = payload(conn)
                continue
            key = self.key(payload)
            if key in keys:
                flush()
            group.append(i)
            keys.add(key)
        flush()
        return results

    def _store_with(self, conn: Connection, batch: list[Job], extra: Extra | None) -> list[Any]:
        results = self._store(conn, batch)
        if extra is not None:
            extra.apply(conn)
        return results

    def _sqlite_transaction(self, batch: list[Job], extra: Extra | None) -> list[Any]:
        """The batch in one transaction on the writer's own connection, on the loop."""
        start = time.perf_counter()
        conn = self._writer_connection()
        with conn.begin():
            results = self._store_with(conn, batch, extra)
        if self.checkpointer is not None:
            self.checkpointer.committed()
        took = time.perf_counter() - start
        if took > SLOW_COMMIT_SECONDS:
            log.warning("a commit of %d writes took %.0f ms on the event loop: the disk is "
                        "slow, or another process holds the database", len(batch), took * 1000)
        return results

    async def _sqlite_waiting(self, batch: list[Job], extra: Extra | None) -> list[Any]:
        """`_sqlite_transaction`, tried again after a pause on the loop while another
        process holds the file locked. Each try stores the whole batch (and `extra`) or
        nothing. A write not stored `wait` s after it was made, or whose caller gave up, is
        taken out of `batch` (answered StoreUnavailable); once none is left, this raises
        StoreUnavailable."""
        pause, since = LOCKED_PAUSE_FIRST, None
        while True:
            try:
                results = self._sqlite_transaction(batch, extra)
            except Exception as exc:
                if not _locked(exc):
                    raise
            else:
                if since is not None:
                    log.warning("the database file was locked by another process: %d writes "
                                "waited %.1f s for it", len(batch), time.monotonic() - since)
                return results
            now = time.monotonic()
            if since is None:
                since = now
                log.warning("the database file is locked by another process; writes wait up "
                            "to %.1f s for it", self.wait)
            self._refuse_overdue(batch, now)
            if not batch:
                raise StoreUnavailable(f"the database file stayed locked for {self.wait:g} s")
            await asyncio.sleep(pause)
            pause = min(pause * 2, LOCKED_PAUSE_MOST)

    def _refuse_overdue(self, batch: list[Job], now: float) -> None:
        """Take out of `batch` the jobs that waited `wait` s (answered StoreUnavailable) or
        whose caller gave up: none of them was stored."""
        keep = []
        for job in batch:
            future = job[2]
            if future.done():
                continue
            if now - self._made.setdefault(future, now) >= self.wait:
                self.refused += 1
                _settle(future, exc=StoreUnavailable(
                    f"the database file stayed locked for {self.wait:g} s; nothing was stored"))
                continue
            keep.append(job)
        batch[:] = keep

    async def _transaction(self, batch: list[Job], extra: Extra | None = None) -> list[Any]:
        if self.sync_engine is not None:
            return await self._sqlite_waiting(batch, extra)
        # A server that cannot be reached is retried for a few seconds, each time on a new
        # connection; then every write of the batch is refused (StoreUnavailable). A lost
        # connection may have lost only the answer: before the batch is sent again, the
        # store is asked whether it holds it already (`landed`).
        in_doubt = False

        async def attempt() -> list[Any]:
            nonlocal in_doubt
            if in_doubt and self.landed is not None and all(k == "write" for k, _, _ in batch):
                stored = await self.landed([payload for _, payload, _ in batch])
                if stored is not None:
                    log.warning("a batch of %d writes was stored although its answer was "
                                "lost", len(batch))
                    return stored
            in_doubt = False
            try:
                return await self._server_transaction(batch, extra)
            except Exception as exc:
                in_doubt = unreachable(exc)
                raise

        return await reconnecting(attempt, self.unreachable_wait)

    async def _server_transaction(self, batch: list[Job], extra: Extra | None) -> list[Any]:
        """The batch on a database server (PostgreSQL): one statement, or a transaction."""
        items = self._plain_writes(batch)
        if items is not None:
            assert self.one_statement is not None
            return await self.one_statement.store(items, extra)
        async with self.engine.begin() as conn:
            return await conn.run_sync(lambda sync: self._store_with(sync, batch, extra))

    def _plain_writes(self, batch: list[Job]) -> list[Any] | None:
        """The batch's items, when `one_statement` can store them all (only writes, one
        per key); else None."""
        if self.one_statement is None or any(kind != "write" for kind, _, _ in batch):
            return None
        items = [payload for _, payload, _ in batch]
        if len({self.key(item) for item in items}) < len(items):
            return None
        return items if self.one_statement.fits(items) else None

    async def _finish_checkpoint(self) -> None:
        """Between two transactions: copy the WAL's last frames so that the next transaction
        starts it over (checkpoint.py says why). Off the loop: the writer waits, the loop
        does not."""
        assert self.checkpointer is not None
        raw = self._writer_connection().connection.driver_connection
        try:
            await asyncio.to_thread(self.checkpointer.finish, raw)
        except Exception:  # the WAL only grows on until the next pass
            log.exception("finishing a WAL checkpoint failed")

    def _writer_connection(self) -> Connection:
        """The writer's connection: checked out once and kept (a pool checkout and return
        per transaction costs more than the transaction's statements)."""
        if self._conn is None or self._conn.closed or self._conn.invalidated:
            assert self.sync_engine is not None
            self._conn = self.sync_engine.connect()
        return self._conn

    async def _commit(self, batch: list[Job]) -> None:
        extra = self.extras()
        try:
            results = await self._transaction(batch, extra)
        except Exception as exc:
            if extra is not None:
                extra.undo()  # put the ride-along work back for the next transaction
            if not batch:  # each write waited out a locked file and was answered already
                return
            refused = [job for job in batch if job[0] == "write" and self.refuses(job[1], exc)]
            if refused:  # (a fence: never tried again; the others are, together)
                for job in refused:
                    _settle(job[2], exc=exc)
                rest = [job for job in batch if all(job is not r for r in refused)]
                if rest:
                    await self._commit(rest)
                return
            if len(batch) == 1 or isinstance(exc, StoreUnavailable):
                for job in batch:  # (the store is out of reach: no write alone would go)
                    _settle(job[2], exc=exc)
                return
            log.warning("a shared commit of %d writes failed (%s); retrying them one by one",
                        len(batch), exc)
            for job in batch:
                await self._commit([job])
            return
        except BaseException:  # cancelled: the ride-along work may not have been stored
            if extra is not None:
                extra.undo()
            raise
        self._answer(batch, results)

    def _answer(self, batch: list[Job], results: list[Any]) -> None:
        """The batch is committed: count it and give each caller its result."""
        self.batches += 1
        self.items += len(batch)
        for (_, _, future), result in zip(batch, results, strict=True):
            _settle(future, result=result)


def _locked(exc: BaseException) -> bool:
    """Did SQLite refuse because another connection holds the lock (SQLITE_BUSY/LOCKED)?
    Then nothing of the transaction was stored."""
    orig = getattr(exc, "orig", exc)
    code = getattr(orig, "sqlite_errorcode", None)
    return isinstance(orig, sqlite3.OperationalError) and code is not None and \
        code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _settle(future: asyncio.Future[Any], *, result: Any = None, exc: BaseException | None = None) -> None:
    if future.done():  # the caller gave up (cancelled); the write itself still happened
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(result)
