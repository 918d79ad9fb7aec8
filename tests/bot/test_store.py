"""What the group-commit writer stores reads back exactly (SQLite fast path and all)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import inspect, text

from bot.store import writer as writer_module
from bot.store.database import create_engine
from bot.store.migrate import alembic_config
from bot.store.models import Base
from bot.store.repository import ClockData, MatchWrite, OutboxData, Repository, StopData


async def test_every_kind_of_row_round_trips(db_url):
    engine = create_engine(db_url)
    repo = Repository(engine)
    await repo.migrate()
    now = datetime(2026, 11, 21, 20, 0, 0, 123456, tzinfo=UTC)
    match_id = await repo.create_match(game="duel", settings={"rounds": 2}, seed="s",
                                       commitment="c", players=[{"id": "a", "name": "Ä"}],
                                       transport={"room": 1}, now=now)
    clock = ClockData(key="r1:s0", seat=0, started_at=now, limit_at=now + timedelta(seconds=30),
                      deadline_at=now + timedelta(seconds=90), reminders_sent=1)
    ids = await repo.commit(MatchWrite(
        match_id, 1, action=(0, {"type": "pick", "number": 4, "elapsed": 1.5}, "player"),
        snapshot='{"x": 1}', outbox=[OutboxData("public", "hé 🟥7", {"prompts": [{"k": 1}]}),
                                    OutboxData("seat0", "b")],
        clocks_new=[clock]), now)
    assert len(ids) == 2 and ids[1] == ids[0] + 1
    clock.status, clock.reminders_sent = "armed", 2
    clock.shifted(timedelta(seconds=5))
    more = await repo.commit(MatchWrite(match_id, 1, outbox=[OutboxData("umpire", "c")],
                                        clocks_changed=[clock], match_fields={"status": "paused"}),
                             now)
    assert more == [ids[1] + 1]
    stored = await repo.load_match(match_id)
    assert stored is not None
    assert stored.row.status == "paused" and stored.row.action_count == 1
    assert stored.snapshot == '{"x": 1}' and stored.actions == []
    (loaded,) = stored.clocks
    assert loaded == clock and loaded.started_at.tzinfo is not None
    (action,) = await repo.actions(match_id)
    assert action.command == {"type": "pick", "number": 4, "elapsed": 1.5}
    assert action.created_at == now
    messages = await repo.messages(match_id)
    assert [(m.id, m.audience, m.text, m.payload) for m in messages] == [
        (ids[0], "public", "hé 🟥7", {"prompts": [{"k": 1}]}), (ids[1], "seat0", "b", {}),
        (more[0], "umpire", "c", {})]
    later = now + timedelta(seconds=2)
    await repo.mark_delivered(ids, later)
    assert [m.id for m in await repo.undelivered()] == more
    assert [m.delivered_at for m in await repo.messages(match_id)] == [later, later, None]
    await repo.close()
    await engine.dispose()


async def test_the_wal_is_checkpointed_off_the_loop_and_the_writer_never_checkpoints(tmp_path):
    """The writer's connection has automatic checkpoints off (they would stall the loop);
    the checkpoint thread copies committed pages into the database file."""
    path = tmp_path / "umpire.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    repo = Repository(engine)
    await repo.migrate()
    now = datetime(2026, 11, 21, tzinfo=UTC)
    match_id = await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                       players=[], transport={}, now=now)
    for seq in range(1, 41):
        await repo.commit(MatchWrite(match_id, seq, action=(0, {"type": "pick"}, "player"),
                                     outbox=[OutboxData("public", "x" * 500)]), now)
    writer_conn = repo.writer._writer_connection().connection.driver_connection
    assert writer_conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    checkpointer = repo.writer.checkpointer
    assert checkpointer is not None
    for _ in range(200):  # the thread checkpoints within its interval (0.5 s)
        if checkpointer.checkpoints:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(checkpointer.interval + 0.2)  # and catches up with the last commits
    # Copy the database file alone (without its -wal): what is in it was checkpointed.
    copy = tmp_path / "copy.db"
    shutil.copyfile(path, copy)
    with contextlib.closing(sqlite3.connect(copy)) as conn:
        assert conn.execute("SELECT count(*) FROM actions").fetchone() == (40,)
    await repo.close()
    await engine.dispose()


async def check_ended_matches_with_open_places(url: str) -> None:
    """Only ended matches without the `closed` flag are listed (SQLite and PostgreSQL)."""
    engine = create_engine(url)
    repo = Repository(engine)
    await repo.migrate()
    now = datetime(2026, 11, 21, tzinfo=UTC)
    ids = [await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                   players=[], transport=transport, now=now)
           for transport in ({"room": 1}, {"room": 2, "closed": True}, {"room": 3},
                             {"room": 4, "closed": False})]
    for match_id, status in zip(ids, ("finished", "finished", "active", "aborted"), strict=True):
        await repo.commit(MatchWrite(match_id, 0, match_fields={"status": status}), now)
    assert [m.id for m in await repo.ended_with_open_places()] == [ids[0], ids[3]]
    await repo.set_transport(ids[0], {"room": 1, "closed": True})
    assert [m.id for m in await repo.ended_with_open_places()] == [ids[3]]
    await repo.close()
    await engine.dispose()


async def test_ended_matches_with_open_places(db_url):
    await check_ended_matches_with_open_places(db_url)


async def test_a_slow_commit_on_the_loop_is_logged(sqlite_url, monkeypatch, caplog):
    """(SQLite only: only there does the writer commit on the event loop.)"""
    monkeypatch.setattr(writer_module, "SLOW_COMMIT_SECONDS", 0.0)
    engine = create_engine(sqlite_url)
    repo = Repository(engine)
    await repo.migrate()
    now = datetime(2026, 11, 21, tzinfo=UTC)
    with caplog.at_level(logging.WARNING, logger="bot.store.writer"):
        await repo.create_match(game="duel", settings={}, seed="s", commitment="c", players=[],
                                transport={}, now=now)
    assert any("on the event loop" in r.getMessage() for r in caplog.records)
    await repo.close()
    await engine.dispose()


async def check_alembic_round_trip(url: str) -> None:
    """`alembic upgrade head` creates every table, `alembic check` finds nothing the models
    and the migrations disagree on, `downgrade base` removes every table (SQLite and
    PostgreSQL). Alembic's command line runs its own event loop: here, in a thread."""
    cfg = alembic_config(url)

    async def tables() -> set[str]:
        engine = create_engine(url)
        async with engine.connect() as conn:
            names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        await engine.dispose()
        return names - {"alembic_version"}

    await asyncio.to_thread(command.upgrade, cfg, "head")
    assert await tables() == set(Base.metadata.tables)  # every model's table
    assert {"matches", "actions", "snapshots", "outbox", "deadlines"} <= set(Base.metadata.tables)
    await asyncio.to_thread(command.check, cfg)  # raises if autogenerate would add anything
    await asyncio.to_thread(command.downgrade, cfg, "base")
    assert await tables() == set()
    await asyncio.to_thread(command.upgrade, cfg, "head")  # and up again on the same database
    await asyncio.to_thread(command.check, cfg)


async def test_alembic_upgrade_check_and_downgrade(db_url):
    await check_alembic_round_trip(db_url)


async def check_clocks_shift_in_one_statement(url: str) -> None:
    """Resume moves every live clock (armed, or waiting for a round break to end) of every
    active match by the downtime, exactly (to the microsecond, across a second's carry), and
    nothing else: not paused matches, not clocks that are done, not a missing turn timer;
    the heartbeat is written in the same transaction."""
    engine = create_engine(url)
    repo = Repository(engine)
    await repo.migrate()
    now = datetime(2026, 11, 21, 23, 59, 59, 999_999, tzinfo=UTC)
    ids = [await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                   players=[], transport={}, now=now) for _ in range(3)]
    clocks = {
        "armed": ClockData("armed", 0, now, now + timedelta(seconds=30),
                           now + timedelta(seconds=90, microseconds=1)),
        "no-limit": ClockData("no-limit", 1, now, None, None),
        "break": ClockData("break", 0, now, now + timedelta(seconds=5), None, status="break"),
        "done": ClockData("done", 1, now, now, now, status="done"),
    }
    for match_id, status in zip(ids, ("active", "paused", "finished"), strict=True):
        await repo.commit(MatchWrite(match_id, 0, clocks_new=list(clocks.values()),
                                     match_fields={"status": status}), now)
    downtime = timedelta(days=1, seconds=2, microseconds=3)
    await repo.resume_clocks(downtime, now + downtime)
    armed = {(m.row.id, c.key): c for m in await repo.load_many(ids) for c in m.clocks}
    assert set(armed) == {(i, k) for i in ids for k in ("armed", "no-limit", "break")}
    assert armed[(ids[0], "break")].limit_at == now + downtime + timedelta(seconds=5)
    moved = armed[(ids[0], "armed")]
    assert moved.started_at == now + downtime
    assert moved.limit_at == now + downtime + timedelta(seconds=30)
    assert moved.deadline_at == now + downtime + timedelta(seconds=90, microseconds=1)
    untimed = armed[(ids[0], "no-limit")]
    assert untimed.started_at == now + downtime and untimed.limit_at is None
    assert untimed.deadline_at is None
    for match_id in ids[1:]:  # a paused match is shifted when the hosts resume it
        assert armed[(match_id, "armed")] == clocks["armed"]
    assert await repo.last_heartbeat() == now + downtime
    await repo.close()
    await engine.dispose()


async def test_clocks_shift_by_the_downtime_in_one_statement(db_url):
    await check_clocks_shift_in_one_statement(db_url)


async def check_pruning(url: str) -> None:
    """Storage stays bounded: a match that ends keeps only its latest snapshot (in the
    ending transaction; `prune` does the same for matches that ended before); `prune`
    deletes outbox rows delivered before the cutoff, never an undelivered or recent one nor
    the newest row, and a new message never reuses a deleted id."""
    engine = create_engine(url)
    repo = Repository(engine)
    await repo.migrate()
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    ending, running, ended_before = [
        await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                players=[], transport={}, now=t0) for _ in range(3)]
    for match_id in (ending, running, ended_before):
        for seq in (3, 6, 9):
            await repo.commit(MatchWrite(match_id, seq, snapshot=f'{{"seq": {seq}}}'), t0)
    await repo.commit(MatchWrite(ending, 10, snapshot='{"seq": 10}',
                                 match_fields={"status": "finished"}), t0)
    await repo.commit(MatchWrite(ended_before, 9, match_fields={"status": "aborted"}), t0)
    # a snapshot stored after the end, as a store from before this rule would hold them
    await repo.commit(MatchWrite(ended_before, 12, snapshot='{"seq": 12}'), t0)

    async def snapshots() -> dict[int, list[int]]:
        async with engine.connect() as conn:
            rows = (await conn.execute(text(
                "SELECT match_id, seq FROM snapshots ORDER BY match_id, seq"))).all()
        out: dict[int, list[int]] = {}
        for r in rows:
            out.setdefault(r.match_id, []).append(r.seq)
        return out

    assert await snapshots() == {ending: [10], running: [3, 6, 9], ended_before: [9, 12]}
    ids = [i for n in range(5)
           for i in await repo.commit(MatchWrite(running, 9, outbox=[OutboxData("public", f"m{n}")]), t0)]
    old, recent = t0 + timedelta(days=1), t0 + timedelta(days=20)
    await repo.mark_delivered([ids[0], ids[1], ids[4]], old)
    await repo.mark_delivered([ids[2]], recent)  # ids[3] never delivered
    pruned = await repo.prune(t0 + timedelta(days=10), batch=1)
    assert (pruned.messages, pruned.snapshots) == (2, 1)
    assert [m.id for m in await repo.messages(running)] == ids[2:]
    assert await snapshots() == {ending: [10], running: [3, 6, 9], ended_before: [12]}
    (fresh,) = await repo.commit(MatchWrite(running, 9, outbox=[OutboxData("public", "new")]), t0)
    assert fresh > ids[4]
    assert await repo.prune(None) == type(pruned)()  # nothing more to delete, no outbox cutoff
    await repo.vacuum()
    if url.startswith("sqlite"):
        async with engine.connect() as conn:
            assert (await conn.exec_driver_sql("PRAGMA freelist_count")).scalar() == 0
    await repo.close()
    await engine.dispose()


async def test_pruning_keeps_the_latest_snapshot_and_recent_or_undelivered_messages(db_url):
    await check_pruning(db_url)


async def test_the_wal_starts_over_while_moves_keep_coming(tmp_path):
    """Under steady writes a PASSIVE checkpoint never catches the WAL empty, so SQLite would
    append to it without end (81 MB for these moves, before the fix); once it is
    long, the writer finishes a checkpoint between two transactions and the WAL starts over:
    its file stays small however long the load."""
    path = tmp_path / "umpire.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    repo = Repository(engine)
    await repo.migrate()
    checkpointer = repo.writer.checkpointer
    assert checkpointer is not None
    checkpointer.interval, checkpointer.restart_frames = 0.02, 200  # 200 frames: 0.8 MB
    now = datetime(2026, 11, 21, tzinfo=UTC)
    ids = [await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                   players=[], transport={}, now=now) for _ in range(20)]
    wal = tmp_path / "umpire.db-wal"
    moves = 8000  # 3 KB each: 24 MB of text alone, were the WAL never started over
    written = 0
    largest = 0

    async def play(match_id: int) -> None:
        nonlocal written
        seq = 0
        while written < moves:
            seq += 1
            written += 1
            await repo.commit(MatchWrite(match_id, seq, action=(0, {"type": "pick"}, "player"),
                                         outbox=[OutboxData("public", "x" * 3000)]), now)

    async def watch() -> None:
        nonlocal largest
        while written < moves:
            largest = max(largest, wal.stat().st_size if wal.exists() else 0)
            await asyncio.sleep(0.005)

    await asyncio.wait_for(asyncio.gather(watch(), *(play(m) for m in ids)), 60)
    assert largest < 12_000_000, f"the WAL grew to {largest} bytes"
    assert checkpointer.finished > 0
    await repo.close()
    await engine.dispose()


async def test_sqlite_stores_a_waited_on_write_at_once_and_queued_writes_together(
        sqlite_url):
    """On SQLite the transaction runs on the loop anyway, so a write someone waits on
    (`at_once`: a person's move) is stored by its caller before anything else runs, with no
    trip through the writer task; other writes made together share one transaction. A
    refused write stored at once raises to its caller, stores nothing, and puts back the
    delivery marks that rode along with it."""
    engine = create_engine(sqlite_url)
    repo = Repository(engine)
    await repo.migrate()
    now = datetime(2026, 11, 25, tzinfo=UTC)
    ids = [await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                   players=[], transport={}, now=now) for _ in range(4)]
    writer = repo.writer

    def move(match_id: int, text: str) -> MatchWrite:
        return MatchWrite(match_id, 1, action=(0, {"type": "pick"}, "player"),
                          outbox=[OutboxData("public", text)])

    batches, items = writer.batches, writer.items
    others_ran: list[bool] = []
    asyncio.get_running_loop().call_soon(others_ran.append, True)
    (first,) = await repo.commit(move(ids[0], "waited on"), now, at_once=True)
    assert others_ran == [], "the caller left its turn to have its write stored"
    assert (writer.batches, writer.items) == (batches + 1, items + 1)

    queued = await asyncio.gather(*(repo.commit(move(m, f"queued {m}"), now) for m in ids[1:]))
    assert others_ran == [True]
    assert (writer.batches, writer.items) == (batches + 2, items + 4), "one shared transaction"
    for match_id, (message_id,) in zip(ids, [[first], *queued], strict=True):
        (message,) = await repo.messages(match_id)
        assert message.id == message_id and len(await repo.actions(match_id)) == 1

    repo.queue_delivered([first], now)
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        await repo.commit(move(ids[0], "again"), now, at_once=True)  # its action 1 exists
    assert [m.text for m in await repo.messages(ids[0])] == ["waited on"]
    assert (await repo.messages(ids[0]))[0].delivered_at is None
    await repo.flush_delivered()  # the mark was put back, and is stored by the next one
    assert (await repo.messages(ids[0]))[0].delivered_at == now
    await repo.close()
    await engine.dispose()


async def test_clock_stops_are_stored_shifted_with_the_clocks_and_pruned(db_url):
    """A write's stops replace the match's stored ones; the start's shift for the downtime
    moves a running match's stops exactly (a paused one's not: its resume moves them), and
    the pruner deletes an ended match's."""
    engine = create_engine(db_url)
    repo = Repository(engine)
    await repo.migrate()
    now = datetime(2026, 11, 21, 20, 0, 0, 999999, tzinfo=UTC)
    ids = [await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                   players=[], transport={}, now=now) for _ in range(3)]
    for match_id in ids:
        await repo.commit(MatchWrite(match_id, 0, stops={"r1:s1": StopData(now, {"seat1"})}),
                          now)
    await repo.commit(MatchWrite(ids[0], 0, stops={
        "r1:s0": StopData(now, {"public"}), "r1:s1": StopData(now, {"seat1", "public"})}), now)
    await repo.commit(MatchWrite(ids[1], 0, match_fields={"status": "paused"}), now)
    await repo.commit(MatchWrite(ids[2], 0, match_fields={"status": "finished"}), now)
    await repo.resume_clocks(timedelta(seconds=61, microseconds=2), now)
    later = now + timedelta(seconds=61, microseconds=2)
    assert await repo.stops(ids) == {
        ids[0]: {"r1:s0": StopData(later, {"public"}),
                 "r1:s1": StopData(later, {"seat1", "public"})},
        ids[1]: {"r1:s1": StopData(now, {"seat1"})},
        ids[2]: {"r1:s1": StopData(now, {"seat1"})}}
    await repo.commit(MatchWrite(ids[0], 0, stops={}), now)
    await repo.prune(None)
    assert await repo.stops(ids) == {ids[1]: {"r1:s1": StopData(now, {"seat1"})}}
    await repo.close()
