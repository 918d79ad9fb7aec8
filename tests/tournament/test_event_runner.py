"""The event runner (bot/tournament/runner.py) on the real service and store: rounds start
through the service, results advance the event in the match's own transaction, aborted
matches are played again, walkovers and awards, and a kill at any moment loses nothing."""

from __future__ import annotations

import asyncio
import copy
import io
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.console.demo import PrintTransport
from bot.console.runtime import local_service
from bot.console.tournament import local_starter, run_tournament
from bot.store.models import EventMatchRow, MatchResultRow, MatchRow
from bot.tournament import event as ev
from bot.tournament import store
from bot.tournament.event import Entrant, Event
from bot.tournament.formats import format_named
from bot.tournament.formats.single import SingleElimination
from bot.tournament.record import event_record, verify_event
from bot.tournament.runner import EventRunner
from bot.umpire import MatchService, UmpireError
from tests.support.driver import drive

ROOT = Path(__file__).resolve().parents[2]
FMT = format_named("single")


async def links(service: MatchService, event_id: int) -> dict[str, int]:
    async with drive(service).engine.connect() as conn:
        rows = (await conn.execute(select(EventMatchRow.pairing, EventMatchRow.match_id)
                                   .where(EventMatchRow.event_id == event_id))).all()
    return dict(rows)


class Rig:
    """A service on a SQLite file with a runner whose entrants are people (nobody moves:
    the test ends each match as a host would)."""

    def __init__(self, service: MatchService, runner: EventRunner) -> None:
        self.service, self.runner = service, runner
        self.notes: list[str] = []

        async def note(event: Event, text: str | None) -> None:
            if text:
                self.notes.append(text)
        runner.listeners.append(note)

    async def event(self, n: int, **fields: Any) -> Event:
        event = await self.runner.create(name="Cup", game="rps-poker", format="single",
                                         seed="fixed", **fields)

        def signed(e: Event) -> tuple[Event, None]:
            e = ev.open_signups(e)
            for i in range(1, n + 1):
                e = ev.join(e, Entrant(id=f"console:p{i}", name=f"P{i}"))
            return ev.close_signups(e), None
        await self.runner.change(event.id, signed)
        return await self.runner.start_event(event.id)

    async def settle(self, event_id: int) -> Event:
        for _ in range(200):
            await asyncio.sleep(0.01)
            if not self.runner._tasks and not any(
                    lock.locked() for lock in self.runner._locks.values()):
                break
        return await self.runner.get(event_id)

    def running(self, event: Event) -> dict[str, int]:
        return {p: m for p, m in event.matches.items()
                if getattr(drive(self.service).match(m), "status", "") == "active"}


async def rig_on(db: Path, fmt: Any = format_named) -> AsyncIterator[Rig]:
    made: list[EventRunner] = []
    async with local_service(PrintTransport(io.StringIO(), quiet=True), db=str(db),
                             setup=lambda s: made.append(EventRunner(
                                 s, local_starter(s, 5), formats=fmt))) as service:
        yield Rig(service, made[0])
        await made[0].stop()


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async for r in rig_on(tmp_path / "e.db"):
        yield r


async def test_knockout_of_bots_runs_to_a_champion_each_result_stored_with_its_match(
        tmp_path: Path) -> None:
    out = io.StringIO()
    event = await run_tournament("rps-poker", ["heuristic", "random"] * 3, "single", seed=4,
                                 db=str(tmp_path / "t.db"), out=out, timeout=120)
    assert event.status == "ended"
    state = FMT.load(event.state or {})
    champion = ev.champion(event, FMT)
    assert champion is not None and f"{event.name_of(champion)} is the champion" in out.getvalue()
    assert "Round 3 of" in out.getvalue() and "Standings of" in out.getvalue()
    async with local_service(PrintTransport(io.StringIO(), quiet=True),
                             db=str(tmp_path / "t.db")) as service:
        stored = await store.load(drive(service).engine, event.id)
        assert stored == event
        linked = await links(service, event.id)
        async with drive(service).engine.connect() as conn:
            results = {r.match_id: r for r in (await conn.execute(select(MatchResultRow))).all()}
            rows = {r.id: r for r in (await conn.execute(select(MatchRow))).all()}
    played = [p for p in state.pairings if p.player1 is not None]
    assert sorted(linked) == sorted(p.id for p in played)  # (a drawn match was played again)
    assert {linked[p.id] for p in played} <= set(results)
    for pairing in played:
        match = rows[linked[pairing.id]]
        assert match.transport["event"] == event.id and match.transport["pairing"] == pairing.id
        assert match.transport.get("unrated")  # the local event is not rated
        winner = match.players[match.result["winner"]]["id"]
        assert state.results[pairing.id].winner == winner and not state.results[pairing.id].walkover


async def test_an_aborted_match_is_played_again_and_an_award_is_a_walkover(rig: Rig) -> None:
    event = await rig.event(4)
    first = dict(event.matches)
    assert sorted(first) == ["R1-1", "R1-2"]
    await rig.service.abort(first["R1-1"], "the room was lost")
    event = await rig.settle(event.id)
    again = event.matches["R1-1"]
    assert again > max(first.values()) and rig.service.matches[again].status == "active"
    assert (await links(rig.service, event.id))["R1-1"] == again
    assert any("played again" in n for n in rig.notes)
    live = rig.service.matches[first["R1-2"]]
    await rig.runner.award(event.id, live.id, live.players[1].id)
    event = await rig.settle(event.id)
    result = FMT.load(event.state or {}).results["R1-2"]
    assert result.winner == live.players[1].id and result.walkover
    with pytest.raises(ev.EventError, match="not a running match"):
        await rig.runner.award(event.id, live.id, live.players[0].id)


async def test_the_record_keeps_a_pairings_aborted_match_beside_the_one_that_decided_it(
        rig: Rig) -> None:
    """An aborted match is played again; the event's record exports both, the first as the
    pairing's earlier match, and verify checks that it ended without a winner."""
    event = await rig.event(2)
    first = event.matches["R1-1"]
    await rig.service.abort(first, "the room was lost")
    event = await rig.settle(event.id)
    again = event.matches["R1-1"]
    await rig.service.award(again, 0)
    event = await rig.settle(event.id)
    assert event.status == "ended"
    record = await event_record(rig.service, event.id)
    (pairing,) = record["pairings"]
    assert pairing["match"] == again and pairing["earlier"] == [first]
    assert sorted(m["match"] for m in record["matches"]) == [first, again]
    lines, ok = verify_event(record)
    assert ok, lines
    decided = copy.deepcopy(record)
    aborted = next(m for m in decided["matches"] if m["match"] == first)
    aborted["result"] = {**(aborted.get("result") or {}), "winner": 1}
    lines, ok = verify_event(decided)
    assert not ok and any(f"earlier match #{first} has a winner" in line for line in lines)
    dropped = copy.deepcopy(record)
    dropped["matches"] = [m for m in dropped["matches"] if m["match"] != first]
    lines, ok = verify_event(dropped)
    assert not ok and any(f"earlier match #{first} is not in the record" in line
                          for line in lines)


async def test_replace_walks_over_the_running_match_and_the_event_goes_on(rig: Rig) -> None:
    event = await rig.event(4)
    pairing = FMT.load(event.state or {}).pairings[0]
    match_id = event.matches[pairing.id]
    await rig.runner.replace(event.id, pairing.player0, Entrant(id="console:sub", name="Sub"))
    event = await rig.settle(event.id)
    assert rig.service.matches[match_id].status == "aborted"  # stopped: decided already
    state = FMT.load(event.state or {})
    assert state.results[pairing.id].winner == pairing.player1
    assert state.results[pairing.id].walkover
    assert event.entrant(pairing.player0).withdrawn  # type: ignore[union-attr]
    # the other match ends: the final opens (break 0) between the two winners
    other = rig.service.matches[event.matches["R1-2"]]
    await rig.service.award(other.id, 0)
    event = await rig.settle(event.id)
    final = rig.running(event)
    assert list(final) == ["R2-1"]
    players = {p.id for p in rig.service.matches[final["R2-1"]].players}
    assert players == {pairing.player1, other.players[0].id}


async def test_a_failed_event_write_leaves_the_match_running(tmp_path: Path) -> None:
    class Broken(SingleElimination):
        def record(self, state: Any, result: Any) -> Any:
            raise RuntimeError("disk full")

    async for rig in rig_on(tmp_path / "b.db", fmt=lambda name: Broken()):
        event = await rig.event(2)
        match_id = event.matches["R1-1"]
        with pytest.raises(UmpireError, match="could not store"):
            await rig.service.award(match_id, 0)
        assert rig.service.matches[match_id].status == "active"
        async with drive(rig.service).engine.connect() as conn:
            row = (await conn.execute(select(MatchRow).where(MatchRow.id == match_id))).one()
            assert row.status == "active"
            assert not (await conn.execute(select(MatchResultRow))).all()


async def test_a_slow_pairing_is_worked_out_beside_the_writer_not_in_it(tmp_path: Path) -> None:
    """A round's pairing can take seconds (a Swiss round of 128); every match's writes go
    through the store's one writer, so the pairing must not run inside its transaction."""
    started, calls = threading.Event(), []

    class SlowPairing(SingleElimination):
        armed = False

        def next_round(self, state: Any) -> Any:
            if self.armed:
                calls.append(time.perf_counter())
                started.set()
                time.sleep(3.0)
            return super().next_round(state)

    fmt = SlowPairing()
    async for rig in rig_on(tmp_path / "s.db", fmt=lambda name: fmt):
        event = await rig.event(4)
        fmt.armed = True
        for match_id in event.matches.values():
            await rig.service.award(match_id, 0)
        assert await asyncio.to_thread(started.wait, 10)
        await drive(rig.service).writer.run(lambda conn: None)  # another match's write
        # (3 s or more if the writer, or the event loop, waited for the pairing)
        assert time.perf_counter() - calls[0] < 1.0
        for _ in range(100):
            event = await rig.settle(event.id)
            if "R2-1" in event.matches:
                break
        assert list(rig.running(event)) == ["R2-1"]
        assert len(calls) == 1  # worked out once: the stored event had not changed


async def test_the_break_is_a_stored_deadline_kept_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    async for rig in rig_on(db):
        event = await rig.event(4, break_seconds=1)
        for match_id in event.matches.values():
            await rig.service.award(match_id, 0)
        event = await rig.settle(event.id)
        assert event.round_opens_at is not None and not rig.running(event)
    async for rig in rig_on(db):  # a restart during the break
        [resumed] = await rig.runner.resume()
        assert resumed.round_opens_at == event.round_opens_at
        assert not rig.running(await rig.runner.get(event.id))  # not before the break ends
        await asyncio.sleep(1.2)
        event = await rig.settle(event.id)
        assert list(rig.running(event)) == ["R2-1"]


def test_killed_at_random_moments_the_event_finishes_with_every_pairing_played_once(
        tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rng = random.Random(7)
    cmd = [sys.executable, "-m", "tests.tournament.event_worker", str(db)]
    kills, finished = 0, None
    errors = tmp_path / "stderr.txt"
    while finished is None:
        # (stderr to a file: the output is read through the pipe's reader alone, since
        # communicate() reads the raw pipe and would lose what readline() buffered)
        with errors.open("w") as err:
            proc = subprocess.Popen([*cmd, "0.02"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                    stderr=err, text=True)
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the event is running (started, or resumed)
        assert line, errors.read_text()
        time.sleep(rng.uniform(0.1, 1.0))
        if proc.poll() is None and kills < 4:
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            proc.stdout.close()
            kills += 1
            continue
        rest = proc.stdout.read()
        proc.stdout.close()
        assert proc.wait(300) == 0, errors.read_text()
        finished = line + rest
    assert kills >= 2 and "is the champion" in finished, finished

    async def check() -> None:
        async with local_service(PrintTransport(io.StringIO(), quiet=True),
                                 db=str(db)) as service:
            engine = drive(service).engine
            [event] = await store.of_guild(engine, 0)  # resumed each time, never begun again
            assert event.status == "ended"
            state = FMT.load(event.state or {})
            async with engine.connect() as conn:
                rows = (await conn.execute(select(MatchRow).order_by(MatchRow.id))).all()
            by_pairing: dict[str, list[Any]] = {}
            for row in rows:
                by_pairing.setdefault(row.transport["pairing"], []).append(row)
            played = [p for p in state.pairings if p.player1 is not None]
            assert sorted(by_pairing) == sorted(p.id for p in played)
            linked = await links(service, event.id)
            for pairing in played:
                *drawn, match = by_pairing[pairing.id]
                # never started twice: earlier matches of a pairing are draws played again
                assert all(m.status == "finished" and m.result["winner"] is None
                           for m in drawn), [(m.id, m.status, m.result) for m in by_pairing[pairing.id]]
                assert match.status == "finished" and linked[pairing.id] == match.id
                winner = match.players[match.result["winner"]]["id"]
                assert state.results[pairing.id].winner == winner
    asyncio.run(check())


async def test_the_kill_workers_check_for_an_ended_event_resumes_no_match(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's check ran a service without the event runner: it resumed the event's
    matches, and a bot that ended one there stored its result without the event's record of
    it, so the kill test saw the pairing played twice. The check reads the store alone."""
    from tests.tournament.event_worker import ended_event

    db = tmp_path / "w.db"
    async for rig in rig_on(db):
        event = await rig.event(2)
        [match_id] = event.matches.values()

    async def resumed(self: MatchService, **_: Any) -> None:
        raise AssertionError("the check started a service: it resumes the event's matches")
    with monkeypatch.context() as patch:
        patch.setattr(MatchService, "start", resumed)
        assert await ended_event(str(db)) is None
    async for rig in rig_on(db):
        assert rig.service.matches[match_id].status == "active"
        await rig.runner.end(event.id)
        await rig.settle(event.id)
    with monkeypatch.context() as patch:
        patch.setattr(MatchService, "start", resumed)
        ended = await ended_event(str(db))
    assert ended is not None and ended.id == event.id


async def test_a_match_that_cannot_start_is_told_once_and_tried_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.tournament import runner as runner_module

    monkeypatch.setattr(runner_module, "RETRY_START_SECONDS", 0.05)
    async for rig in rig_on(tmp_path / "f.db"):
        real = rig.runner.starter
        tries: list[str] = []

        async def flaky(event: Event, pairing: Any, players: Any, transport: Any,
                        tries: list[str] = tries, real: Any = real) -> Any:
            tries.append(pairing.id)
            if len(tries) <= 3:
                raise UmpireError("Discord refused to make the room.")
            return await real(event, pairing, players, transport)
        rig.runner.starter = flaky
        event = await rig.event(2)
        for _ in range(100):
            if event.matches:
                break
            await asyncio.sleep(0.05)
            event = await rig.runner.get(event.id)
        assert list(event.matches) == ["R1-1"] and len(tries) == 4
        told = [n for n in rig.notes if "could not start" in n]
        assert len(told) == 1 and "Discord refused to make the room." in told[0]


async def test_a_command_that_runs_no_event_still_records_the_end_of_an_event_match(
        tmp_path: Path) -> None:
    """`umpire play` and `demo` on a database that holds a running event resume its matches
    too; one that ends there is recorded in its event in the same transaction (an
    `EventRecorder`), so the event's next run goes on from it and never plays it again."""
    db = tmp_path / "p.db"
    async for rig in rig_on(db):
        event = await rig.event(2)
        [(pairing, match_id)] = event.matches.items()
    async with local_service(PrintTransport(io.StringIO(), quiet=True), db=str(db)) as service:
        winner = service.matches[match_id].players[1].id
        await service.award(match_id, 1)
    async for rig in rig_on(db):
        stored = await rig.settle(event.id)
        assert FMT.load(stored.state or {}).results[pairing].winner == winner
        assert stored.status == "ended"
        async with drive(rig.service).engine.connect() as conn:
            rows = (await conn.execute(select(MatchRow.id))).all()
        assert [r.id for r in rows] == [match_id]  # not played again
