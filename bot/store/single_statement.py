"""PostgreSQL: a batch of plain match writes stored by ONE autocommitted statement.

Through a transaction, one command's write costs PostgreSQL about seven round trips: BEGIN,
one per table it touches (the action, the outbox ids, the outbox rows, new clocks, changed
clocks, the match row), COMMIT; each waits for the server. Data-modifying common table
expressions let one statement insert into and update several tables, and a single
statement is its own transaction: everything is stored, or nothing. Each table's rows go in
as arrays (`unnest`), so the statement's text never changes and each connection prepares it
once (a text per number of rows would fill the statement caches: docs/architecture.md).
Measured one write at a time on a quiet local server: 1.7 ms at the median through the
transaction, 0.37 ms as one statement.

Only plain writes take this path: a batch with a match's first write (its row), a match
field change (pause, resume, end), extra statements (`MatchWrite.also`), a clock opened and
changed by the same write, or any other job goes through the transaction as before
(`BatchWriter`). The parts of one statement all see the database as it was before it, so a
batch may hold one write per match at most (the writer's key), as it already does.
The messages are numbered (`WITH ORDINALITY`) and their ids come back in that order, so which
id is whose does not depend on the order in which the server evaluates `nextval` over them.

Sharded, the statement is fenced (bot/store/fence.py): its first part locks, for share, the
lease row of each shard the batch writes for, at the generation each write was made under,
and every other part is conditional on all of them being found; else nothing is stored and
`FencedOut` is raised. The delivery marks riding along are stored only for the matches of
the shards held now.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.store.fence import Fence, FencedOut, stamps_of

if TYPE_CHECKING:
    from bot.store.repository import MatchWrite
    from bot.store.writer import Extra

Item = tuple["MatchWrite", datetime]

STATEMENT = """
WITH
fence AS MATERIALIZED (
    SELECT l.shard, l.generation FROM shard_leases AS l
    JOIN unnest($37::int[], $38::bigint[]) AS t(s, g) ON l.shard = t.s AND l.generation = t.g
    WHERE l.owner = $39::text
    FOR SHARE OF l
), fenced AS MATERIALIZED (
    SELECT count(*) = cardinality($37::int[]) AS ok, array_agg(shard) AS shards,
           array_agg(generation) AS gens
    FROM fence
), new_actions AS (
    INSERT INTO actions (match_id, seq, seat, command, source, created_at)
    SELECT m, s, seat, c::json, src, at
    FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[], $6::timestamptz[])
        AS t(m, s, seat, c, src, at)
    WHERE (SELECT ok FROM fenced)
), new_snapshots AS (
    INSERT INTO snapshots (match_id, seq, state, created_at)
    SELECT * FROM unnest($7::int[], $8::int[], $9::text[], $10::timestamptz[])
    WHERE (SELECT ok FROM fenced)
), numbered_messages AS MATERIALIZED (
    SELECT nextval(pg_get_serial_sequence('outbox', 'id')) AS id, t.*
    FROM unnest($11::int[], $12::int[], $13::text[], $14::text[], $15::text[],
                $16::timestamptz[]) WITH ORDINALITY AS t(m, s, aud, txt, p, at, n)
    WHERE (SELECT ok FROM fenced)
), new_messages AS (
    INSERT INTO outbox (id, match_id, seq, audience, text, payload, created_at, attempts)
    SELECT id, m, s, aud, txt, p::json, at, 0 FROM numbered_messages
), new_clocks AS (
    INSERT INTO deadlines (match_id, prompt_key, seat, started_at, limit_at, deadline_at,
                           reminders_sent, status)
    SELECT * FROM unnest($17::int[], $18::text[], $19::int[], $20::timestamptz[],
                         $21::timestamptz[], $22::timestamptz[], $23::int[], $24::text[])
    WHERE (SELECT ok FROM fenced)
), changed_clocks AS (
    UPDATE deadlines AS d
    SET started_at = t.sa, limit_at = t.la, deadline_at = t.da, reminders_sent = t.r,
        status = t.st
    FROM unnest($25::int[], $26::text[], $27::timestamptz[], $28::timestamptz[],
                $29::timestamptz[], $30::int[], $31::text[]) AS t(m, k, sa, la, da, r, st)
    WHERE d.match_id = t.m AND d.prompt_key = t.k AND (SELECT ok FROM fenced)
), touched_matches AS (
    UPDATE matches AS x SET updated_at = t.at, action_count = coalesce(t.n, x.action_count)
    FROM unnest($32::int[], $33::int[], $34::timestamptz[]) AS t(m, n, at)
    WHERE x.id = t.m AND (SELECT ok FROM fenced)
), delivered AS (
    UPDATE outbox AS o SET delivered_at = $35::timestamptz, attempts = attempts + 1
    WHERE id = ANY($36::int[]) AND ($39::text IS NULL OR EXISTS (
        SELECT 1 FROM matches AS x
        JOIN unnest($40::int[], $41::bigint[]) AS h(s, g) ON x.shard = h.s
        JOIN shard_leases AS l ON l.shard = h.s AND l.generation = h.g AND l.owner = $39::text
        WHERE x.id = o.match_id))
)
SELECT f.ok, m.id, f.shards, f.gens
FROM fenced AS f LEFT JOIN numbered_messages AS m ON true ORDER BY m.n
"""

#: What the fence of a batch binds: the batch's stamps (shard, generation), this process's
#: name (None: not sharded, nothing fenced) and the shards it holds now (for the marks).
Fencing = tuple[list[tuple[int, int]], str | None, dict[int, int]]
NO_FENCE: Fencing = ([], None, {})


def arguments(items: list[Item], marks: tuple[list[int], datetime] | None,
              fencing: Fencing = NO_FENCE) -> list[Any]:
    """The statement's 41 parameters: each table's rows as one array per column, then the
    fence's."""
    actions: list[tuple[Any, ...]] = []
    snapshots: list[tuple[Any, ...]] = []
    messages: list[tuple[Any, ...]] = []
    new_clocks: list[tuple[Any, ...]] = []
    changed_clocks: list[tuple[Any, ...]] = []
    matches: list[tuple[Any, ...]] = []
    for w, now in items:
        m = w.match_id
        if w.action is not None:
            seat, command, source = w.action
            actions.append((m, w.seq, seat, json.dumps(command), source, now))
        if w.snapshot is not None:
            snapshots.append((m, w.seq, w.snapshot, now))
        messages += [(m, w.seq, o.audience, o.text, json.dumps(o.payload), now)
                     for o in w.outbox]
        new_clocks += [(m, c.key, c.seat, c.started_at, c.limit_at, c.deadline_at,
                        c.reminders_sent, c.status) for c in w.clocks_new]
        changed_clocks += [(m, c.key, c.started_at, c.limit_at, c.deadline_at,
                            c.reminders_sent, c.status) for c in w.clocks_changed]
        matches.append((m, w.seq if w.action is not None else None, now))
    ids, at = marks if marks else ([], None)
    stamps, owner, held = fencing
    return [*_columns(actions, 6), *_columns(snapshots, 4), *_columns(messages, 6),
            *_columns(new_clocks, 8), *_columns(changed_clocks, 7), *_columns(matches, 3),
            at, ids, *_columns(stamps, 2), owner, *_columns(sorted(held.items()), 2)]


def _columns(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    """Rows of `width` values as `width` arrays, one per column."""
    return [list(column) for column in zip(*rows, strict=True)] if rows else [[]] * width


def ids_per_write(items: list[Item], ids: list[int]) -> list[list[int]]:
    """The batch's outbox ids (in row order) cut into each write's own."""
    out: list[list[int]] = []
    position = 0
    for w, _ in items:
        out.append(ids[position:position + len(w.outbox)])
        position += len(w.outbox)
    return out


class SingleStatementWrites:
    """Stores batches of plain writes with `STATEMENT`, on a connection it holds open."""

    def __init__(self, engine: AsyncEngine, unborn: Callable[[int], bool],
                 fence: Callable[[], Fence | None] = lambda: None) -> None:
        self.engine = engine
        self.unborn = unborn  # a match whose row the write must create: not a plain write
        self.fence = fence  # the process's fence, when sharded (bot/store/fence.py)
        self._conn: AsyncConnection | None = None
        self.batches = 0  # batches stored this way (tests check the path is taken)

    def fits(self, items: list[Any]) -> bool:
        return all(not w.match_fields and not w.also and w.stops is None and
                   not self.unborn(w.match_id)
                   and _clocks_apart(w) for w, _ in items)

    async def store(self, items: list[Item], extra: Extra | None) -> list[list[int]]:
        """Store `items` (and the delivery marks `extra` carries); each write's outbox ids."""
        marks = extra.data if extra is not None else None
        fence = self.fence()
        stamps = sorted(stamps_of(w for w, _ in items))
        if fence is not None:
            fence.admit(set(stamps))
        fencing = NO_FENCE if fence is None else (stamps, fence.owner, fence.held())
        args = arguments(items, marks, fencing)
        driver = await self._driver()
        try:
            rows = await driver.fetch(STATEMENT, *args)
        except BaseException as exc:
            if driver.is_closed() or not _server_refused(exc):
                await self._drop()  # lost, or interrupted mid-statement: start afresh
            raise
        ok, _, shards, gens = rows[0]
        if not ok:  # nothing of the batch was stored
            passed = set(zip(shards or (), gens or (), strict=True))
            raise FencedOut({(s, g) for s, g in stamps if (s, g) not in passed})
        self.batches += 1
        # in row order (the statement numbers the rows): each write's messages in turn
        return ids_per_write(items, [r[1] for r in rows if r[1] is not None])

    async def _driver(self) -> Any:
        """The held connection's asyncpg connection (checked out from the pool once; a
        fresh one if the server closed it meanwhile: nothing was sent on it yet)."""
        if self._conn is not None and not (self._conn.closed or self._conn.invalidated):
            driver = (await self._conn.get_raw_connection()).driver_connection
            if not driver.is_closed():
                return driver
            await self._drop()
        self._conn = await self.engine.connect()
        return (await self._conn.get_raw_connection()).driver_connection

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # already gone: nothing to give back
                await conn.invalidate()

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()


def _clocks_apart(w: MatchWrite) -> bool:
    """Whether each clock the write touches is touched once: all parts of one statement see
    the tables as they were before it, so a clock opened and changed in the same statement,
    or changed twice, would not come out as it does through the transaction."""
    changed = [c.key for c in w.clocks_changed]
    return len(set(changed)) == len(changed) and not set(changed) & {c.key for c in w.clocks_new}


def _server_refused(exc: BaseException) -> bool:
    """Whether `exc` is the server refusing the statement (the connection is still good),
    not a lost connection or a cancellation mid-statement."""
    return isinstance(exc, asyncpg.PostgresError) and not isinstance(
        exc, asyncpg.PostgresConnectionError | asyncpg.OperatorInterventionError)
