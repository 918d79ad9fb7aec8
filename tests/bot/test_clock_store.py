"""The clock suite on the real stores, SQLite and PostgreSQL, in real time.

tests/bot/test_clock.py runs the clock rules under looptime on the in-memory store (a fake
clock cannot wait for a real database's I/O). Here the same rules run against each database
with limits of a second or two: a timeout is stored as the match's action, a pause and a
restart store the clock's time left and give it back, an extension moves the stored
deadline. Lower bounds are exact (a clock never runs out early); upper bounds leave room for
a loaded machine.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.transport import RecordingTransport

SLACK = 3.0  # seconds a loaded machine may take beyond a limit


async def _until(condition: Callable[[], bool], timeout: float) -> float:
    """Poll until `condition` holds; the seconds it took (fails after `timeout`)."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "the clock never ran out"
        await asyncio.sleep(0.02)
    return time.monotonic() - start


async def test_a_decision_not_made_in_time_gets_its_timeout_default_stored(sqlite_service):
    service, transport = sqlite_service
    start = time.monotonic()  # the clocks start once the opening is delivered: later
    match = await service.start_match("duel", [ANN, BOB], settings={"pick_seconds": 1.0})
    assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
    await _until(lambda: match.state.round == 2, 1.0 + SLACK)
    assert time.monotonic() - start >= 0.95, "Bob's clock ran out early"
    async with match.lock:  # the timeout is applied, then stored: let its commit finish
        pass
    actions = await drive(service).actions(match.id)
    assert [a.source for a in actions] == ["player", "timeout"]
    assert actions[-1].command["type"] == "timeout"
    await drive(service).drain()
    assert any("{P1} ran out of time" in t for t in transport.texts(match.id, "public"))


async def test_pause_stores_the_time_left_and_resume_gives_it_back(sqlite_service):
    service, _ = sqlite_service
    start = time.monotonic()  # the clocks start later, once the opening is delivered
    match = await service.start_match("duel", [ANN, BOB], settings={"pick_seconds": 2.0})
    await asyncio.sleep(0.5)
    await service.pause(match.id)
    left = 2.0 - (time.monotonic() - start)  # at least this much was left at the pause
    stored = await drive(service).stored(match.id)
    assert stored is not None and stored.row.status == "paused" and stored.row.paused_at
    await asyncio.sleep(2.5)  # longer than the whole limit
    assert match.seq == 0
    await service.resume(match.id)
    took = await _until(lambda: match.seq == 2, 1.5 + SLACK)
    assert took >= left - 0.05, f"{left:.2f} s were left at the pause, the clocks ran out " \
        f"after {took:.2f} s"


async def test_extend_moves_the_stored_deadline(sqlite_service):
    service, _ = sqlite_service
    start = time.monotonic()
    match = await service.start_match("duel", [ANN, BOB], settings={"pick_seconds": 1.0})
    assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted

    async def bobs_deadline() -> datetime:
        stored = await drive(service).stored(match.id)
        assert stored is not None
        (bob,) = [c for c in stored.clocks if c.seat == 1 and c.status == "armed"]
        assert bob.deadline_at is not None
        return bob.deadline_at

    before = await bobs_deadline()
    await service.extend(match.id, 2, seat=1)
    assert await bobs_deadline() - before == timedelta(seconds=2)
    await _until(lambda: match.state.round == 2, 3.0 + SLACK)
    assert time.monotonic() - start >= 2.9, "Bob's extended clock ran out early"


async def test_downtime_is_not_charged_after_a_restart(db_url):
    engine = create_engine(db_url)
    service = MatchService(Repository(engine), RecordingTransport(), heartbeat_seconds=0.1)
    await service.start()
    start = time.monotonic()
    match = await service.start_match("duel", [ANN, BOB], settings={"pick_seconds": 2.0})
    await asyncio.sleep(0.5)  # about 1.5 s left on both clocks
    await service.stop()
    left = 2.0 - (time.monotonic() - start)  # at least this much was left at the stop
    await engine.dispose()
    await asyncio.sleep(2.5)  # the bot is down for longer than the whole limit

    engine = create_engine(db_url)
    service = MatchService(Repository(engine), RecordingTransport(), heartbeat_seconds=0.1)
    try:
        restarted = time.monotonic()  # the clocks are shifted during start()
        await service.start()
        assert drive(service).downtime_seconds() >= 2.4
        revived = await service.load(match.id)
        assert revived.seq == 0, "the downtime was charged"
        await _until(lambda: service.matches[match.id].seq == 2, 1.6 + SLACK)
        took = time.monotonic() - restarted
        assert took >= left - 0.05, f"{left:.2f} s were left, the clocks ran out after {took:.2f} s"
        async with service.matches[match.id].lock:  # let the last commit finish
            pass
        actions = await drive(service).actions(match.id)
        assert [a.source for a in actions] == ["timeout", "timeout"]
    finally:
        await service.stop()
        await engine.dispose()
