"""The clocks are shifted for the downtime after the Discord login, not before (issue 27):
the time the login takes is charged to no one."""

from __future__ import annotations

import asyncio

import pytest

from bot.clock import loop_clock
from bot.discord.runner import run_after_login
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.memory_repo import MemoryRepository
from tests.support.transport import RecordingTransport

pytestmark = pytest.mark.looptime


async def test_a_slow_login_is_not_charged_to_a_delivered_decision() -> None:
    repo = MemoryRepository()
    clock = loop_clock()
    service = MatchService(repo, RecordingTransport(), now=clock)  # type: ignore[arg-type]
    await service.start()
    match = await service.start_match("duel", [ANN, BOB])
    await asyncio.sleep(5.5)  # heartbeat at 5 s: both prompts delivered, 25 s left each
    await drive(service).drain()
    await service.stop()
    await asyncio.sleep(60)  # down for a minute

    service = MatchService(repo, RecordingTransport(), now=clock)  # type: ignore[arg-type]
    ready, closed = asyncio.Event(), asyncio.Event()

    async def slow_login() -> None:  # 5 s to log in and connect, then serve until closed
        await asyncio.sleep(5)
        ready.set()
        await closed.wait()

    await service.start(hold_clocks=True)
    client = asyncio.create_task(run_after_login(slow_login(), ready, service.run_clocks))
    try:
        await asyncio.sleep(5.01)
        assert service.clocks_shifted_at is not None, "shifted once logged in"
        revived = service.matches[match.id]
        await service.hydrated()
        for key in ("r1:s0", "r1:s1"):
            left = (revived.clocks[key].limit_at - service.now()).total_seconds()  # type: ignore[operator]
            assert 24.9 <= left <= 25.0, (key, left)  # the login's 5 s were not charged
        assert 65.4 <= drive(service).downtime_seconds() <= 65.6  # (since the last beat, at 5 s)
        await asyncio.sleep(24.5)
        assert revived.seq == 0, "still the time they had left"
        await asyncio.sleep(1)
        assert revived.seq == 2, "then both timed out"
    finally:
        closed.set()
        await client
        await service.stop()


async def test_the_clocks_stay_still_until_the_login() -> None:
    """A held start arms nothing: a decision whose time ran out during the downtime does not
    time out while the bot is still logging in, and gets the time it had once it is in."""
    repo = MemoryRepository()
    clock = loop_clock()
    service = MatchService(repo, RecordingTransport(), now=clock)  # type: ignore[arg-type]
    await service.start()
    match = await service.start_match("duel", [ANN, BOB])
    await asyncio.sleep(20.5)  # 10 s left each
    await service.stop()
    await asyncio.sleep(60)
    service = MatchService(repo, RecordingTransport(), now=clock)  # type: ignore[arg-type]
    await service.start(hold_clocks=True)
    try:
        await service.hydrated()
        await asyncio.sleep(30)  # logging in (slowly)
        assert service.matches[match.id].seq == 0
        await service.run_clocks()
        await asyncio.sleep(9.4)
        assert service.matches[match.id].seq == 0
        await asyncio.sleep(1)
        assert service.matches[match.id].seq == 2
    finally:
        await service.stop()
