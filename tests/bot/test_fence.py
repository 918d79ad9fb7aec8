"""The fence (issue 45): every write of a sharded match is made only while its writer holds
the shard's lease at the generation it was made under, in the write's own transaction; a
refused write stores nothing and loses its shard; the deadline, read from the wall clock,
decides before anything acts. On SQLite and PostgreSQL (both store paths on PostgreSQL: the
single statement and the transaction)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from bot.shards import ShardKeeper
from bot.store.database import create_engine
from bot.store.fence import Fence, FencedOut
from bot.store.leases import Leases
from bot.store.repository import ClockData, MatchWrite, OutboxData, Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.bot.shard_worker import guild_of
from tests.support.driver import drive
from tests.support.register import register_duel
from tests.support.transport import RecordingTransport

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TTL = timedelta(seconds=15)


class Clock:
    def __init__(self, at: datetime = T0) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


async def _table(engine: Any) -> dict[str, Any]:
    """Everything a match write can touch, as stored."""
    async with engine.connect() as conn:
        out = {}
        for table, columns in (("actions", "match_id, seq, command"),
                               ("snapshots", "match_id, seq"),
                               ("outbox", "id, match_id, text, delivered_at"),
                               ("deadlines", "match_id, prompt_key, status, reminders_sent"),
                               ("matches", "id, status, action_count, updated_at")):
            rows = (await conn.execute(text(f"SELECT {columns} FROM {table} ORDER BY 1, 2"))).all()
            out[table] = [tuple(r) for r in rows]
        return out


async def _fenced_repo(url: str, clock: Clock) -> tuple[Repository, Fence, list[set[int]]]:
    """A sharded repository whose fence holds shards 0 and 1 as taken by "a"."""
    engine = create_engine(url)
    repo = Repository(engine, shard_count=2, shards={0, 1})
    await repo.migrate()
    leases = Leases(engine, "a", TTL)
    fence = Fence("a", clock)
    lost: list[set[int]] = []
    fence.on_lost = lost.append
    for shard in (0, 1):
        taken = await leases.take(shard, clock())
        assert taken is not None and taken.generation == 1
        fence.hold(shard, taken.generation, clock() + TTL * 2 / 3)
    repo.fence = fence
    return repo, fence, lost


async def _match(repo: Repository, shard: int, now: datetime) -> int:
    """A match of `shard` stored with an armed clock (its first write, fenced)."""
    transport = {"guild": guild_of(shard, 0)}
    match_id = await repo.reserve_match(game="duel", settings={}, seed="s", commitment="c",
                                        players=[], transport=transport, now=now)
    await repo.commit(MatchWrite(match_id, 0, outbox=[OutboxData("public", "opening")],
                                 clocks_new=[ClockData("k1", 0, now, now + TTL, now + TTL)]), now)
    return match_id


def _step(match_id: int, seq: int, now: datetime, **more: Any) -> MatchWrite:
    """A move's write: action, snapshot, messages, a clock closed and one opened."""
    return MatchWrite(match_id, seq, action=(0, {"type": "pick", "n": seq}, "bot"),
                      snapshot='{"s": 1}', outbox=[OutboxData("public", f"move {seq}"),
                                                   OutboxData("seat0", "yours")],
                      clocks_changed=[ClockData(f"k{seq}", 0, now, now, now, status="done")],
                      clocks_new=[ClockData(f"k{seq + 1}", 0, now, now + TTL, now + TTL)],
                      **more)


async def test_a_write_at_a_stale_generation_rolls_back_whole(db_url: str):
    """Another process took the lease (generation 2): a write made under generation 1 is
    refused whole, through either store path, its shard is lost here at once, and a write
    of the new owner goes through."""
    clock = Clock()
    repo, fence, lost = await _fenced_repo(db_url, clock)
    match_id = await _match(repo, 1, clock())
    now = clock.at = T0 + timedelta(seconds=1)
    write = repo.stamp(_step(match_id, 1, now), {"guild": guild_of(1, 0)})
    assert write.fence == (1, 1)
    await repo.commit(write, now)
    before = await _table(repo.engine)
    # the lease expires and "b" takes it over: generation 2
    taken = await Leases(repo.engine, "b", TTL).take(1, T0 + TTL * 2, only_if_held_before=True)
    assert taken is not None and taken.generation == 2
    later = T0 + timedelta(seconds=2)
    plain = _step(match_id, 2, later)  # (PostgreSQL: the single statement)
    plain.fence = (1, 1)
    with pytest.raises(FencedOut) as refused:
        await repo.commit(plain, later)
    assert refused.value.shards == {1}
    assert lost == [{1}] and 1 not in fence.holds, "the shard was not lost at once"
    assert await _table(repo.engine) == before, "a fenced-out write stored something"
    ending = _step(match_id, 2, later, match_fields={"status": "finished"})  # (a transaction)
    ending.fence = (1, 1)
    with pytest.raises(FencedOut):
        await repo.commit(ending, later)
    assert await _table(repo.engine) == before
    with pytest.raises(FencedOut):  # not held here any more: not even sent to the store
        repo.stamp(_step(match_id, 2, later), {"guild": guild_of(1, 0)})
    # the new owner writes at its generation
    theirs = Repository(create_engine(db_url), shard_count=2, shards={1})
    theirs.fence = Fence("b", clock)
    theirs.fence.hold(1, 2, later + TTL)
    await theirs.commit(theirs.stamp(_step(match_id, 2, later), {"guild": guild_of(1, 0)}),
                        later)
    assert [a[1] for a in (await _table(repo.engine))["actions"]] == [1, 2]
    for r in (repo, theirs):
        await r.close()
        await r.engine.dispose()


async def test_writes_of_a_held_shard_batched_with_a_fenced_one_are_stored(db_url: str):
    """Writes sharing the store's batch: the fenced-out one is answered `FencedOut` (never
    tried again), the other is stored."""
    clock = Clock()
    repo, fence, _ = await _fenced_repo(db_url, clock)
    ours, lost_one = await _match(repo, 0, clock()), await _match(repo, 1, clock())
    assert await Leases(repo.engine, "b", TTL).take(1, T0 + TTL * 2) is not None
    now = T0 + timedelta(seconds=1)
    stale = _step(lost_one, 1, now)
    stale.fence = (1, 1)
    fresh = repo.stamp(_step(ours, 1, now), {"guild": guild_of(0, 0)})
    results = await asyncio.gather(repo.commit(stale, now), repo.commit(fresh, now),
                                   return_exceptions=True)
    assert isinstance(results[0], FencedOut) and isinstance(results[1], list)
    stored = await _table(repo.engine)
    assert [(a[0], a[1]) for a in stored["actions"]] == [(ours, 1)]
    await repo.close()
    await repo.engine.dispose()


async def test_delivery_marks_of_a_lost_shard_are_not_stored(db_url: str):
    clock = Clock()
    repo, fence, _ = await _fenced_repo(db_url, clock)
    ours, gone = await _match(repo, 0, clock()), await _match(repo, 1, clock())
    assert await Leases(repo.engine, "b", TTL).take(1, T0 + TTL * 2) is not None
    fence.lost({1})
    ids = {m.match_id: m.id for m in await repo.undelivered({0, 1})}
    await repo.mark_delivered([ids[ours], ids[gone]], T0)
    marked = {row[1]: row[3] for row in (await _table(repo.engine))["outbox"]}
    assert marked[ours] is not None and marked[gone] is None
    await repo.close()
    await repo.engine.dispose()


async def test_a_dropped_shard_s_queued_writes_are_cancelled(sqlite_url: str):
    clock = Clock()
    repo, fence, _ = await _fenced_repo(sqlite_url, clock)
    match_id = await _match(repo, 1, clock())
    queued = asyncio.ensure_future(repo.commit(repo.stamp(_step(match_id, 1, T0),
                                                          {"guild": guild_of(1, 0)}), T0))
    await asyncio.sleep(0)  # (queued: the writer task has not run yet)
    assert repo.writer.cancel(lambda item: item[0].fence[0] == 1,
                              lambda item: FencedOut({item[0].fence})) == 1
    with pytest.raises(FencedOut):
        await queued
    assert (await _table(repo.engine))["actions"] == []
    await repo.close()
    await repo.engine.dispose()


async def test_the_deadline_decides_after_a_pause(db_url: str):
    """Past two thirds of the lease since its last renewal (a pause: nothing ran), nothing
    of the shard acts, although nobody took the lease and a renewal would succeed: the bot's
    move and the timeout are not made, the shard is dropped, and the next round takes the
    lease again at a new generation, under which the match goes on."""
    register_duel()
    clock = Clock(datetime.now(UTC))
    engine = create_engine(db_url)
    service = MatchService(Repository(engine, shard_count=2, shards=set()), RecordingTransport(),
                           bot_think=0.2, now=clock)
    await service.start()
    keeper = ShardKeeper(service, Leases(engine, "me", TTL), shard_count=2, preferred={0},
                         renew_seconds=3600)  # rounds by hand
    await keeper.start()
    live = await service.start_match(
        "duel", [PlayerRef("h", "Human"), PlayerRef("b", "Bot", bot="highest")],
        settings={"pick_seconds": 5}, transport={"guild": guild_of(0, 0)})
    stored = len(await drive(service).actions(live.id))
    assert keeper.fence.holds[0].generation == 1
    clock.at += TTL * 2 / 3 + timedelta(seconds=1)  # the pause: past the deadline
    await asyncio.sleep(0.3)  # the bot's move comes due, and the human's timeout
    assert not drive(service).acting(live)
    assert len(await drive(service).actions(live.id)) == stored, "acted after the deadline"
    await keeper._dropped()
    assert keeper.owned == set() and live.id not in service.matches
    await keeper.tick()  # free (nobody took it): taken again, at a new generation
    assert keeper.owned == {0} and keeper.fence.holds[0].generation == 2
    await asyncio.sleep(0.6)
    assert len(await drive(service).actions(live.id)) > stored, "the match did not go on"
    await keeper.stop()
    await service.stop()
    await keeper.release()
    await engine.dispose()


async def test_a_write_refused_under_an_older_hold_leaves_the_lease_taken_since(db_url: str):
    """This process lost the lease and took it again (generation 2) while a write of the
    first hold (generation 1) was on its way: that write is refused, the new hold stays."""
    clock = Clock()
    repo, fence, lost = await _fenced_repo(db_url, clock)
    match_id = await _match(repo, 1, clock())
    taken = await Leases(repo.engine, "a", TTL).take(1, clock())
    assert taken is not None and taken.generation == 2
    fence.hold(1, 2, clock() + TTL * 2 / 3)
    stale = _step(match_id, 1, T0)
    stale.fence = (1, 1)
    with pytest.raises(FencedOut):
        await repo.commit(stale, T0)
    assert lost == [] and fence.holds[1].generation == 2, "the newer hold was dropped"
    await repo.commit(repo.stamp(_step(match_id, 1, T0), {"guild": guild_of(1, 0)}), T0)
    assert [a[1] for a in (await _table(repo.engine))["actions"]] == [1]
    await repo.close()
    await repo.engine.dispose()


async def test_a_process_paused_inside_a_transaction_holds_no_takeover_up(pg_url: str):
    """The owner is paused in the middle of a multi-statement transaction, after the fence
    locked its lease row for share (its event loop frozen by a statement of the
    transaction, as SIGSTOP would freeze the process; the server sees the same idle
    transaction). Once the lease expired another process takes it over while the owner is
    still paused: the server ended the idle transaction a third of the lease in, so the
    takeover does not wait for the pause to end. Resumed, the owner's write is refused and
    stored nothing."""
    import threading
    import time

    register_duel()
    ttl = timedelta(seconds=3)
    engine = create_engine(pg_url)
    service = MatchService(Repository(engine, shard_count=2, shards=set()), RecordingTransport())
    await service.start()
    keeper = ShardKeeper(service, Leases(engine, "a", ttl), shard_count=2, preferred={1},
                         renew_seconds=3600)  # no renewal: the lease expires one TTL after
    await keeper.start()
    repo = service.repo
    match_id = await _match(repo, 1, datetime.now(UTC))
    expires = (await keeper.leases.owners())[1][1]
    pause = ttl.total_seconds() * 1.5
    took_over: dict[str, Any] = {}

    def other_process() -> None:
        async def take() -> None:
            theirs = create_engine(pg_url)
            await asyncio.sleep(max(0.0, (expires - datetime.now(UTC)).total_seconds()) + 0.05)
            taken = await Leases(theirs, "b", ttl).take(1, datetime.now(UTC),
                                                        only_if_held_before=True)
            took_over.update(at=time.monotonic(), taken=taken)
            await theirs.dispose()
        asyncio.run(take())

    paused: list[float] = []

    def pause_here(conn: Any) -> None:  # (a statement of the transaction, after the fence)
        if not paused:
            paused.append(time.monotonic())
            time.sleep(pause)  # the whole process stops: no loop, no renewal, no statement
            paused.append(time.monotonic())

    thread = threading.Thread(target=other_process)
    thread.start()
    write = repo.stamp(MatchWrite(match_id, 0, match_fields={"status": "paused"},
                                  also=[pause_here]), {"guild": guild_of(1, 0)})
    try:
        with pytest.raises(FencedOut):  # (a transaction: a match field changes)
            await repo.commit(write, datetime.now(UTC))
    finally:
        thread.join()
    assert len(paused) == 2 and "taken" in took_over
    taken = took_over["taken"]
    assert taken is not None and taken.generation == 2, "the other process could not take it"
    assert took_over["at"] < paused[1], "the takeover waited for the paused transaction"
    async with engine.connect() as conn:
        status = (await conn.execute(text(f"SELECT status FROM matches WHERE id = {match_id}"))
                  ).scalar_one()
    assert status != "paused", "the paused process's write was stored"
    assert keeper.owned == set()
    await keeper.stop()
    await service.stop()
    await engine.dispose()


async def test_no_write_is_sent_to_the_store_past_the_deadline(db_url: str):
    """A write stamped in time but still queued when the deadline passed (nobody took the
    lease; the row still names this process) is refused before its transaction or statement
    begins, so that no lock of a stale holder is taken after its deadline."""
    clock = Clock()
    repo, fence, lost = await _fenced_repo(db_url, clock)
    match_id = await _match(repo, 1, clock())
    before = await _table(repo.engine)
    plain = repo.stamp(_step(match_id, 1, T0), {"guild": guild_of(1, 0)})
    ending = repo.stamp(_step(match_id, 1, T0, match_fields={"status": "finished"}),
                        {"guild": guild_of(1, 0)})
    clock.at = T0 + TTL * 2 / 3 + timedelta(seconds=1)
    for write in (plain, ending):  # (PostgreSQL: the single statement, then a transaction)
        with pytest.raises(FencedOut):
            await repo.commit(write, clock())
    assert lost == [{1}]
    assert await _table(repo.engine) == before
    await repo.close()
    await repo.engine.dispose()


async def test_transport_data_is_stored_only_under_the_lease(db_url: str):
    """The Discord front end's channel data of a match (`merge_transport`, `set_transport`)
    is fenced like every other write: after another process took the shard, a write of the
    old holder (which still believes it holds generation 1) stores nothing and loses the
    shard here; while the shard is held, it is stored."""
    clock = Clock()
    repo, fence, lost = await _fenced_repo(db_url, clock)
    ours, gone = await _match(repo, 0, clock()), await _match(repo, 1, clock())
    assert await repo.merge_transport(ours, {"room": 7}) == {"guild": guild_of(0, 0),
                                                              "room": 7}
    await repo.set_transport(ours, {"guild": guild_of(0, 0), "room": 8})
    assert await Leases(repo.engine, "b", TTL).take(1, T0 + TTL * 2) is not None

    async def transports() -> dict[int, Any]:
        async with repo.engine.connect() as conn:
            rows = (await conn.execute(text("SELECT id, transport FROM matches"))).all()
        return {r[0]: r[1] if isinstance(r[1], dict) else json.loads(r[1]) for r in rows}

    before = await transports()
    assert before[ours] == {"guild": guild_of(0, 0), "room": 8}
    with pytest.raises(FencedOut):
        await repo.merge_transport(gone, {"room": 9})
    assert lost == [{1}], "the shard was not lost at once"
    fence.hold(1, 1, clock() + TTL)  # (as if it still believed so: set_transport too)
    with pytest.raises(FencedOut):
        await repo.set_transport(gone, {"room": 9})
    assert await transports() == before, "a fenced-out transport write was stored"
    await repo.close()
    await repo.engine.dispose()


async def test_an_ended_match_is_unrated_only_under_the_lease(db_url: str):
    """A host's `/match unrated` on an ended match recomputes the server's ratings
    (`UmpireApi.unrate_ended`, through `Repository.run_for_match`): like every other write
    of a sharded match it is stored only while the match's shard is held here. After another
    process took the shard, the old holder's unrating stores nothing and loses the shard."""
    from bot.ratings import unrate_statement

    clock = Clock()
    repo, fence, lost = await _fenced_repo(db_url, clock)
    ours, gone = await _match(repo, 0, clock()), await _match(repo, 1, clock())
    async with repo.engine.begin() as conn:
        for match_id, shard in ((ours, 0), (gone, 1)):
            await conn.execute(text(
                "INSERT INTO match_results (match_id, guild_id, game, player0, player1, names,"
                " outcome, winner, reason, rated, changes, ended_at) VALUES (:m, :g, 'duel',"
                " 'p0', 'p1', '[]', 'win', 0, '', :t, '{}', :at)"),
                {"m": match_id, "g": guild_of(shard, 0), "t": True, "at": T0})

    async def rated() -> dict[int, bool]:
        async with repo.engine.connect() as conn:
            rows = (await conn.execute(text("SELECT match_id, rated FROM match_results"))).all()
        return {r[0]: bool(r[1]) for r in rows}

    assert await repo.run_for_match(ours, unrate_statement(ours, clock())) is True
    assert await rated() == {ours: False, gone: True}
    assert await Leases(repo.engine, "b", TTL).take(1, T0 + TTL * 2) is not None
    with pytest.raises(FencedOut):
        await repo.run_for_match(gone, unrate_statement(gone, clock()))
    assert lost == [{1}], "the shard was not lost at once"
    assert await rated() == {ours: False, gone: True}, "a fenced-out unrating was stored"
    await repo.close()
    await repo.engine.dispose()
