"""Scale-out: shard leases, the store's reads scoped to owned shards, the shard keeper, and
two real processes on one PostgreSQL database where one is SIGKILLed and the other takes
its shard over (issue 15, "Scale-out")."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from bot.shards import ShardKeeper
from bot.store.database import create_engine
from bot.store.leases import Leases, shard_of
from bot.store.repository import ClockData, MatchWrite, OutboxData, Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from testbed import pg_server
from tests.bot.shard_worker import guild_of
from tests.support.driver import drive
from tests.support.register import register_duel
from tests.support.shard_log import lines as _lines
from tests.support.shard_log import stored as _stored
from tests.support.transport import RecordingTransport

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
TTL = timedelta(seconds=15)
_names = itertools.count()


# --- databases (pg_template and pg_url: tests/bot/conftest.py) --------------------------
@pytest.fixture(params=["sqlite", "postgresql"])
async def url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A migrated database of each kind."""
    if request.param == "sqlite":
        found = f"sqlite+aiosqlite:///{tmp_path / 'shards.db'}"
    else:
        found = await pg_server.create_database(request.getfixturevalue("pg_template"),
                                              f"umpire_shards_{next(_names)}")
    repo = Repository(create_engine(found))
    await repo.migrate()
    await repo.close()
    await repo.engine.dispose()
    yield found


# --- the shard of a match -----------------------------------------------------------------
def test_a_server_belongs_to_discords_shard_of_it():
    """Discord's formula: (guild_id >> 22) % shard_count; no server (console) is shard 0."""
    guild = 81384788765712384  # a real-looking snowflake
    assert shard_of(guild, 4) == (guild >> 22) % 4
    assert {shard_of(guild_of(s, i), 2) for s in (0, 1) for i in range(5)} == {0, 1}
    assert all(shard_of(guild_of(1, i), 2) == 1 for i in range(5))
    assert shard_of(0, 4) == 0 and shard_of(guild, 1) == 0


async def test_a_match_is_stored_with_the_shard_of_its_server(url: str):
    repo = Repository(create_engine(url), shard_count=2)
    ids = {}
    for shard in (0, 1):
        ids[shard] = await repo.create_match(
            game="duel", settings={}, seed="s", commitment="c", players=[],
            transport={"guild": guild_of(shard, 3)}, now=T0)
    console = await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                      players=[], transport={}, now=T0)
    async with repo.engine.connect() as conn:
        stored = dict((await conn.execute(text("SELECT id, shard FROM matches"))).all())
    assert stored == {ids[0]: 0, ids[1]: 1, console: 0}
    await repo.close()
    await repo.engine.dispose()


# --- leases -------------------------------------------------------------------------------
async def test_a_lease_is_taken_renewed_and_taken_over_once_expired(url: str):
    engine = create_engine(url)
    a, b = Leases(engine, "a", TTL), Leases(engine, "b", TTL)
    taken = await a.take(0, T0)
    assert taken is not None and taken.previous_owner == "" and taken.downtime == timedelta(0)
    assert await b.take(0, T0 + timedelta(seconds=1)) is None, "a live lease was taken"
    assert await a.renew({0}, T0 + timedelta(seconds=10)) == {0}
    # renewed: still a's after the first expiry would have passed
    assert await b.take(0, T0 + timedelta(seconds=20)) is None
    assert await b.takeable({0}, T0 + timedelta(seconds=20)) == []
    late = T0 + timedelta(seconds=10) + TTL + timedelta(seconds=1)
    assert await b.takeable({0}, late) == [0]
    over = await b.take(0, late, only_if_held_before=True)
    assert over is not None and over.previous_owner == "a"
    assert over.downtime == late - (T0 + timedelta(seconds=10)), "downtime from a's last renewal"
    assert await a.renew({0}, late) == set(), "the old owner still renews a lost lease"
    owners = await a.owners()
    assert owners[0][0] == "b" and owners[0][1] == late + TTL
    await engine.dispose()


async def test_a_released_lease_is_free_at_once_and_a_fresh_one_waits_for_its_owner(url: str):
    engine = create_engine(url)
    a, b = Leases(engine, "a", TTL), Leases(engine, "b", TTL)
    assert await a.take(1, T0) is not None
    await a.release({1}, T0 + timedelta(seconds=3))
    assert await b.takeable({1, 2}, T0 + timedelta(seconds=3)) == [1]
    taken = await b.take(1, T0 + timedelta(seconds=5), only_if_held_before=True)
    assert taken is not None and taken.downtime == timedelta(seconds=2)
    # shard 2 was never held: not taken over, only by the process meant for it
    assert await b.take(2, T0, only_if_held_before=True) is None
    assert await a.take(2, T0) is not None
    await engine.dispose()


async def test_a_shard_asked_back_is_released_and_left_to_the_process_that_asked(url: str):
    engine = create_engine(url)
    a, b, c = (Leases(engine, name, TTL) for name in "abc")
    assert await a.take(1, T0) is not None
    assert await a.asked_back({1}) == set()
    await b.want({1}, T0 + timedelta(seconds=1))
    assert await a.asked_back({1}) == {1}
    await a.release({1}, T0 + timedelta(seconds=2))
    later = T0 + timedelta(seconds=3)
    assert await c.takeable({1}, later) == [], "a third process takes a shard handed back"
    assert await b.takeable({1}, later) == [1]
    assert await b.take(1, later) is not None
    assert await b.asked_back({1}) == set(), "the request outlived the handover"
    # a process that asked and died: after a TTL the shard may be taken over as usual
    await c.want({1}, later)
    await b.release({1}, later)
    assert await a.takeable({1}, later + TTL) == [1]
    await engine.dispose()


async def test_two_concurrent_takers_of_an_expired_lease_exactly_one_wins(url: str):
    engines = [create_engine(url), create_engine(url)]
    dead = Leases(engines[0], "dead", TTL)
    takers = [Leases(engines[0], "a", TTL), Leases(engines[1], "b", TTL)]
    now = T0
    await dead.take(0, now)
    for _ in range(12):
        now += TTL + timedelta(seconds=1)  # whoever owns it has let it expire
        results = await asyncio.gather(*(t.take(0, now) for t in takers))
        winners = [t.owner for t, r in zip(takers, results, strict=True) if r is not None]
        assert len(winners) == 1, f"{len(winners)} processes own the shard"
        assert (await takers[0].owners())[0][0] == winners[0]
    for engine in engines:
        await engine.dispose()


# --- the store sees only the shards it owns -----------------------------------------------
async def _two_shard_matches(repo: Repository) -> dict[int, int]:
    """Shard -> the id of a running match there with an armed clock and an undelivered
    message, plus an ended match with open places in each shard."""
    ids = {}
    for shard in (0, 1):
        match_id = await repo.create_match(
            game="duel", settings={}, seed="s", commitment="c", players=[],
            transport={"guild": guild_of(shard, 0)}, now=T0)
        await repo.commit(MatchWrite(match_id, 0, outbox=[OutboxData("public", f"hi {shard}")],
                                     clocks_new=[ClockData("k", 0, T0, T0 + TTL, T0 + TTL)]), T0)
        ended = await repo.create_match(
            game="duel", settings={}, seed="s", commitment="c", players=[],
            transport={"guild": guild_of(shard, 1)}, now=T0)
        await repo.commit(MatchWrite(ended, 0, match_fields={"status": "finished"}), T0)
        ids[shard] = match_id
    return ids


async def test_the_reads_that_decide_what_a_process_resumes_see_only_its_shards(url: str):
    repo = Repository(create_engine(url), shard_count=2)
    ids = await _two_shard_matches(repo)
    assert await repo.active_ids() == sorted(ids.values()), "unsharded: everything"
    repo.shards = {1}
    assert await repo.active_ids() == [ids[1]]
    assert [m.row.id for m in await repo.load_active()] == [ids[1]]
    assert {m.match_id for m in await repo.undelivered()} == {ids[1]}
    assert {r.shard for r in await repo.ended_with_open_places()} == {1}
    assert await repo.active_ids({0}) == [ids[0]]
    # the clock shift on start moves only the owned shard's clocks
    await repo.resume_clocks(timedelta(seconds=30), T0)
    by_id = {m.row.id: m for m in await repo.load_many(sorted(ids.values()))}
    assert by_id[ids[1]].clocks[0].deadline_at == T0 + TTL + timedelta(seconds=30)
    assert by_id[ids[0]].clocks[0].deadline_at == T0 + TTL
    repo.shards = set()
    assert await repo.active_ids() == [] and await repo.undelivered() == []
    await repo.close()
    await repo.engine.dispose()


# --- the keeper in one process ------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.at = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.at


async def test_a_process_that_cannot_renew_in_time_stops_umpiring_the_shard(pg_url: str):
    """Its lease was taken (or could not be renewed for two thirds of the TTL): its matches
    leave the service, no bot of theirs moves again, nothing more of theirs is stored."""
    register_duel()
    engine = create_engine(pg_url)
    clock = Clock()
    service = MatchService(Repository(engine, shard_count=2, shards=set()), RecordingTransport(),
                           bot_think=0.02, now=clock)
    await service.start()
    keeper = ShardKeeper(service, Leases(engine, "me", TTL), shard_count=2, preferred={0, 1},
                         renew_seconds=3600)  # rounds by hand: tick()
    await keeper.start()
    assert keeper.owned == {0, 1}
    matches = {}
    for shard in (0, 1):
        live = await service.start_match(
            "duel", [PlayerRef(f"x{shard}", "X", bot="highest"), PlayerRef(f"y{shard}", "Y")],
            settings={"pick_seconds": 600}, transport={"guild": guild_of(shard, 0)})
        matches[shard] = live.id
    # the database goes away: renewals fail; within 2/3 of the TTL the shards are kept
    leases = keeper.leases
    working = leases.renew, leases.take, leases.takeable

    async def failing(*args: Any, **kwargs: Any) -> Any:
        raise OSError("database unreachable")

    leases.renew = leases.take = leases.takeable = failing  # type: ignore[method-assign]
    clock.at += TTL / 2
    with pytest.raises(OSError):
        await keeper.tick()
    assert keeper.owned == {0, 1} and set(service.matches) == set(matches.values())
    clock.at += TTL / 4
    with pytest.raises(OSError):
        await keeper.tick()
    assert keeper.owned == set(), "kept acting on shards past 2/3 of their lease"
    assert drive(service).matches() == [] and drive(service).shards() == set()
    assert not drive(service).bot_tasks() and not drive(service).armed()
    # renewals work again and take shard 0 back (once expired, a preferred shard is retaken);
    # another process took shard 1 meanwhile: it stays theirs
    leases.renew, leases.take, leases.takeable = working  # type: ignore[method-assign]
    clock.at += TTL
    assert await Leases(engine, "other", TTL).take(1, clock.at) is not None
    adopted: list[set[int]] = []

    async def hook(shards: set[int]) -> None:
        adopted.append(shards)

    keeper.on_adopt.append(hook)
    await keeper.tick()
    assert keeper.owned == {0} and set(service.matches) == {matches[0]}
    assert adopted == [{0}], "the front end was not told of the adopted shard"
    await service.stop()
    await engine.dispose()


async def test_a_shard_dropped_here_and_taken_by_nobody_is_taken_again(url: str):
    """A shard taken over from a dead process (not this one's by preference) is dropped
    when its deadline passes without a renewal (a pause); nobody else takes it: the next
    round takes it again, at a new generation, and resumes its matches (left alone, the
    lease would name this process for ever and nobody would umpire the shard)."""
    register_duel()
    clock = Clock()
    engine = create_engine(url)
    service = MatchService(Repository(engine, shard_count=2, shards=set()), RecordingTransport(),
                           bot_think=0.02, now=clock)
    await service.start()
    dead = Leases(engine, "dead", TTL)
    assert await dead.take(1, clock.at) is not None
    keeper = ShardKeeper(service, Leases(engine, "me", TTL), shard_count=2, preferred={0},
                         renew_seconds=3600)  # rounds by hand
    await keeper.start()
    clock.at += TTL + timedelta(seconds=1)  # the dead one's lease expires
    await keeper.tick()
    assert keeper.owned == {0, 1} and keeper.fence.holds[1].generation == 2
    clock.at += TTL * 2 / 3 + timedelta(seconds=1)  # a pause: past both deadlines
    await keeper.tick()  # dropped, then taken again (nobody else holds them)
    await keeper.tick()
    assert keeper.owned == {0, 1}, "a shard dropped here was never taken again"
    assert keeper.fence.holds[1].generation > 2
    await keeper.stop()
    await service.stop()
    await keeper.release()
    await engine.dispose()


async def test_renewals_go_on_while_an_adoption_holds_the_keeper_s_round_up(url: str):
    """The renewals have a task and a timer of their own: while the round is stuck in a
    slow adoption (here: one that waits until let go), the leases held are renewed on time
    and their deadlines move on, so a busy process never drops its own shards."""
    register_duel()
    engine = create_engine(url)
    service = MatchService(Repository(engine, shard_count=2, shards=set()), RecordingTransport(),
                           bot_think=0.02)
    await service.start()
    keeper = ShardKeeper(service, Leases(engine, "me", TTL), shard_count=2, preferred={0, 1},
                         renew_seconds=0.05)
    adopting, let_go = asyncio.Event(), asyncio.Event()
    adopt = service.adopt

    async def slow_adopt(shards: set[int]) -> None:
        await adopt(shards)
        if 1 in shards:  # shard 0 is held, shard 1's adoption does not end
            adopting.set()
            await let_go.wait()

    service.adopt = slow_adopt  # type: ignore[method-assign]
    starting = asyncio.create_task(keeper.start())
    await asyncio.wait_for(adopting.wait(), 10)
    first = keeper.fence.holds[0].valid_until
    renewed = keeper.renewals
    await asyncio.sleep(0.6)
    assert keeper.renewals >= renewed + 3, "no renewal while the adoption went on"
    assert keeper.fence.holds[0].valid_until > first, "the deadline did not move"
    let_go.set()
    await starting
    await keeper.stop()
    await service.stop()
    await keeper.release()
    await engine.dispose()


async def test_a_restarted_process_gets_its_shard_back_from_the_one_that_took_it_over(
        pg_url: str):
    """Process A took shard 1 over while its process was down; the process for shard 1
    starts again (B): A hands the shard back (stops umpiring its matches, releases it) and
    B takes it and resumes its matches."""
    register_duel()
    clock = Clock()
    dead = Leases(create_engine(pg_url), "dead", TTL)
    services, keepers = [], []
    for preferred in ({0}, {1}):
        engine = create_engine(pg_url)
        service = MatchService(Repository(engine, shard_count=2, shards=set()),
                               RecordingTransport(), bot_think=0.02, now=clock)
        await service.start()
        services.append(service)
        keepers.append(ShardKeeper(service, Leases(engine, f"p{min(preferred)}", TTL),
                                   shard_count=2, preferred=preferred, renew_seconds=3600))
    a, b = keepers
    assert await dead.take(1, clock.at) is not None
    await a.tick()
    assert a.owned == {0}
    # (shard 1's match, started here for the test: past the fence, which refuses it)
    fence, services[0].repo.fence = services[0].repo.fence, None
    live = await services[0].start_match(
        "duel", [PlayerRef("x", "X", bot="highest"), PlayerRef("y", "Y")],
        settings={"pick_seconds": 600}, transport={"guild": guild_of(1, 0)})
    services[0].repo.fence = fence
    services[0].matches.pop(live.id)
    clock.at += TTL + timedelta(seconds=1)  # the dead process's lease expires
    await a.tick()
    assert a.owned == {0, 1} and live.id in services[0].matches, "not taken over"
    await b.tick()  # B wants shard 1: A still holds it
    assert b.owned == set()
    await a.tick()  # A hands it back
    assert a.owned == {0} and live.id not in services[0].matches
    await b.tick()
    assert b.owned == {1} and live.id in services[1].matches
    for keeper in keepers:
        await keeper.stop()
    for service in services:
        await service.stop()
        await drive(service).engine.dispose()
    await dead.engine.dispose()


# --- two processes, one database ----------------------------------------------------------
def _start(url: str, shard: int, tmp: Path, *args: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "tests.bot.shard_worker", url, str(shard),
           str(tmp / "accepted"), str(tmp / "sent"), "--ttl", str(WORKER_TTL), *args]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "READY", f"worker did not start: {line!r} " \
        f"{proc.stderr.read() if proc.stderr else ''}"
    return proc


WORKER_TTL = 2.0  # (renewals on their own timer: a busy round does not delay them)


async def _deadlines(url: str) -> dict[int, datetime]:
    engine = create_engine(url)
    async with engine.connect() as conn:
        rows = (await conn.execute(text(
            "SELECT d.match_id, d.deadline_at FROM deadlines d JOIN matches m "
            "ON m.id = d.match_id WHERE m.game = 'duel' AND d.status = 'armed'"))).all()
    await engine.dispose()
    return {r.match_id: r.deadline_at for r in rows}


@pytest.mark.slow
def test_a_killed_process_s_shard_is_taken_over_and_its_matches_finish(pg_url: str,
                                                                       tmp_path: Path) -> None:
    """Two processes each umpire their own servers' matches on one PostgreSQL database;
    one is SIGKILLed; the other takes its shard over once the lease expires and finishes its
    matches: every match ends, no accepted action is lost, no message is sent twice, a
    running clock keeps the time it had, and while both lived neither touched the other's
    matches."""
    register_duel()
    repo = Repository(create_engine(pg_url))
    asyncio.run(repo.migrate())
    asyncio.run(repo.engine.dispose())
    procs: list[subprocess.Popen[str]] = []
    try:
        survivor = _start(pg_url, 0, tmp_path, "--finish", "--think", "0.15")
        procs.append(survivor)
        victim = _start(pg_url, 1, tmp_path, "--think", "0.15")
        procs.append(victim)
        time.sleep(1.5)
        before = asyncio.run(_deadlines(pg_url))
        killed_at = time.time()
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        rows, _, _ = asyncio.run(_stored(pg_url))
        running = [r.id for r in rows.values() if r.shard == 1 and r.game == "rps-poker"
                   and r.status == "active"]
        assert running, "the victim's matches had all ended before the kill: nothing to take over"
        out, err = survivor.communicate(timeout=150)
        assert survivor.returncode == 0 and "FINISHED" in out, (out, err)
        assert json.loads(out.split("FINISHED", 1)[1]) == [0, 1], "the shard was not taken over"
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    rows, actions, outbox = asyncio.run(_stored(pg_url))
    shard_of_match = {i: r.shard for i, r in rows.items()}
    assert {r.shard for r in rows.values()} == {0, 1}
    # every match ends (the Duels wait for a person who never moves)
    assert all(r.status == "finished" for r in rows.values() if r.game == "rps-poker")
    # no accepted action lost or changed
    accepted = _lines(tmp_path / "accepted")
    for entry in accepted:
        stored = {a.seq: a.command for a in actions[entry["match"]]}
        assert stored.get(entry["seq"]) == entry["command"], "an accepted action was lost"
    # every message sent exactly once; nothing left undelivered
    sent = [e for e in _lines(tmp_path / "sent") if e["kind"] == "sent"]
    ids = [e["id"] for e in sent]
    assert len(ids) == len(set(ids)), "a message was sent twice"
    assert {o.id for o in outbox} <= set(ids) and all(o.delivered_at for o in outbox)
    # while both lived, each touched only its own shard's matches; the survivor touched the
    # victim's only once the victim's lease had expired: the victim acts at most 2/3 of the
    # TTL after a renewal, so its lease outlived its last act by at least a third of the TTL
    pids = {e["pid"] for e in accepted if e["shard"] == 1}
    assert len(pids) == 1
    victim_last = max(e["at"] for e in accepted + sent if e["shard"] == 1)
    for entry in accepted + sent:
        match_shard = shard_of_match[entry["match"]]
        if entry["shard"] == 1:
            assert match_shard == 1 and entry["at"] <= killed_at
        elif match_shard == 1:
            assert entry["at"] > killed_at, "both processes umpired the same match"
            assert entry["at"] >= victim_last + WORKER_TTL / 3, "took over a live lease"
    taken_over = [e for e in accepted if e["shard"] == 0 and shard_of_match[e["match"]] == 1]
    assert {e["match"] for e in taken_over} >= set(running)
    # the victim's person kept the time left on their clock (the downtime was not charged)
    after = asyncio.run(_deadlines(pg_url))
    # (shifted by the downtime: from the victim's last renewal, at most 2/3 of the TTL before
    # its last act, to the takeover, at or before the survivor's first act on shard 1)
    duel = next(i for i, r in rows.items() if r.game == "duel" and r.shard == 1)
    shift = (after[duel] - before[duel]).total_seconds()
    first_act = min(e["at"] for e in accepted + sent
                    if e["shard"] == 0 and shard_of_match[e["match"]] == 1)
    assert shift >= WORKER_TTL - 0.3, "the downtime was charged to the player"
    assert shift <= first_act - victim_last + WORKER_TTL * 2 / 3, "more time than the downtime"
