"""Channels that fail or are held while a match runs (issues 26 and 27), under loop time: the
clocks of the decisions asked there stop from the first failed send until one goes through,
the hosts are told, nothing is lost or reordered, and a prompt shows its real deadline."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest

from bot.clock import loop_clock
from bot.store.repository import StopData, StoredMessage
from bot.transport import UNTIL, ChannelHeld, MatchInfo, TransportError
from bot.umpire import MatchService
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.memory_repo import MemoryRepository

pytestmark = pytest.mark.looptime

HELD_TEXT = "Bob's table can be read by @everyone: remove that permission."


class Channels:
    """A fake transport: sends to an audience in `down` fail (a 5xx), to one in `held` raise
    `ChannelHeld` (its value is what the hosts are told); the rest are recorded with the loop
    time they went through."""

    def __init__(self) -> None:
        self.down: set[str] = set()
        self.held: dict[str, str] = {}
        self.attempts: dict[str, int] = defaultdict(int)
        self.sent: list[tuple[float, StoredMessage]] = []

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.attempts[message.audience] += 1
        if message.audience in self.held:
            raise ChannelHeld("not posted: wrong readers", for_hosts=self.held[message.audience])
        if message.audience in self.down:
            raise TransportError("Discord answered 503: Service Unavailable")
        self.sent.append((asyncio.get_running_loop().time(), message))

    def texts(self, audience: str) -> list[str]:
        return [m.text for _, m in self.sent if m.audience == audience]

    def first(self, audience: str, part: str) -> tuple[float, str]:
        return next((t, m.text) for t, m in self.sent if m.audience == audience and part in m.text)


@contextlib.asynccontextmanager
async def running(repo: MemoryRepository | None = None
                  ) -> AsyncIterator[tuple[MatchService, MemoryRepository, Channels]]:
    """A started service on a memory store (`repo`, else a new one) and the `Channels`
    transport; stopped after."""
    repo, transport = repo or MemoryRepository(), Channels()
    service = MatchService(repo, transport, now=loop_clock())  # type: ignore[arg-type]
    await service.start()
    try:
        yield service, repo, transport
    finally:
        await service.stop()


def loop_now() -> float:
    return asyncio.get_running_loop().time()


async def arrival(transport: Channels, audience: str, part: str,
                  within: float = 40.0) -> tuple[float, str]:
    """Wait (loop time) until a message of `audience` holding `part` went through."""
    for _ in range(int(within * 10)):
        try:
            return transport.first(audience, part)
        except StopIteration:
            await asyncio.sleep(0.1)
    raise AssertionError(f"nothing with {part!r} reached {audience} in {within} s")


def no_deadlines(text: str) -> str:
    return UNTIL.sub("{until}", text)


async def assert_nothing_lost(service: MatchService, repo: MemoryRepository,
                              transport: Channels, match_id: int) -> None:
    """Every stored message went to its own channel, once, in the stored order."""
    await drive(service).drain()
    outbox = await repo.messages(match_id)
    for audience in ("public", "seat0", "seat1", "umpire"):
        assert [no_deadlines(t) for t in transport.texts(audience)] == \
            [no_deadlines(m.text) for m in outbox if m.audience == audience], audience
    assert all(m.delivered_at is not None for m in outbox)
    assert drive(service).failures == []


async def test_an_outage_stops_a_delivered_decision_from_the_first_failure() -> None:
    """Discord down for 60 s (every send fails) from 5 s on, while Bob's prompt, delivered
    at once, is open: Ann's pick at 10 s is the first send that fails (to the room, which
    every decision depends on), and Bob's clock loses only the 10 s before it."""
    async with running() as (service, repo, transport):
        t0 = loop_now()
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(5)
        assert transport.texts("seat1"), "Bob's prompt was delivered"
        clock = match.clocks["r1:s1"]
        limit = clock.limit_at
        assert limit is not None
        transport.down.update({"public", "seat0", "seat1", "umpire"})  # t = 5: Discord goes
        await asyncio.sleep(5)
        assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
        await asyncio.sleep(55)
        assert match.state.picks == [4, None], "Bob's clock did not run out during the outage"
        transport.down.clear()  # t = 65
        back, _ = await arrival(transport, "public", "has picked")  # within the 30-s backoff
        assert 65 <= back - t0 <= 96
        await asyncio.sleep(0.5)
        # charged 10 s (from the start to the first failure), not the 55 s after it
        clock = match.clocks["r1:s1"]  # (a clock is replaced once its change is stored)
        moved = (clock.limit_at - limit).total_seconds()  # type: ignore[operator]
        assert abs(moved - (back - t0 - 10)) < 0.01, moved
        umpire = transport.texts("umpire")
        room = [t for t in umpire if "the game room could not be reached" in t]
        assert len(room) == 1 and f"for {round(back - t0 - 10)} s" in room[0]
        assert "the clocks waiting on it were stopped for that time" in room[0]
        await asyncio.sleep(back + 19 - loop_now())
        assert match.state.round == 1, "Bob still has the 20 s he had when it stopped"
        await asyncio.sleep(2)
        assert match.state.round == 2, "then his clock ran out"
        await assert_nothing_lost(service, repo, transport, match.id)


async def test_a_failing_table_alone_stops_its_clock_from_its_first_failure() -> None:
    """Only Bob's table fails (from 5 s on); nothing goes there until his 15-s reminder at
    15 s: his clock stops then (a channel with nothing to send is not known to fail), Ann's
    runs on, and the hosts hear how long the table was down."""
    async with running() as (service, repo, transport):
        t0 = loop_now()
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(5)
        limit = match.clocks["r1:s1"].limit_at
        assert limit is not None
        transport.down.add("seat1")
        await asyncio.sleep(35)  # t = 40: Ann's clock ran out at 30
        assert match.state.picks[0] is not None and match.state.picks[1] is None
        # /status shows the time his clock has (stopped at 15 s left), not a countdown past it
        assert "Waiting for Bob: pick in their table channel, 15 s left." in \
            service.status_text(match.id)
        transport.down.clear()
        back, _ = await arrival(transport, "seat1", "15 s left")
        await asyncio.sleep(0.5)
        moved = (match.clocks["r1:s1"].limit_at - limit).total_seconds()  # type: ignore[operator]
        assert abs(moved - (back - t0 - 15)) < 0.01, moved
        table = [t for t in transport.texts("umpire") if "could not be reached" in t]
        assert len(table) == 1 and "the table channel of {P1}" in table[0]
        assert f"for {round(back - t0 - 15)} s" in table[0]
        await assert_nothing_lost(service, repo, transport, match.id)


async def test_a_move_made_while_its_table_is_down_is_not_charged_the_stop() -> None:
    """Bob's table fails from his 15-s reminder on; he picks at 25 s (his messages still reach
    the umpire): the seconds his decision took, stored with the move, leave out the 10 s his
    clock was stopped."""
    async with running() as (service, repo, transport):
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(5)
        transport.down.add("seat1")
        await asyncio.sleep(20)  # t = 25: stopped since the reminder failed at 15
        assert (await service.submit(match.id, BOB.id, "pick 3", table_of=1)).accepted
        [action] = [a for a in await repo.actions(match.id) if a.seat == 1]
        assert abs(action.command["elapsed"] - 15.0) < 0.1, action.command


async def test_a_held_table_is_told_once_and_charges_nothing() -> None:
    """Bob's table is held (readable by others) from the start for 30 s: his prompt waits,
    the hosts are told once at once, nothing of his table goes anywhere else, and when the
    table is fixed (`wake`) the prompt arrives at once with his full time and its real
    deadline."""
    async with running() as (service, repo, transport):
        t0 = loop_now()
        transport.held["seat1"] = HELD_TEXT
        match = await service.start_match("duel", [ANN, BOB])
        ann_start = match.clocks["r1:s0"].started_at
        await asyncio.sleep(1)
        told = [t for t in transport.texts("umpire") if HELD_TEXT in t]
        assert len(told) == 1 and "the table channel of {P1}" in told[0], "told at once"
        await asyncio.sleep(29)  # t = 30
        assert transport.attempts["seat1"] > 3 and transport.texts("seat1") == []
        assert match.state.round == 1
        del transport.held["seat1"]
        drive(service).wake(match.id)
        await asyncio.sleep(0.5)
        arrived, prompt = transport.first("seat1", "your decision")
        assert 30 <= arrived - t0 < 30.5, "posted at once, not after the backoff"
        clock = match.clocks["r1:s1"]
        assert abs((clock.started_at - ann_start).total_seconds()
                   - (arrived - t0)) < 0.01, "his clock starts when the prompt arrives"
        shown = datetime.fromisoformat(UNTIL.search(prompt).group(1))  # type: ignore[union-attr]
        assert abs((shown - clock.limit_at).total_seconds()) < 0.01  # type: ignore[operator]
        await asyncio.sleep(arrived + 29 - loop_now())
        assert match.state.round == 1, "Bob had his 30 s from the arrival"
        await asyncio.sleep(2)
        assert match.state.round == 2
        await assert_nothing_lost(service, repo, transport, match.id)
        umpire = transport.texts("umpire")
        assert len([t for t in umpire if HELD_TEXT in t]) == 1, "told once for the spell"
        assert any("table channel of {P1} could not be reached for 30 s" in t for t in umpire)
        # His table's messages went to his table only; the room saw nothing of the hold.
        bob_only = {m.text for _, m in transport.sent if m.audience == "seat1"}
        assert not any(m.text in bob_only for _, m in transport.sent if m.audience != "seat1")
        for seen_by_ann in ("public", "seat0"):
            assert not any("held" in t or "reached" in t or HELD_TEXT in t
                           for t in transport.texts(seen_by_ann)), seen_by_ann


async def test_a_held_delivered_table_stops_only_that_players_clock() -> None:
    """Bob's prompt was delivered; his table is then held from his 15-s reminder on: his
    clock stops there, Ann's runs on (her decision, at her own table, times out as usual)."""
    async with running() as (service, repo, transport):
        t0 = loop_now()
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(1)
        bob_limit = match.clocks["r1:s1"].limit_at
        assert bob_limit is not None
        transport.held["seat1"] = HELD_TEXT
        await asyncio.sleep(40)  # t = 41: Ann's clock ran out at 30; Bob's stopped at 15
        assert match.state.picks[0] is not None and match.state.picks[1] is None
        del transport.held["seat1"]
        drive(service).wake(match.id)
        back, _ = await arrival(transport, "seat1", "15 s left", 2)
        await asyncio.sleep(0.5)
        moved = (match.clocks["r1:s1"].limit_at - bob_limit).total_seconds()  # type: ignore[operator]
        assert abs(moved - (back - t0 - 15)) < 0.01
        await asyncio.sleep(back + 16 - loop_now())
        assert match.state.round == 2
        await assert_nothing_lost(service, repo, transport, match.id)


async def test_a_held_host_log_is_logged_not_looped(caplog: pytest.LogCaptureFixture) -> None:
    """The host log itself is held: play goes on, the hosts' notice goes to the log file
    (it cannot go to the log that is held), and nothing is tried over and over at once."""
    async with running() as (service, repo, transport):
        with caplog.at_level(logging.WARNING):
            transport.held["umpire"] = "A player can read the host log: remove their role."
            match = await service.start_match("duel", [ANN, BOB])
            await service.submit(match.id, ANN.id, "pick 4", table_of=0)
            await service.submit(match.id, BOB.id, "pick 2", table_of=1)
            await asyncio.sleep(120)
            assert match.state.round >= 2 and transport.texts("umpire") == []
            assert transport.attempts["umpire"] < 12, "backed off, not looped"
            held = [r for r in caplog.records if "remove their role" in r.getMessage()]
            assert len(held) == 1
            stored = [m for m in await repo.messages(match.id) if m.audience == "umpire"]
            assert not any("remove their role" in m.text for m in stored)
            del transport.held["umpire"]
            drive(service).wake(match.id)
            await assert_nothing_lost(service, repo, transport, match.id)
            assert any("the host log could not be reached" in r.getMessage()
                       for r in caplog.records)


async def test_a_late_prompt_shows_its_real_deadline() -> None:
    """Bob's table fails for 40 s: his prompt arrives late and shows the deadline his clock
    really has (40 s later than when it was written), not its original countdown."""
    async with running() as (service, repo, transport):
        t0 = loop_now()
        transport.down.add("seat1")
        match = await service.start_match("duel", [ANN, BOB])
        stored = next(m for m in await repo.messages(match.id) if m.audience == "seat1")
        written = datetime.fromisoformat(UNTIL.search(stored.text).group(1))  # type: ignore[union-attr]
        await asyncio.sleep(40)
        transport.down.clear()
        drive(service).wake(match.id)
        await asyncio.sleep(0.5)
        arrived, text = transport.first("seat1", "your decision")
        shown = datetime.fromisoformat(UNTIL.search(text).group(1))  # type: ignore[union-attr]
        assert abs((shown - written).total_seconds() - (arrived - t0)) < 0.01
        assert shown == match.clocks["r1:s1"].limit_at
        assert (shown - written) > timedelta(seconds=39)
        # (Ann's prompt went at once: it shows what was written)
        assert transport.texts("seat0")[0] == next(
            m.text for m in await repo.messages(match.id) if m.audience == "seat0")


async def test_a_spell_that_outlives_its_match_leaves_nothing_behind() -> None:
    """A table down when the match is aborted: its message is given up after the match's
    last tries, and no bookkeeping of the spell stays in memory."""
    async with running() as (service, repo, transport):
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(1)
        transport.down.add("seat1")
        await asyncio.sleep(15)  # Bob's reminder is refused: his clock stops
        assert drive(service).stopped_clocks(), "the spell is under way"
        await service.abort(match.id)
        await asyncio.sleep(600)
        assert [m for m, _ in drive(service).failures], "given up after the end"
        assert not drive(service).stopped_clocks() and not drive(service).down()


async def test_a_table_made_again_is_not_credited_twice() -> None:
    """A table lost at 1 s (its sends fail from Bob's reminder at 15 s) is made again at 40 s
    and its decisions reposted (`repost`, which moves Bob's clock by the 39 s since the loss):
    the spell's end moves nothing more."""
    async with running() as (service, repo, transport):
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(1)
        limit = match.clocks["r1:s1"].limit_at
        assert limit is not None
        lost = service.now()
        transport.down.add("seat1")
        await asyncio.sleep(39)
        transport.down.clear()
        await service.repost(match.id, "seat1", lost)
        drive(service).wake(match.id)
        await drive(service).drain()
        await asyncio.sleep(1)
        moved = (match.clocks["r1:s1"].limit_at - limit).total_seconds()  # type: ignore[operator]
        assert abs(moved - 39) < 0.01, moved


async def test_a_clock_waits_for_every_channel_it_depends_on() -> None:
    """Bob's table fails from his reminder at 15 s, the room from Ann's pick at 20 s; the
    room is back at 30 s, his table at 50 s: his clock is stopped from 15 s until his table
    is back, once (not moved for each channel)."""
    async with running() as (service, repo, transport):
        t0 = loop_now()
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(1)
        limit = match.clocks["r1:s1"].limit_at
        assert limit is not None
        transport.held["seat1"] = HELD_TEXT
        await asyncio.sleep(15)  # t = 16
        transport.down.add("public")
        await asyncio.sleep(4)
        assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
        await asyncio.sleep(10)  # t = 30
        transport.down.clear()
        drive(service).wake(match.id)
        await arrival(transport, "public", "has picked", 1)
        await asyncio.sleep(1)
        assert match.clocks["r1:s1"].limit_at == limit, "still stopped: his table is down"
        await asyncio.sleep(19)  # t = 50
        del transport.held["seat1"]
        drive(service).wake(match.id)
        back, _ = await arrival(transport, "seat1", "15 s left", 1)
        await asyncio.sleep(0.5)
        moved = (match.clocks["r1:s1"].limit_at - limit).total_seconds()  # type: ignore[operator]
        assert abs(moved - (back - t0 - 15)) < 0.01, moved
        await asyncio.sleep(back + 14 - loop_now())
        assert match.state.round == 1
        await asyncio.sleep(2)
        assert match.state.round == 2
        await assert_nothing_lost(service, repo, transport, match.id)


async def test_a_prompt_that_arrives_while_the_room_is_down_waits_for_it() -> None:
    """The room fails from 5 s on; both pick, and round 2's prompts reach the tables at 6 s
    while the room (which tells what happened) is still down: their clocks stop from their
    arrival until the room is back at 40 s."""
    async with running() as (service, repo, transport):
        t0 = loop_now()
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(5)
        transport.down.add("public")
        assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
        await asyncio.sleep(1)
        assert (await service.submit(match.id, BOB.id, "pick 2", table_of=1)).accepted
        await asyncio.sleep(0.1)
        assert match.state.round == 2
        arrived = [t for t, m in transport.sent
                   if m.audience == "seat1" and "your decision" in m.text][-1]  # round 2's
        assert arrived - t0 >= 6
        limit = match.clocks["r2:s1"].limit_at
        assert limit is not None
        await asyncio.sleep(40 - (loop_now() - t0))  # t = 40: 34 s after round 2 was asked
        assert match.state.round == 2 and match.state.picks == [None, None]
        transport.down.clear()
        drive(service).wake(match.id)
        back, _ = await arrival(transport, "public", "has picked", 1)
        await asyncio.sleep(0.5)
        for key in ("r2:s0", "r2:s1"):
            moved = (match.clocks[key].limit_at - limit).total_seconds()  # type: ignore[operator]
            assert abs(moved - (back - arrived)) < 0.05, (key, moved)
        await assert_nothing_lost(service, repo, transport, match.id)


async def test_a_pause_during_a_stop_is_not_given_twice() -> None:
    """Bob's table fails from his reminder at 15 s; the hosts pause from 20 s to 30 s; the
    table is back at 40 s: his clock moves by the 25 s it was stopped (the pause's 10 s
    among them), not by 25 + 10."""
    async with running() as (service, repo, transport):
        t0 = loop_now()
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(1)
        limit = match.clocks["r1:s1"].limit_at
        assert limit is not None
        transport.held["seat1"] = HELD_TEXT
        await asyncio.sleep(19)
        await service.pause(match.id)
        await asyncio.sleep(10)
        await service.resume(match.id)
        await asyncio.sleep(40 - (loop_now() - t0))
        del transport.held["seat1"]
        drive(service).wake(match.id)
        back, _ = await arrival(transport, "seat1", "15 s left", 1)
        await asyncio.sleep(0.5)
        moved = (match.clocks["r1:s1"].limit_at - limit).total_seconds()  # type: ignore[operator]
        assert abs(moved - (back - t0 - 15)) < 0.01, moved


async def test_a_stop_outlives_a_restart_and_charges_no_one() -> None:
    """Bob's delivered table is held from his 15-s reminder on; the service stops at 25 s
    (its last beat) and starts again at 35 s with the table still held: the stop was stored
    before it took effect, goes on after the start (the re-sent reminder is held again), and
    when the table is fixed at 45 s Bob is charged only the 15 s before the stop: nothing of
    15..25 (the stop), 25..35 (the downtime) or 35..45 (the stop again)."""
    repo, transport, clock = MemoryRepository(), Channels(), loop_clock()
    service = MatchService(repo, transport, now=clock)  # type: ignore[arg-type]
    await service.start()
    t0 = loop_now()
    match = await service.start_match("duel", [ANN, BOB])
    await asyncio.sleep(1)
    bob_limit = match.clocks["r1:s1"].limit_at
    assert bob_limit is not None
    transport.held["seat1"] = HELD_TEXT
    await asyncio.sleep(15)  # t = 16: the reminder (at 15) was held: Bob's clock stopped
    stored = repo.stops_[match.id]["r1:s1"]
    assert stored.channels == {"seat1"} and \
        abs((stored.since - match.clocks["r1:s1"].started_at).total_seconds() - 15) < 0.01
    await asyncio.sleep(9)  # t = 25
    await service.stop()
    await asyncio.sleep(10)  # t = 35: down for 10 s
    service = MatchService(repo, transport, now=clock)  # type: ignore[arg-type]
    await service.start()
    try:
        await asyncio.sleep(10)  # t = 45: Ann's clock ran out at 30 + 10 (the downtime)
        match = service.matches[match.id]
        assert match.state.picks[0] is not None and match.state.picks[1] is None, \
            "Bob's clock stayed stopped after the start"
        assert (match.id, "r1:s1") in drive(service).stopped_clocks()
        del transport.held["seat1"]
        drive(service).wake(match.id)
        back, _ = await arrival(transport, "seat1", "15 s left", 2)
        await asyncio.sleep(0.5)
        moved = (match.clocks["r1:s1"].limit_at - bob_limit).total_seconds()  # type: ignore[operator]
        assert abs(moved - (back - t0 - 15)) < 1.01, moved  # (1: the heartbeat's period)
        assert not repo.stops_[match.id] and not drive(service).stopped_clocks(), "the stop's end is stored"
        await asyncio.sleep(back + 14 - loop_now())
        assert match.state.round == 1, "Bob still has the 15 s he had when it stopped"
        await asyncio.sleep(3)
        assert match.state.round == 2
    finally:
        await service.stop()


async def test_a_stored_stop_whose_channel_has_nothing_to_send_ends_at_the_start() -> None:
    """A stop read back on a start whose channel has nothing left to send (its message went
    through just before the crash) ends at once, credited from its `since`."""
    repo, transport, clock = MemoryRepository(), Channels(), loop_clock()
    service = MatchService(repo, transport, now=clock)  # type: ignore[arg-type]
    await service.start()
    match = await service.start_match("duel", [ANN, BOB])
    await asyncio.sleep(1)
    bob_limit = match.clocks["r1:s1"].limit_at
    assert bob_limit is not None
    await asyncio.sleep(9)  # t = 10
    await service.stop()
    since = match.clocks["r1:s1"].started_at + timedelta(seconds=5)  # (a stop from t = 5)
    repo.stops_[match.id] = {"r1:s1": StopData(since, {"seat1"})}
    service = MatchService(repo, transport, now=clock)  # type: ignore[arg-type]
    await service.start()
    try:
        await asyncio.sleep(0.5)
        assert not drive(service).stopped_clocks() and not repo.stops_[match.id]
        moved = (service.matches[match.id].clocks["r1:s1"].limit_at
                 - bob_limit).total_seconds()  # type: ignore[operator]
        assert abs(moved - 5) < 0.01, moved
    finally:
        await service.stop()


class StopsRefused(MemoryRepository):
    """A store that refuses every write of clock stops while `refusing` (other writes, a
    timeout's among them, go through: the store came back between two tries of the stop)."""

    def __init__(self) -> None:
        super().__init__()
        self.refusing = False
        self.refused = 0

    async def commit(self, write, now, *, at_once=False):  # noqa: ANN001, ANN201
        if self.refusing and write.stops is not None:
            self.refused += 1
            raise RuntimeError("injected: the stop's write failed")
        return await super().commit(write, now, at_once=at_once)


async def test_a_clock_whose_stop_the_store_refused_does_not_run_out_while_its_room_is_down(
        ) -> None:
    """Discord goes down at 5 s; Ann's pick at 10 s is the first failed send, so Bob's clock
    should stop from 10 s. The store refuses the stop's write until 50 s (it is tried again
    meanwhile), while Bob's deadline (30 s) passes: his clock must not run out on the room
    being down, and once the stop is stored and the room is back he has the 20 s he had."""
    async with running(StopsRefused()) as (service, repo, transport):
        assert isinstance(repo, StopsRefused)
        match = await service.start_match("duel", [ANN, BOB])
        await asyncio.sleep(5)
        repo.refusing = True
        transport.down.update({"public", "seat0", "seat1", "umpire"})
        await asyncio.sleep(5)
        assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
        await asyncio.sleep(40)  # t = 50: Bob's deadline (30 s) is long past
        assert repo.refused >= 2, "the stop's write was refused and tried again"
        assert match.state.picks == [4, None], "Bob's clock ran out while his stop was unstored"
        repo.refusing = False
        await asyncio.sleep(5)  # the stop's next try is stored
        assert repo.stops_[match.id]["r1:s1"].channels == {"public"}
        transport.down.clear()  # t = 55
        back, _ = await arrival(transport, "public", "has picked")
        await asyncio.sleep(0.5)
        await asyncio.sleep(back + 18 - loop_now())
        assert match.state.round == 1, "Bob still has the 20 s he had when the room went down"
        await asyncio.sleep(3)
        assert match.state.round == 2, "then his clock ran out"
