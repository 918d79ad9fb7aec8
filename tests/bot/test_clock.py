"""Clocks under fast-forwarded loop time (looptime): a 30 s timer takes milliseconds."""

from __future__ import annotations

import asyncio

import pytest

from bot.clock import loop_clock
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.memory_repo import MemoryRepository
from tests.support.transport import RecordingTransport

pytestmark = pytest.mark.looptime


async def test_decision_not_made_in_time_gets_its_timeout_default(memory_service):
    service, transport, repo = memory_service
    match = await service.start_match("duel", [ANN, BOB])
    await service.submit(match.id, ANN.id, "pick 4", table_of=0)
    await asyncio.sleep(29.5)
    assert match.state.picks == [4, None]
    await asyncio.sleep(1)
    assert match.state.round == 2, "Bob's pick should have been made at random at 30 s"
    last = repo.actions_[match.id][-1]
    assert last["source"] == "timeout" and last["command"]["type"] == "timeout"
    # Ann waited on her move: stored at once; the timeout shared the writer's queue
    assert repo.at_once[match.id] == [("player", True), ("timeout", False)]
    await drive(service).drain()
    assert any("{P1} ran out of time" in t for t in transport.texts(match.id, "public"))


async def test_reminders_come_at_the_prompts_points(memory_service):
    service, transport, _ = memory_service
    match = await service.start_match("duel", [ANN, BOB])
    await service.submit(match.id, ANN.id, "pick 4", table_of=0)
    await asyncio.sleep(14.9)
    await drive(service).drain()
    assert not [t for t in transport.texts(match.id, "seat1") if "left" in t]
    await asyncio.sleep(0.2)
    await drive(service).drain()
    assert transport.texts(match.id, "seat1")[-1] == "⏰ {P1}, 15 s left for your decision."
    await asyncio.sleep(10)
    await drive(service).drain()
    assert transport.texts(match.id, "seat1")[-1] == "⏰ {P1}, 5 s left for your decision."


async def test_pause_stops_the_clock_and_resume_gives_back_the_time_left(memory_service):
    service, _, _ = memory_service
    match = await service.start_match("duel", [ANN, BOB])
    await asyncio.sleep(10)
    await service.pause(match.id)
    await asyncio.sleep(500)
    assert match.state.round == 1 and match.seq == 0
    await service.resume(match.id)
    await asyncio.sleep(19.5)
    assert match.seq == 0, "20 s were left at the pause"
    await asyncio.sleep(1)
    assert match.seq == 2 and match.state.round == 2


async def test_a_stale_timer_does_nothing(memory_service):
    service, _, repo = memory_service
    match = await service.start_match("duel", [ANN, BOB])
    await service.submit(match.id, ANN.id, "pick 4", table_of=0)
    await drive(service).fire(match.id, "r1:s0")  # Ann's clock, for a decision already made
    await drive(service).fire(match.id, "r9:s1")  # a clock that never existed
    assert match.seq == 1 and len(repo.actions_[match.id]) == 1


async def test_extend_gives_more_time(memory_service):
    service, _, _ = memory_service
    match = await service.start_match("duel", [ANN, BOB])
    await asyncio.sleep(25)
    await service.extend(match.id, 60, seat=1)
    await asyncio.sleep(10)
    assert match.state.picks[1] is None and match.state.picks[0] is not None
    await asyncio.sleep(54.5)  # Bob's clock now ends at 30 + 60 = 90 s
    assert match.state.round == 1
    await asyncio.sleep(1)
    assert match.state.round == 2


async def test_time_bank_charged_in_steps_and_running_out_loses(memory_service):
    service, transport, _ = memory_service
    match = await service.start_match("duel", [ANN, BOB],
                                      settings={"bank_seconds": 60, "pick_seconds": 30})
    await asyncio.sleep(42)  # 12 s into the bank: charged 15 s (three 5 s steps)
    assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
    assert match.state.bank == [45.0, 60.0]
    await drive(service).drain()
    public = transport.texts(match.id, "seat1")
    assert any("your time bank of 60 s is running" in t for t in public)
    assert not any("has used" in t for t in public)
    await asyncio.sleep(47.5)  # Bob: 30 s + 60 s bank = 90 s from the start
    assert match.status == "active"
    await drive(service).drain()
    assert any("{P1} has used 30 s of their time bank (30 s left)" in t
               for t in transport.texts(match.id, "seat1"))
    await asyncio.sleep(1)
    assert match.status == "finished" and match.result["winner"] == 0
    assert match.result["reason"] == "time bank ran out"


async def test_downtime_is_not_charged_after_a_restart():
    repo = MemoryRepository()
    clock = loop_clock()
    service = MatchService(repo, RecordingTransport(), now=clock)  # type: ignore[arg-type]
    await service.start()
    match = await service.start_match("duel", [ANN, BOB])
    await asyncio.sleep(10.5)  # heartbeat at 10 s; 20 s left on both clocks
    await service.stop()
    await asyncio.sleep(300)  # the bot is down for five minutes
    service = MatchService(repo, RecordingTransport(), now=clock)  # type: ignore[arg-type]
    await service.start()
    assert 300 <= drive(service).downtime_seconds() <= 301
    revived = service.matches[match.id]
    await asyncio.sleep(18.5)
    assert revived.seq == 0, "the clocks resumed with the time they had left"
    await asyncio.sleep(3)
    assert revived.seq == 2
    await service.stop()


async def test_a_failed_commit_applies_nothing(memory_service):
    service, _, repo = memory_service
    match = await service.start_match("duel", [ANN, BOB])
    repo.fail_next_commit = True
    reply = await service.submit(match.id, ANN.id, "pick 4", table_of=0)
    assert not reply.accepted and "could not record" in reply.message
    fresh = service.matches[match.id]
    assert fresh.state.picks == [None, None] and fresh.seq == 0
    assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted


async def test_a_break_between_rounds_delays_the_next_clocks(memory_service):
    service, _, _ = memory_service
    match = await service.start_match("duel", [ANN, BOB], settings={"break_seconds": 20})
    await service.submit(match.id, ANN.id, "pick 4", table_of=0)
    await service.submit(match.id, BOB.id, "pick 5", table_of=1)
    await asyncio.sleep(49.5)  # 20 s break + 30 s to decide
    assert match.state.round == 2 and match.seq == 2
    await asyncio.sleep(1)
    assert match.state.round == 3, "both round-2 picks timed out 50 s after the round began"
