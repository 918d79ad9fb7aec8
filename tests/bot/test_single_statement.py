"""PostgreSQL's single-statement writes (bot/store/single_statement.py) store exactly what
the shared transaction stores, atomically per write, and survive a lost connection."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text

from bot.store.database import create_engine
from bot.store.repository import ClockData, MatchWrite, OutboxData, Repository
from bot.store.single_statement import SingleStatementWrites

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _writes(match_id: int) -> list[MatchWrite]:
    """A match's life in writes of every plain kind: actions, a snapshot, messages with
    payloads, clocks opened and closed, a write without an action (a reminder)."""
    def clock(key: str, seat: int, at: datetime, **kw: Any) -> ClockData:
        return ClockData(key, seat, at, at + timedelta(seconds=60), at + timedelta(seconds=90), **kw)

    return [
        MatchWrite(match_id, 1, action=(0, {"kind": "keep", "cards": [1, 2]}, "player"),
                   outbox=[OutboxData("public", "Ann keeps two.", {"round": 1}),
                           OutboxData("seat:1", "Your move, Bob.", {"buttons": ["a", "b"]})],
                   clocks_new=[clock("r1:b", 1, T0)],
                   clocks_changed=[ClockData("r1:a", 0, T0, None, None, 0, "done")]),
        MatchWrite(match_id, 1, outbox=[OutboxData("seat:1", "30 s left.", {})],
                   clocks_changed=[clock("r1:b", 1, T0, reminders_sent=1)]),
        MatchWrite(match_id, 2, action=(1, {"kind": "fold"}, "timeout"), snapshot='{"s": 2}',
                   outbox=[OutboxData("public", "Bob ran out of time: fold. ☠ «ünïcode»", {})],
                   clocks_changed=[ClockData("r1:b", 1, T0, None, None, 1, "expired")],
                   clocks_new=[clock("r2:a", 0, T0 + timedelta(seconds=5)),
                               clock("r2:b", 1, T0 + timedelta(seconds=5), status="break")]),
    ]


async def _start(url: str) -> tuple[Repository, int]:
    repo = Repository(create_engine(url))
    await repo.migrate()
    match_id = await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                       players=[], transport={}, now=T0)
    # the match's first write (its row) went through the transaction: the opening
    await repo.commit(MatchWrite(match_id, 0, clocks_new=[
        ClockData("r1:a", 0, T0, T0 + timedelta(seconds=60), None)]), T0)
    return repo, match_id


async def _rows(repo: Repository, match_id: int) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored column but the ids, table by table, in a fixed order."""
    queries = {
        "actions": "SELECT seq, seat, command::text, source, created_at FROM actions "
                   "WHERE match_id = :m ORDER BY seq",
        "snapshots": "SELECT seq, state, created_at FROM snapshots WHERE match_id = :m ORDER BY seq",
        "outbox": "SELECT seq, audience, text, payload::text, created_at, delivered_at, attempts "
                  "FROM outbox WHERE match_id = :m ORDER BY id",
        "deadlines": "SELECT prompt_key, seat, started_at, limit_at, deadline_at, "
                     "reminders_sent, status FROM deadlines WHERE match_id = :m ORDER BY prompt_key",
        "matches": "SELECT status, action_count, updated_at FROM matches WHERE id = :m",
    }
    async with repo.engine.connect() as conn:
        return {table: [tuple(r) for r in (await conn.execute(text(q), {"m": match_id})).all()]
                for table, q in queries.items()}


async def _play(repo: Repository, match_id: int) -> list[list[int]]:
    ids = []
    for i, write in enumerate(_writes(match_id)):
        now = T0 + timedelta(seconds=i + 1)
        ids.append(await repo.commit(write, now))
        repo.queue_delivered(ids[-1][:1], now)  # rides along with the next write
    await repo.flush_delivered()
    return ids


async def test_single_statement_stores_what_the_transaction_stores(pg_template: str):
    from testbed import pg_server

    stored = {}
    for path in ("single statement", "transaction"):
        url = await pg_server.create_database(pg_template, f"umpire_single_{path[0]}")
        repo, match_id = await _start(url)
        one = repo.writer.one_statement
        assert one is not None
        if path == "transaction":
            await one.close()
            repo.writer.one_statement = None
        before = one.batches
        ids = await _play(repo, match_id)
        assert [len(i) for i in ids] == [2, 1, 1] and sum(ids, []) == sorted(sum(ids, []))
        if path == "single statement":
            assert one.batches - before == 3
        stored[path] = await _rows(repo, match_id)
        await repo.close()
        await repo.engine.dispose()
    assert stored["single statement"] == stored["transaction"]
    got = stored["single statement"]
    assert [r[0] for r in got["actions"]] == [1, 2] and got["matches"][0][1] == 2
    assert [r[-1] for r in got["outbox"]] == [1, 0, 1, 1]  # marks rode along, the last flushed
    assert got["deadlines"][1][:2] == ("r1:b", 1) and got["deadlines"][1][-2:] == (1, "expired")


async def test_a_failing_write_stores_nothing_and_the_batch_still_lands(
        pg_url: str, caplog: pytest.LogCaptureFixture):
    """A batch shares one statement; when one write is refused (here a repeated action
    number), the batch is retried write by write: the others are stored, the refused one
    stores nothing (no message, no clock) and its caller gets the error."""
    repo = Repository(create_engine(pg_url))
    await repo.migrate()
    ids = [await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                   players=[], transport={}, now=T0) for _ in range(3)]
    await repo.commit(MatchWrite(ids[1], 1, action=(0, {"kind": "keep"}, "player")), T0)
    writes = [MatchWrite(m, 1, action=(0, {"kind": "keep"}, "player"),
                         outbox=[OutboxData("public", f"move of {m}")],
                         clocks_new=[ClockData("k", 0, T0, None, None)]) for m in ids]
    with caplog.at_level(logging.WARNING, logger="bot.store.writer"):
        results = await asyncio.gather(*(repo.commit(w, T0) for w in writes),
                                       return_exceptions=True)
    assert any("shared commit of 3 writes failed" in r.getMessage() for r in caplog.records)
    assert isinstance(results[1], asyncpg.UniqueViolationError)
    assert all(isinstance(r, list) and len(r) == 1 for r in (results[0], results[2]))
    for m in ids:
        rows = await _rows(repo, m)
        assert len(rows["actions"]) == 1
        assert len(rows["outbox"]) == (0 if m == ids[1] else 1)
        assert len(rows["deadlines"]) == (0 if m == ids[1] else 1)
    await repo.close()
    await repo.engine.dispose()


async def test_each_write_of_a_batch_gets_the_ids_of_its_own_messages(pg_url: str):
    """One statement stores several writes' messages; the ids it hands back are matched to
    the rows it numbered, so each write learns the ids of its own messages, in order (the
    ids a message's delivery marks and Discord's nonce use)."""
    repo = Repository(create_engine(pg_url))
    await repo.migrate()
    matches = [await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                       players=[], transport={}, now=T0) for _ in range(4)]
    for m in matches:  # each match's first write (its row) goes through the transaction
        await repo.commit(MatchWrite(m, 0), T0)
    one = repo.writer.one_statement
    assert one is not None
    items = [(MatchWrite(m, 1, action=(0, {"kind": "keep"}, "player"),
                         outbox=[OutboxData(aud, f"{m}/{k}") for k, aud in
                                 enumerate(("public", "seat:0", "seat:1")[: 1 + i % 3])]), T0)
             for i, m in enumerate(matches)]
    assert one.fits(items)
    ids = await one.store(items, None)
    assert [len(i) for i in ids] == [1, 2, 3, 1]
    async with repo.engine.connect() as conn:
        stored = dict((await conn.execute(text("SELECT id, text FROM outbox"))).all())
    for (write, _), got in zip(items, ids, strict=True):
        assert [stored[i] for i in got] == [o.text for o in write.outbox]
    assert sum(ids, []) == sorted(sum(ids, []))
    await repo.close()
    await repo.engine.dispose()


async def test_a_connection_the_server_closed_is_replaced_before_the_next_write(pg_url: str):
    repo, match_id = await _start(pg_url)
    one = repo.writer.one_statement
    assert one is not None
    before = one.batches
    await repo.commit(MatchWrite(match_id, 1, action=(0, {"kind": "keep"}, "player")), T0)
    assert one.batches == before + 1
    held = await one._driver()
    async with repo.engine.connect() as conn:  # the server drops the writer's connection
        await conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": held.get_server_pid()})
        await conn.commit()
    await asyncio.sleep(0.1)
    for seq in (2, 3):
        try:
            await repo.commit(MatchWrite(match_id, seq, action=(0, {"kind": "keep"}, "player")), T0)
        except (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, ConnectionError, OSError):
            pytest.fail(f"write {seq} failed on a connection the server had closed while idle")
    assert [r[0] for r in (await _rows(repo, match_id))["actions"]] == [1, 2, 3]
    assert one.batches == before + 3
    await repo.close()
    await repo.engine.dispose()


def test_only_plain_writes_take_the_single_statement():
    """What one statement cannot store as the transaction would goes through the
    transaction: a match's first write, match fields, extra statements, and a clock that
    the write opens and changes, or changes twice."""
    one = SingleStatementWrites(engine=None, unborn={7}.__contains__)  # type: ignore[arg-type]
    a = ClockData("a", 0, T0, None, None)
    plain = MatchWrite(1, 1, action=(0, {}, "player"), clocks_new=[a],
                       clocks_changed=[ClockData("b", 1, T0, None, None, 0, "done")])
    assert one.fits([(plain, T0)])
    for odd in (MatchWrite(7, 1), MatchWrite(1, 1, match_fields={"status": "paused"}),
                MatchWrite(1, 1, also=[lambda conn: None]),
                MatchWrite(1, 1, clocks_new=[a], clocks_changed=[a]),
                MatchWrite(1, 1, clocks_changed=[a, a])):
        assert not one.fits([(plain, T0), (odd, T0)]), odd
